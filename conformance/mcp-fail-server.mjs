#!/usr/bin/env node
// mcp-fail-server.mjs STATEFILE   (issue #41: an MCP tool that fails and is retried)
//
// A stdio MCP server (the MCP SDK's own server) with one tool, `ferry_flaky`: its first call answers
// a tool error (isError: true, text `ferry-mcp-fail ...`), every later call succeeds (`ferry-mcp-ok ...`).
// The call count lives in STATEFILE, because each client may start the server anew for every turn.
import fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const state = process.argv[2] || `${process.env.TMPDIR || '/tmp'}/ferry-mcp-fail.state`;
const server = new Server({ name: 'ferry41', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: 'ferry_flaky',
    description: 'Ferry conformance probe: fails on the first call, succeeds when retried.',
    inputSchema: { type: 'object', properties: { token: { type: 'string', description: 'any word; echoed back' } }, required: ['token'] },
  }],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const token = String(req.params.arguments?.token ?? '');
  let n = 0;
  try { n = Number(fs.readFileSync(state, 'utf8')) || 0; } catch {}
  fs.writeFileSync(state, String(n + 1));
  if (n === 0) return { isError: true, content: [{ type: 'text', text: `ferry-mcp-fail: transient failure for ${token}, retry` }] };
  return { content: [{ type: 'text', text: `ferry-mcp-ok: ${token} done on call ${n + 1}` }] };
});
await server.connect(new StdioServerTransport());
