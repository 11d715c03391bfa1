// `ferry mcp` through the MCP SDK's own client over stdio, spawning the real CLI against a real
// archive (`ferry archive` of the sample stores and two sessions written into Claude Code's store).
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ferry, FERRY, fileTimeout, jsonl, ROOT, type T } from '../kit.js'
import { HUGE_MESSAGES, HUGE_TITLE, MARKER, mcpHome, SECRET_TITLE } from './home.js'

fileTimeout(t, 240_000)

async function connect(t: T, args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [FERRY, ...args, 'mcp'], cwd: ROOT, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' }, stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString()))
  const client = new Client({ name: 'ferry-test', version: '1' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, stderr: () => err }
}

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any }
const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<Result>
const text = (r: Result) => r.content.map((p) => p.text ?? '').join('')

// One HOME for both tests: building it (two writes and an archive run) is most of the file's cost.
const { home, token } = await mcpHome(t)

t.test('the tools, their schemas, search, redacted read, errors, paging', async (t) => {
  const { client, stderr } = await connect(t, ['--home', home])

  const { tools } = await client.listTools()
  t.same(tools.map((x) => x.name).sort(), ['list_sessions', 'read_session', 'search_sessions'], 'three tools; continue_session only with --allow-continue')
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: input schema`)
    t.equal(tool.outputSchema?.type, 'object', `${tool.name}: output schema`)
  }
  t.same(tools.find((x) => x.name === 'search_sessions')!.inputSchema.required, ['query'])

  const listed = await call(client, 'list_sessions', { limit: 50 })
  t.notOk(listed.isError, `listed: ${listed.isError ? text(listed) : 'no tool error'}`)
  const rows = listed.structuredContent.sessions as Array<{ ref: string; title: string | null; updated_at: string | null; archived: boolean }>
  const secret = rows.find((r) => r.title === SECRET_TITLE)
  const huge = rows.find((r) => r.title === HUGE_TITLE)
  t.ok(secret && huge, 'both written sessions listed')
  t.ok(rows.every((r) => r.archived), 'every sample session is in the archive')
  const times = rows.map((r) => r.updated_at ?? '')
  t.same(times, [...times].sort().reverse(), 'newest first')
  t.ok(rows.length >= 8, `${rows.length} sessions`)
  const since = await call(client, 'list_sessions', { since: '2026-11-29T00:00:00Z', until: '2026-11-30T23:59:59Z' })
  t.same(since.structuredContent.sessions.map((r: { title: string }) => r.title).sort(), [HUGE_TITLE, SECRET_TITLE], 'since/until')

  // A hyphenated word, searched as written.
  const found = await call(client, 'search_sessions', { query: MARKER })
  t.notOk(found.isError, `found: ${found.isError ? text(found) : 'no tool error'}`)
  const hits = found.structuredContent.hits as Array<{ ref: string; session: string; message: number; snippet: string; record_id: string }>
  t.equal(hits.length, 1, `one hit for ${MARKER}`)
  t.equal(hits[0]!.session, secret!.ref)
  t.equal(hits[0]!.ref, `${secret!.ref}#1`, 'the REF#N that opens it')
  t.match(hits[0]!.snippet, /\*\*FERRY\*\*-\*\*MCP\*\*-\*\*MARKER\*\*|\*\*FERRY-MCP-MARKER\*\*/, 'the match in bold')
  t.notOk(hits[0]!.snippet.includes(token) || text(found).includes(token), 'the snippet is redacted')
  for (const word of ['probe.txt', 'src/a.ts', '--force']) {
    const r = await call(client, 'search_sessions', { query: word })
    t.ok(r.structuredContent?.hits.some((h: { session: string }) => h.session === secret!.ref), `"${word}" found`)
  }

  // The conversation, with the planted credential redacted.
  const read = await call(client, 'read_session', { ref: hits[0]!.ref })
  t.notOk(read.isError, `read: ${read.isError ? text(read) : 'no tool error'}`)
  t.equal(read.structuredContent.redacted, true)
  t.equal(read.structuredContent.next_offset, null, 'a short session is one page')
  t.match(read.structuredContent.text, MARKER)
  t.match(read.structuredContent.text, /--force/)
  t.notOk(read.structuredContent.text.includes(token) || text(read).includes(token), 'the credential is not in the page')
  t.match(read.structuredContent.text, /REDACTED/i, 'a placeholder stands in its place')

  // A malformed FTS5 query is a tool error with ferry's code; the server goes on.
  const bad = await call(client, 'search_sessions', { query: 'foo AND', fts: true })
  t.equal(bad.isError, true, 'a tool error')
  t.match(text(bad), /^ferry:usage: search: not a valid FTS5 query/)
  t.notMatch(text(bad), /fts5: syntax error/, 'no SQLite text')
  const unknown = await call(client, 'read_session', { ref: 'claude-code:no-such-session' })
  t.equal(unknown.isError, true)
  t.match(text(unknown), /^ferry:no-session:/)
  const wrongArg = await call(client, 'search_sessions', { query: 'x', limit: 'ten' })
  t.match(text(wrongArg), /^ferry:usage: search_sessions: "limit" must be an integer/)
  const again = await call(client, 'search_sessions', { query: 'hugeword7' })
  t.notOk(again.isError, 'the next call still works')
  t.equal(again.structuredContent.hits[0]?.session, huge!.ref)
  t.equal(again.structuredContent.hits[0]?.message, 7, 'hugeword7 is message #7')

  // A huge session comes in pages no longer than max_chars, each starting where the last ended.
  const max = 20_000
  const pages: Array<{ text: string; offset: number; next_offset: number | null }> = []
  const failed: string[] = []
  let offset: number | null = 0
  while (offset !== null && pages.length < 100) {
    const p = await call(client, 'read_session', { ref: huge!.ref, tools: 'none', max_chars: max, offset })
    if (p.isError) failed.push(text(p))
    pages.push(p.structuredContent)
    offset = p.structuredContent?.next_offset ?? null
  }
  t.same(failed, [], 'every page read')
  t.equal(offset, null, `read to the end in ${pages.length} pages`)
  t.ok(pages.length > 20, `${pages.length} pages`)
  t.ok(pages.every((p) => p.text.length <= max), 'no page over max_chars')
  t.ok(pages.slice(0, -1).every((p, i) => p.next_offset === pages[i + 1]!.offset), 'pages are contiguous')
  const whole = pages.map((p) => p.text).join('')
  for (const n of [1, 200, HUGE_MESSAGES]) t.ok(new RegExp(`\\bhugeword${n}\\b`).test(whole), `message ${n} is on a page`)
  t.equal(whole.match(/### \d+ · /g)?.length, HUGE_MESSAGES, 'every message once')
  const ranged = await call(client, 'read_session', { ref: `${huge!.ref}#399-400`, tools: 'none' })
  t.match(ranged.structuredContent.text, /hugeword399[\s\S]*hugeword400/)
  t.notMatch(ranged.structuredContent.text, /hugeword398\b/, 'only the range')
  const past = await call(client, 'read_session', { ref: huge!.ref, offset: 10_000_000 })
  t.match(text(past), /^ferry:usage: offset 10000000 is past the end/)

  const res = await client.listResources()
  t.ok(res.resources.some((r) => r.name === secret!.ref), 'recent sessions as resources')
  const doc = await client.readResource({ uri: res.resources.find((r) => r.name === secret!.ref)!.uri })
  t.match((doc.contents[0] as { text: string }).text, MARKER)
  t.notOk((doc.contents[0] as { text: string }).text.includes(token), 'resources are redacted too')
  t.notMatch(stderr(), /at .*\.js:\d+/, 'no stack trace on stderr')
})

t.test('continue_session only behind --allow-continue; --no-redact', async (t) => {
  const open = await connect(t, ['--home', home])
  const refused = await call(open.client, 'continue_session', { ref: 'x', to: 'codex' })
  t.equal(refused.isError, true)
  t.match(text(refused), /^ferry:usage: unknown tool "continue_session"/)
  const transport = new StdioClientTransport({ command: process.execPath, args: [FERRY, '--home', home, 'mcp', '--allow-continue', '--no-redact'], cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' })
  const c = new Client({ name: 'ferry-test', version: '1' })
  await c.connect(transport)
  t.teardown(() => c.close())
  t.ok((await c.listTools()).tools.some((x) => x.name === 'continue_session'), 'offered with --allow-continue')
  const hit = (await call(c, 'search_sessions', { query: MARKER })).structuredContent.hits[0]
  const plain = await call(c, 'read_session', { ref: hit.ref })
  t.ok(plain.structuredContent.text.includes(token) && plain.structuredContent.redacted === false, '--no-redact: as written')
  const cont = await call(c, 'continue_session', { ref: hit.session, to: 'codex', cwd: home })
  t.notOk(cont.isError, `cont: ${cont.isError ? text(cont) : 'no tool error'}`)
  t.equal(cont.structuredContent.harness, 'codex')
  t.match(cont.structuredContent.command, /codex resume/)
})

t.test('raw JSON-RPC on stdin: progress notifications, a line that is not JSON passed over, calls made before stdin closes answered', async (t) => {
  const rpc = (id: number, method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id, method, params })
  const input = [
    rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    'not json',
    rpc(2, 'tools/call', { name: 'search_sessions', arguments: { query: MARKER }, _meta: { progressToken: 'p2' } }),
    rpc(3, 'tools/call', { name: 'no_such_tool', arguments: {} }),
  ].join('\n') + '\n'
  const r = await ferry(['--home', home, 'mcp'], { input })
  t.equal(r.code, 0, r.stderr)
  const messages = jsonl(r.stdout)
  const answers = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]))
  // (Read here from the raw stream: the SDK's client drops a notification that arrives in the same chunk as its response.)
  const progress = messages.filter((m) => m.method === 'notifications/progress')
  t.same(progress.map((m) => [m.params.progressToken, m.params.progress]), [['p2', 0], ['p2', 1]], 'progress at the start and the end of the search')
  t.ok(messages.indexOf(progress[1]) < messages.indexOf(answers.get(2)), 'before its answer')
  t.same([...answers.keys()].sort(), [1, 2, 3], 'every request answered, also after stdin closed')
  t.equal(answers.get(2).result.structuredContent.hits.length, 1, 'the search')
  t.match(answers.get(3).result.content[0].text, /^ferry:usage: unknown tool "no_such_tool"/)
  t.notMatch(r.stderr, /at .*\.js:\d+/, 'no stack trace')
})
