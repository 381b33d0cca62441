// Puts a stdio MCP server behind a plain HTTP endpoint, so the official conformance suite (which speaks to a URL
// only) can run its scenarios against `engine mcp`. It forwards each POSTed JSON-RPC message as one line, untouched,
// and answers with the line the server answers with the same id: what the suite judges is the server's messages.
// It adds no transport of its own beyond that (no sessions, no streams, no header checks: stdio has none).
//   node stdio_bridge.mjs PORT COMMAND ARGS...
import http from 'node:http';
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const [port, command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map();  // the id (as JSON) of each forwarded request, and who waits for its answer
readline.createInterface({ input: server.stdout }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const key = JSON.stringify(message.id ?? null);
  const answer = waiting.get(key);
  if (!answer) return;  // a notification or a request of the server's: nothing over plain HTTP carries it
  waiting.delete(key);
  answer(line);
});
server.on('exit', (code) => {
  console.error(`stdio_bridge: the server exited (${code})`);
  process.exit(1);
});

http.createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  let body = '';
  request.on('data', (piece) => { body += piece; });
  request.on('end', () => {
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      message = null;
    }
    // A line is one message: a body that is not JSON is still forwarded as one, and the server answers it.
    const line = message === null ? body.replace(/\n/g, ' ') : JSON.stringify(message);
    if (message !== null && typeof message === 'object' && !Array.isArray(message) && !('id' in message)) {
      server.stdin.write(line + '\n');
      response.writeHead(202).end();
      return;
    }
    const key = JSON.stringify(message?.id ?? null);
    waiting.set(key, (answer) => {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
    });
    server.stdin.write(line + '\n');
  });
}).listen(Number(port), '127.0.0.1');
