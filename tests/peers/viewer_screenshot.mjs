// The picture of the viewer in the README and docs/observability.md: scripts/viewer_screenshot.sh runs this against
// `engine ui`. Usage: node viewer_screenshot.mjs BASE_URL RUN_ID OUT.png
import { chromium } from 'playwright-core';

const [base, run, out] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
                                        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(base + '/ui/#/run/' + run);
  await page.waitForSelector(`body[data-ready="#/run/${run}"]`, { timeout: 15000 });
  await page.click('.span-row[data-name^="chat "] >> nth=1');
  await page.screenshot({ path: out });
} finally {
  await browser.close();
}
