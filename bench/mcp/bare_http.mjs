// The floor for an MCP client over Streamable HTTP: bare JSON-RPC POSTs on one kept-alive connection, no SDK; the
// answer read from the JSON body or the event stream as it is. Against server-everything's get-sum, N calls.
//   node bare_http.mjs URL [N]      Prints {mode, start_and_list_ms, per_call_us} as one JSON line.
import http from 'node:http';
const url = new URL(process.argv[2]);
const N = Number(process.argv[3] ?? 1000);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let session = '';
let id = 0;
const post = (message) => new Promise((done, fail) => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
    session = res.headers['mcp-session-id'] ?? session;
    let body = '';
    res.on('data', (d) => { body += d; });
    res.on('end', () => {
      if (message.id === undefined) return done(null);
      const json = body.trimStart().startsWith('{') ? [body]
        : body.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean);
      const answer = json.map((j) => JSON.parse(j)).find((m) => m.id === message.id);
      answer ? done(answer) : fail(new Error('no answer in ' + body.slice(0, 200)));
    });
  });
  req.on('error', fail);
  req.end(JSON.stringify(message));
});
const request = (method, params) => post({ jsonrpc: '2.0', id: ++id, method, params });
const t0 = performance.now();
await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bare', version: '1' } });
await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
await request('tools/list', {});
const t1 = performance.now();
for (let i = 0; i < N; i++) await request('tools/call', { name: 'get-sum', arguments: { a: i, b: 1 } });
const t2 = performance.now();
console.log(JSON.stringify({ mode: 'bare-http', start_and_list_ms: +(t1 - t0).toFixed(1), per_call_us: +((t2 - t1) * 1000 / N).toFixed(1) }));
agent.destroy();
