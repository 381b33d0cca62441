// The official MCP SDK client (@modelcontextprotocol/client, v2) against the engine as an MCP server.
//   ERA=legacy|modern node mcp_client_check.mjs stdio COMMAND ARGS...
//   ERA=legacy|modern node mcp_client_check.mjs http URL
// Lists the tools, calls the first with progress reported, calls one with arguments that do not fit, then starts a
// call of the tool named slow (when there is one) and cancels it. Prints one JSON line of what it saw.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [kind, ...rest] = process.argv.slice(2);
const mode = process.env.ERA === 'modern' ? { pin: '2026-07-28' } : 'legacy';
const client = new Client({ name: 'engine-test', version: '1' }, { versionNegotiation: { mode } });
const transport = kind === 'stdio'
  ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'ignore' })
  : new StreamableHTTPClientTransport(new URL(rest[0]));

const out = {};
try {
  await client.connect(transport);
  out.era = client.getProtocolEra ? client.getProtocolEra() : null;
  const listed = (await client.listTools()).tools;
  out.tools = listed.map((t) => ({ name: t.name, description: t.description, input: t.inputSchema,
                                   output: t.outputSchema }));
  const first = listed.find((t) => t.name === (process.env.TOOL || listed[0].name));
  const progress = [];
  const called = await client.callTool({ name: first.name, arguments: JSON.parse(process.env.ARGS || '{}') },
    { onprogress: (p) => progress.push(p) });
  out.call = { text: called.content?.[0]?.text, structured: called.structuredContent, isError: called.isError ?? false };
  out.progress = progress.map((p) => p.message);
  const bad = await client.callTool({ name: first.name, arguments: { no_such_input: 1 } });
  out.bad = { isError: bad.isError, text: bad.content?.[0]?.text };
  if (listed.some((t) => t.name === 'slow')) {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort('the test gives up'), 300);
    try {
      await client.callTool({ name: 'slow', arguments: { input: 'x' } }, { signal: controller.signal });
      out.cancel = 'answered';
    } catch (e) {
      out.cancel = { error: e.name, ms: Date.now() - started };
    }
  }
} catch (e) {
  out.crashed = String(e && e.stack || e);
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n');
