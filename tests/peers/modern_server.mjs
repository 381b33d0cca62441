// A small MCP server on the official SDK v2 (@modelcontextprotocol/server), which speaks revision 2026-07-28 and,
// on the same stdio connection or URL, the 2025 era: the tests' peer for the engine's dual-era client.
//   node modern_server.mjs stdio        node modern_server.mjs http PORT     (HTTP on 127.0.0.1, path /mcp)
// Tools: add (a structured result with an outputSchema), fail (isError), slow (answers after 30 s), whoami (the
// era this instance serves), locate (its `region` mirrored into the Mcp-Param-Region header, SEP-2243: the SDK
// refuses a 2026-07-28 call over HTTP without it).
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

const factory = ({ era }) => {
  const s = new McpServer({ name: 'modern-peer', version: '1.0.0' });
  s.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }),
                          outputSchema: z.object({ sum: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
  s.registerTool('fail', { description: 'Always fails', inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: 'the disk is full' }], isError: true }));
  s.registerTool('slow', { description: 'Answers after 30 s', inputSchema: z.object({}) },
    async () => { await new Promise((r) => setTimeout(r, 30000)); return { content: [{ type: 'text', text: 'late' }] }; });
  s.registerTool('locate', { description: 'Says where a region is',
                            inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) },
    async ({ region }) => ({ content: [{ type: 'text', text: `in ${region}` }] }));
  s.registerTool('whoami', { description: 'The era this instance serves', inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: era }] }));
  return s;
};

const [mode, port] = process.argv.slice(2);
if (mode === 'http') {
  const handler = toNodeHandler(createMcpHandler(factory));
  createServer((req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') { res.statusCode = 404; return res.end(); }
    handler(req, res);
  }).listen(Number(port), '127.0.0.1', () => console.error(`listening ${port}`));
} else {
  serveStdio(factory);
}
