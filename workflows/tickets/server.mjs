// A ticket API for workflows/ticket_api.yaml, on 127.0.0.1 only: GET /v1/tickets/ID and POST /v1/tickets/ID/comments,
// each asking for "Authorization: Bearer TOKEN". Node's own http module, no packages.
//   node workflows/tickets/server.mjs [PORT]     (PORT: 8765; the token: $TICKETS_TOKEN, else demo-token)
import http from 'node:http';

const port = Number(process.argv[2] || process.env.TICKETS_PORT || 8765);
const token = process.env.TICKETS_TOKEN || 'demo-token';
const tickets = {
  1: { id: 1, title: 'Refund not received', status: 'open', comments: [] },
  2: { id: 2, title: 'Parcel arrived damaged', status: 'waiting on customer', comments: [] },
  3: { id: 3, title: 'Change delivery address', status: 'closed', comments: [] },
};

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'a valid token is required' });
  const m = req.url.match(/^\/v1\/tickets\/(\d+)(\/comments)?$/);
  const ticket = m && tickets[m[1]];
  if (!ticket) return send(res, 404, { error: `no ticket at ${req.url}` });
  if (req.method === 'GET' && !m[2]) return send(res, 200, ticket);
  if (req.method === 'POST' && m[2]) {
    let body = '';
    req.on('data', (chunk) => { if (body.length < 65536) body += chunk; });
    req.on('end', () => {
      let text;
      try { text = JSON.parse(body).text; } catch { return send(res, 400, { error: 'send {"text": ...}' }); }
      if (typeof text !== 'string' || !text) return send(res, 400, { error: 'send {"text": ...}' });
      ticket.comments.push(text);
      send(res, 201, { ticket: ticket.id, comment: ticket.comments.length });
    });
    return;
  }
  send(res, 405, { error: `${req.method} is not allowed here` });
});
server.listen(port, '127.0.0.1', () => console.log(`tickets API on http://127.0.0.1:${port}/v1/`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
