// An MCP server over stdio for the client's tests, well-behaved or hostile by the mode given as its argument:
//   good          a small server: tools add (with an outputSchema), fail (isError), slow (until cancelled),
//                 progress, roots (asks the client for its roots, and tries a request the client does not offer),
//                 bad_struct, crash, cancelled (how many cancellations it has seen), leak (an error quoting
//                 SECRET_KEY), grow (adds the tool extra and says the list changed); its tool list comes in two
//                 pages
//   garbage       the good server, with lines that are not JSON-RPC before each answer
//   silent        reads, never answers
//   huge          answers initialize with a line that never ends
//   many_tools    lists 100,000 tools
//   endless_pages every page of its tool list has a next one
//   flood         writes 20,000 notifications before each answer
//   old_version   answers initialize with a protocol revision the client does not speak
//   die_at_start  writes to stderr and exits before answering anything
//   leak_at_start the same, quoting SECRET_KEY on stderr as it goes
//   bad_utf8      the good server, answering every tools/call with a line that holds bytes that are not UTF-8
import fs from 'node:fs';
import readline from 'node:readline';

const mode = process.argv[2] ?? 'good';
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let cancelled = 0;
let nextId = 1000;
const waiting = new Map();  // the server's own requests to the client, by id
const slow = new Map();     // slow calls in flight, by request id

// START_LOG names a file each start appends a line to: how many times the server was started.
if (process.env.START_LOG) fs.appendFileSync(process.env.START_LOG, `${process.pid}\n`);

if (mode === 'die_at_start') {
  process.stderr.write('starting...\nfatal: no configuration found\n');
  process.exit(3);
}
if (mode === 'leak_at_start') {
  process.stderr.write(`starting...\nfatal: token is ${process.env.SECRET_KEY}\n`);
  process.exit(3);
}

const tools = [
  { name: 'add', description: 'Adds two numbers',
    inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object',
                   properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object' } },
  { name: 'slow', description: 'Answers when cancelled, never otherwise', inputSchema: { type: 'object' } },
  { name: 'progress', description: 'Reports progress three times', inputSchema: { type: 'object' } },
  { name: 'roots', description: 'Asks the client for its roots', inputSchema: { type: 'object' } },
  { name: 'bad_struct', description: 'Breaks its outputSchema',
    inputSchema: { type: 'object' }, outputSchema: { type: 'object', required: ['sum'] } },
  { name: 'crash', description: 'Dies mid-call', inputSchema: { type: 'object' } },
  { name: 'cancelled', description: 'How many cancellations came', inputSchema: { type: 'object' } },
  { name: 'leak', description: 'Quotes its key in an error', inputSchema: { type: 'object' } },
  { name: 'draft2020', description: 'A schema in a dialect the engine does not check',
    inputSchema: { type: 'object', properties: { xs: { type: 'array', prefixItems: [{ type: 'string' }] } } } },
  { name: 'bad name\nAction: x', description: 'A name no model could call', inputSchema: { type: 'object' } },
  { name: 'grow', description: 'Adds the tool extra, and says the list changed', inputSchema: { type: 'object' } },
];

const text = (t) => ({ content: [{ type: 'text', text: t }] });

function call(id, name, args, meta) {
  const answer = (result) => out({ jsonrpc: '2.0', id, result });
  switch (name) {
    case 'add': {
      const sum = args.a + args.b;
      return answer({ content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } });
    }
    case 'fail': return answer({ ...text('the disk is full'), isError: true });
    case 'slow': slow.set(id, true); return;
    case 'progress':
      for (let i = 1; i <= 3; i++)
        out({ jsonrpc: '2.0', method: 'notifications/progress',
              params: { progressToken: meta?.progressToken, progress: i, total: 3, message: `step ${i}` } });
      return answer(text('done'));
    case 'roots': {
      const asked = nextId++, unknown = nextId++;
      waiting.set(asked, (m) => waiting.set(unknown, (u) =>
        answer(text(JSON.stringify({ roots: m.result?.roots, unknown: u.error?.code })))));
      out({ jsonrpc: '2.0', id: asked, method: 'roots/list' });
      out({ jsonrpc: '2.0', id: unknown, method: 'sampling/createMessage', params: {} });
      out({ jsonrpc: '2.0', id: nextId++, method: 'ping' });
      return;
    }
    case 'bad_struct': return answer({ ...text('{}'), structuredContent: { total: 1 } });
    case 'crash':
      process.stderr.write('working on it\npanic: the index is corrupt\n');
      process.exit(7);
    case 'cancelled': return answer(text(String(cancelled)));
    case 'leak': return answer({ ...text('refused key ' + process.env.SECRET_KEY), isError: true });
    case 'grow':
      if (!tools.some((t) => t.name === 'extra'))
        tools.push({ name: 'extra', description: 'A tool that came later', inputSchema: { type: 'object' } });
      out({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return answer(text('grown'));
    case 'extra': return answer(text('extra!'));
    default: return out({ jsonrpc: '2.0', id, error: { code: -32602, message: `Tool ${name} not found` } });
  }
}

function handle(m) {
  if (m.id !== undefined && m.method === undefined) {  // an answer to the server's own request
    const done = waiting.get(m.id);
    waiting.delete(m.id);
    if (done) done(m);
    return;
  }
  if (m.method === 'notifications/cancelled') {
    cancelled++;
    slow.delete(m.params?.requestId);
    return;
  }
  if (m.id === undefined) return;
  if (mode === 'silent') return;
  if (mode === 'garbage') process.stdout.write('Server listening...\n{"not": "json-rpc"}\n[1,2\n\n');
  if (mode === 'flood')
    for (let i = 0; i < 20000; i++)
      out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'line ' + i } });
  switch (m.method) {
    case 'initialize':
      if (mode === 'huge') {
        const chunk = 'x'.repeat(1 << 20);
        const more = () => { while (process.stdout.write(chunk)) {} process.stdout.once('drain', more); };
        process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":"');
        return more();
      }
      return out({ jsonrpc: '2.0', id: m.id, result: {
        protocolVersion: mode === 'old_version' ? '2023-01-01' : m.params.protocolVersion,
        capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'fake', version: '1.0.0' } } });
    case 'tools/list': {
      if (mode === 'many_tools') {
        const many = [];
        for (let i = 0; i < 100000; i++) many.push({ name: 't' + i, inputSchema: { type: 'object' } });
        return out({ jsonrpc: '2.0', id: m.id, result: { tools: many } });
      }
      if (mode === 'endless_pages')
        return out({ jsonrpc: '2.0', id: m.id, result: { tools: [], nextCursor: 'more' } });
      const second = m.params?.cursor === 'page2';
      return out({ jsonrpc: '2.0', id: m.id, result: {
        tools: second ? tools.slice(5) : tools.slice(0, 5), ...(second ? {} : { nextCursor: 'page2' }) } });
    }
    case 'tools/call':
      if (mode === 'bad_utf8')
        return process.stdout.write(Buffer.concat([
          Buffer.from('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"'),
          Buffer.from([0xff, 0xfe]), Buffer.from('"}]}}\n')]));
      return call(m.id, m.params.name, m.params.arguments ?? {}, m.params._meta);
    case 'ping': return out({ jsonrpc: '2.0', id: m.id, result: {} });
    default: return out({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  handle(m);
});
process.stdin.on('end', () => process.exit(0));
