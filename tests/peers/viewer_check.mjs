// Drives the run viewer in Debian's chromium, headless (tests/e2e/viewer_test.cpp starts `engine ui` and reads what
// this prints). Usage: node viewer_check.mjs BASE_URL RUN_A RUN_B RUN_WITH_STEPS [SCREENSHOT.png]
// Prints one JSON object: what the page showed at each stage, and every error the page's console reported.
import { chromium } from 'playwright-core';

const [base, runA, runB, runSteps, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // A root user's chromium refuses to start sandboxed; the page is our own, on loopback.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const out = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
  page.on('pageerror', (e) => out.errors.push(String(e)));
  const ready = (hash) => page.waitForSelector(`body[data-ready="${hash}"]`, { timeout: 15000 });

  await page.goto(base + '/ui/');
  await ready('#/');
  out.listed = await page.$$eval('#runs tbody tr[data-id]', (rows) => rows.map((r) => r.dataset.id));
  // The filters: a workflow no run is of, then a status.
  await page.fill('#filters input[name=workflow]', 'no-such-workflow');
  await page.click('#filters button[type=submit]');
  await page.waitForFunction(() => !document.querySelector('#runs tbody tr[data-id]'));
  out.filtered_out = await page.textContent('#runs tbody');
  await page.fill('#filters input[name=workflow]', 'calculator');
  await page.selectOption('#filters select[name=status]', 'ok');
  await page.click('#filters button[type=submit]');
  await page.waitForSelector('#runs tbody tr[data-id]');
  out.filtered_ok = await page.$$eval('#runs tbody tr[data-id]', (rows) => rows.length);

  await page.click(`#runs tbody tr[data-id="${runA}"]`);
  await ready('#/run/' + runA);
  out.title = await page.textContent('#run-title');
  out.summary = await page.$$eval('#summary dd', (dds) => Object.fromEntries(dds.map((d) => [d.dataset.field, d.textContent])));
  out.spans = await page.$$eval('.span-row', (rows) => rows.map((r) => {
    const bar = r.querySelector('.bar').getBoundingClientRect();
    const track = r.querySelector('.track').getBoundingClientRect();
    return { name: r.dataset.name, left: bar.left - track.left, width: bar.width, track: track.width,
             indent: parseFloat(getComputedStyle(r.querySelector('.span-name')).paddingLeft) };
  }));
  out.prompt = await page.textContent('#detail .prompt');
  out.reply = await page.textContent('#detail .reply');
  await page.click('.span-row[data-name^="execute_tool "]');
  out.tool_input = await page.textContent('#detail .tool-input');
  out.tool_output = await page.textContent('#detail .tool-output');
  await page.click('.span-row[data-name^="chat "]');
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });

  await page.goto(base + '/ui/#/');
  await ready('#/');
  await page.check(`#runs tbody tr[data-id="${runA}"] .pick`);
  await page.check(`#runs tbody tr[data-id="${runB}"] .pick`);
  await page.click('#compare');
  await page.waitForSelector('#diff tbody tr', { timeout: 15000 });
  out.diff = await page.$$eval('#diff tbody tr', (rows) => rows.map((r) => ({
    what: r.dataset.what, differs: r.classList.contains('differs'),
    a: r.children[1].textContent, b: r.children[2].textContent })));

  // Run B's input holds markup: it must be shown as text, never run.
  await page.goto(base + '/ui/#/run/' + runB);
  await ready('#/run/' + runB);
  out.b_inputs = await page.textContent('#summary dd[data-field="inputs"]');
  out.injected = await page.evaluate(() => window.__injected === true || document.querySelector('#summary img') !== null);

  // A workflow's run: its steps from the journal, each item of a for_each, a skipped step's reason.
  await page.goto(base + '/ui/#/run/' + runSteps);
  await ready('#/run/' + runSteps);
  out.steps = await page.$$eval('#steps tbody tr', (rows) => rows.map((r) => ({
    step: r.dataset.step, item: r.classList.contains('item'), status: r.querySelector('.status').textContent,
    inputs: r.querySelector('.inputs').textContent, output: r.querySelector('.output').textContent })));
  await page.goto(base + '/ui/#/run/' + runA);
  await ready('#/run/' + runA);
  out.a_steps_hidden = await page.evaluate(() => document.querySelector('#steps-part').hidden);

  await page.goto(base + '/ui/#/chat');
  await ready('#/chat');
  out.models = await page.$$eval('#chat-model option', (options) => options.map((o) => o.value));
  if (out.models.length) {
    await page.fill('#chat-input', 'What is 6 * 7?');
    await page.click('#chat button[type=submit]');
    await page.waitForSelector('#chat-messages .message.assistant', { timeout: 15000 });
    out.chat_reply = await page.textContent('#chat-messages .message.assistant pre');
  }
} catch (error) {
  out.failure = String(error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
