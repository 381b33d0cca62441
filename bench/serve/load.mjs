// A load generator for bench/serve.sh, the same for every server it is pointed at (no dependencies).
//   node load.mjs rps URL BODY_JSON CONCURRENCY SECONDS   CONCURRENCY kept-alive connections, each sending its next
//                                                         request when the last is answered
//   node load.mjs streams URL BODY_JSON N                 N requests at once (each on its own connection), every
//                                                         response read to its end
// Prints one JSON line: {requests, errors, seconds, rps, p50_ms, p99_ms, max_ms}.
import http from 'node:http';

const [mode, url, body, a, b] = process.argv.slice(2);
const target = new URL(url);
const payload = Buffer.from(body);

function post(agent) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ ok: res.statusCode === 200, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
      res.on('error', () => resolve({ ok: false, ms: 0 }));
    });
    req.on('error', () => resolve({ ok: false, ms: 0 }));
    req.end(payload);
  });
}

function summary(times, errors, seconds) {
  times.sort((x, y) => x - y);
  const at = (q) => (times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))] : 0);
  return { requests: times.length, errors, seconds, rps: times.length / seconds, p50_ms: at(0.5), p99_ms: at(0.99),
           max_ms: times.length ? times[times.length - 1] : 0 };
}

if (mode === 'rps') {
  const conc = Number(a), seconds = Number(b);
  const agent = new http.Agent({ keepAlive: true, maxSockets: conc });
  const times = []; let errors = 0;
  const until = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: conc }, async () => {
    while (Date.now() < until) {
      const r = await post(agent);
      if (r.ok) times.push(r.ms); else ++errors;
    }
  }));
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify(summary(times, errors, elapsed)));
  agent.destroy();
} else if (mode === 'streams') {
  const n = Number(a);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const t0 = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: n }, () => post(agent)));
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const times = results.filter((r) => r.ok).map((r) => r.ms);
  console.log(JSON.stringify(summary(times, results.length - times.length, elapsed)));
} else {
  console.error('usage: load.mjs rps|streams ...');
  process.exit(2);
}
