import t from 'tap'
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { grok } from '../../../lib/harness/grok/index.js'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { createContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import { FIXTURE, kit, tempDir } from '../../kit.js'

const GROK_FIXTURES = FIXTURE.grok.root
const gk = kit('grok')

const V1 = join(GROK_FIXTURES, 'v1')
const V02 = join(GROK_FIXTURES, 'v02')
const EDGE = join(GROK_FIXTURES, 'edge')
const V1_ID = '01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'
const V02_ID = '7c1f2a9e-4b3d-4e8a-9f10-2b3c4d5e6f70'
const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')
const edgeDir = (cwdName: string, n: number) => join(EDGE, 'sessions', cwdName, `0a000000-0000-4000-8000-00000000000${n}`)

t.test('discovery: sessions/<group>/<id>, metadata from summary.json, stray files skipped', async (t) => {
  const ctx = gk.ctx(V1)
  const found = []
  for await (const s of grok.discover!(ctx)) found.push(s)
  t.equal(found.length, 1, 'prompt_history.jsonl and session_search.sqlite are not sessions')
  const s = found[0]!
  t.match(s, { harness: 'grok', id: V1_ID, sid: `grok:${V1_ID}`, cwd: '/home/dev/demo-app', title: 'Diagnose failing npm test script', model: 'grok-build', git_branch: 'main', created_at: '2026-11-20T09:29:58.412Z', updated_at: '2026-11-20T09:30:10.004Z' })
  t.same(await grok.resolve!(ctx, V1_ID.slice(0, 8)), s, 'unique prefix')
  t.same(await grok.resolve!(ctx, join(s.path, 'chat_history.jsonl')), s, 'a file of the session')
  t.equal(await grok.resolve!(ctx, 'ffffffff'), null)

  const edge = gk.ctx(EDGE)
  const all = []
  for await (const e of grok.discover!(edge)) all.push(e)
  t.equal(all.length, 5)
  const hashed = all.find((e) => e.path.includes('leaf-dir-'))!
  t.match(hashed.cwd, /^\/srv\/very-long-directory-name-.*Leaf Dir!$/, 'hashed group name resolved through .cwd')
})

t.test('discovery without summary.json: cwd from the group name, times from updates.jsonl', async (t) => {
  const root = tempDir(t)
  cpSync(EDGE, root, { recursive: true })
  const dir = join(root, 'sessions', '%2Fsrv%2Fempty-chat', '0a000000-0000-4000-8000-000000000003')
  rmSync(join(dir, 'summary.json'))
  const info = await grok.resolve!(gk.ctx(root), dir)
  t.match(info, { cwd: '/srv/empty-chat', created_at: '2026-11-01T08:00:00.000Z' })
  t.notOk(info!.title)
})

t.test('1.0.x session: conversation from chat_history, backfilled from updates', async (t) => {
  const ctx = gk.ctx(V1)
  const recs = await gk.read(ctx, V1_ID)
  t.equal(recs[0]!.kind, 'session')
  t.equal(recs.at(-1)!.kind, 'end')
  t.match(recs[0], { native_id: V1_ID, cwd: '/home/dev/demo-app', model: 'grok-build', title_source: 'ai', git: { branch: 'main', remote: 'git@git.example.invalid:dev/demo-app.git' } })
  t.match(recs[1], { kind: 'native', native_type: 'grok/system', id: `grok:${V1_ID}:chat_history:l0` })
  const m = msgs(recs)
  t.match(m[0], { context: true, context_kind: 'environment', role: 'user' }, '<user_info> is context, not a prompt')
  t.match(m[1], { id: `grok:${V1_ID}:chat_history:l2`, role: 'user', ts: '2026-11-20T09:30:00.000Z' })
  t.same(m[1]!.blocks[0], { type: 'text', text: 'Why does `npm test` fail here? The screenshot shows the error I get.' }, 'envelopes stripped')
  t.match(m[1]!.blocks[1], { type: 'image', mime: 'image/png', data: /^iVBOR/ })
  t.match(m[2]!.blocks[0], { type: 'thinking', encrypted: 'ENC-SYNTHETIC-9f2c0a1b7e3d4c55', provider: 'xai' })
  t.match(m[3], { role: 'assistant', ts: '2026-11-20T09:30:04.200Z', model: 'grok-build' })
  t.match(m[3]!.blocks[1], { type: 'tool_use', id: 'call_r1a7e0c3', name: 'read_file', input: { target_file: '/home/dev/demo-app/package.json' } })
  t.match(m[3]!.x, { 'grok.tool_kinds': { call_r1a7e0c3: 'read' } }, 'ACP kind for the tool normaliser')
  t.match(m[4]!.blocks[0], { type: 'tool_result', tool_use_id: 'call_r1a7e0c3', is_error: false })
  t.match(m[5], { ts: '2026-11-20T09:30:06.100Z', blocks: [{ type: 'tool_result', tool_use_id: 'call_b2b9f4d1', is_error: true }] }, 'failed tool')
  t.match(m[6], { stop_reason: 'end_turn', native_stop_reason: 'end_turn', ts: '2026-11-20T09:30:09.800Z' })
  t.equal(ctx.diagnostics.items.length, 0)
})

t.test('0.2.x session: Cursor tool names, image only in updates.jsonl, raw unparseable args', async (t) => {
  const recs = await gk.read(gk.ctx(V02), V02_ID)
  const m = msgs(recs)
  t.match(recs[0], { model: 'grok-composer-2.5-fast', x: { 'grok.agent_name': 'cursor' } })
  const prompt = m[1]!
  t.same(prompt.blocks[0], { type: 'text', text: 'why does npm test fail? see screenshot' }, 'vision description envelope stripped')
  t.match(prompt.blocks[1], { type: 'image', mime: 'image/png', data: /^iVBOR/ }, 'image bytes from the display log')
  const calls = m[3]!.blocks.filter((b) => b.type === 'tool_use')
  t.match(calls, [
    { name: 'Read', input: { path: '/home/dev/demo-app/package.json' } },
    { name: 'Shell', input: { command: 'npm test', block_until_ms: 120000 } },
    { name: 'StrReplace', input: '{"path": "/home/dev/demo-app/x.js", "old_string": "a", "new_string": "b"' },
  ])
  t.match(m.slice(4, 7).map((x) => (x.blocks[0] as any).is_error), [false, true, true])
  t.match(m[7], { ts: '2026-07-02T10:00:09.000Z', stop_reason: 'end_turn' }, 'envelope epoch seconds when _meta has no time')
})

t.test('missing updates.jsonl: reads fine, no invented timestamps', async (t) => {
  const recs = await gk.read(gk.ctx(EDGE), edgeDir('%2Fsrv%2Fno-updates', 1))
  const m = msgs(recs)
  t.equal(m.length, 4)
  t.ok(m.every((x) => x.ts === null))
  t.match(recs[0], { created_at: '2026-11-01T08:00:00.000Z', x: { 'grok.updates': 'absent' } }, 'the session keeps its own time')
})

t.test('missing or empty chat_history.jsonl: rebuilt from updates.jsonl', async (t) => {
  for (const [name, n, state] of [['%2Fsrv%2Fno-chat', 2, 'absent'], ['%2Fsrv%2Fempty-chat', 3, 'empty']] as const) {
    const recs = await gk.read(gk.ctx(EDGE), edgeDir(name, n))
    t.match(recs[0], { x: { 'grok.chat_history': state } })
    const m = msgs(recs)
    t.match(m.map((x) => x.role), ['user', 'assistant', 'user', 'assistant'])
    t.match(m[1]!.blocks[0], { type: 'tool_use', name: 'run_terminal_cmd', input: { command: 'echo hi' } })
    t.match(m[3], { stop_reason: 'aborted', native_stop_reason: 'cancelled', ts: '2026-11-01T08:00:00.300Z' })
    t.match(m[0]!.id, /:updates:l0#m$/)
  }
})

t.test('hostile input: promptIndex 1e12 / -5 ignored, torn line reported, session id from the directory', async (t) => {
  const ctx = gk.ctx(EDGE)
  const dir = edgeDir('%2Fsrv%2Fhostile', 4)
  const recs = await gk.read(ctx, dir)
  t.equal(recs[0]!.kind === 'session' && recs[0]!.native_id, '0a000000-0000-4000-8000-000000000004', 'summary info.id "../../x" not used')
  const m = msgs(recs)
  t.match(m[0], { ts: '2026-11-01T08:00:00.000Z' }, 'the prompt still gets its time (chunks grouped as one run)')
  t.match(m[3], { stop_reason: 'aborted' })
  const codes = ctx.diagnostics.items.map((d) => `${d.source}:${d.code}@${d.position?.line ?? ''}`)
  // The cut-off line still ends in a newline, so it is a bad line, not a torn one.
  t.ok(codes.includes('grok:bad-line@5'), `torn chat line reported with its 1-based line (${codes})`)
  t.ok(codes.includes('grok:id-mismatch@'))
})

t.test('a huge hostile promptIndex never sizes memory, and a missing file mid-read is not a crash', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'sessions', '%2Fw', '0b000000-0000-4000-8000-000000000000')
  cpSync(edgeDir('%2Fsrv%2Fhostile', 4), dir, { recursive: true })
  const lines = []
  for (let i = 0; i < 2000; i++) {
    const pi = i % 2 ? 2 ** 53 - 1 : -(2 ** 40)
    lines.push(JSON.stringify({ timestamp: 1793520000 + i, method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'p' }, _meta: { promptIndex: pi } } } }))
    lines.push(JSON.stringify({ timestamp: 1793520000 + i, method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } } }))
  }
  writeFileSync(join(dir, 'updates.jsonl'), lines.join('\n') + '\n')
  const recs = await gk.read(gk.ctx(root), dir)
  t.equal(msgs(recs)[0]!.ts, new Date(1793520000 * 1000).toISOString())
})

/** A copy of the v1 fixture session under a temp root, to damage. */
function v1Copy(t: Parameters<typeof tempDir>[0]): { root: string; dir: string } {
  const root = tempDir(t)
  const rel = join('sessions', '%2Fhome%2Fdev%2Fdemo-app', V1_ID)
  mkdirSync(join(root, rel), { recursive: true })
  cpSync(join(V1, rel), join(root, rel), { recursive: true })
  return { root, dir: join(root, rel) }
}

const located = (ctx: { diagnostics: Diagnostics }) => ctx.diagnostics.items.map((d) => `${d.source}:${d.code}@${d.position?.file?.split('/').at(-1) ?? ''}:${d.position?.line ?? ''}`)

t.test('a last line cut short (no newline, does not parse) is torn-line, located', async (t) => {
  const { root, dir } = v1Copy(t)
  const chat = join(dir, 'chat_history.jsonl')
  const n = readFileSync(chat, 'utf8').split('\n').length
  appendFileSync(chat, '{"type":"assistant","content":"cut sh')
  const ctx = gk.ctx(root)
  const recs = await gk.read(ctx, dir)
  t.same(located(ctx), [`grok:torn-line@chat_history.jsonl:${n}`])
  t.equal(msgs(recs).length, msgs(await gk.read(gk.ctx(V1), V1_ID)).length, 'every whole line still read')
})

t.test('a summary.json that is not JSON is bad-meta from grok, and the session is still read', async (t) => {
  const { root, dir } = v1Copy(t)
  writeFileSync(join(dir, 'summary.json'), '{"info": {"id": ')
  const ctx = gk.ctx(root)
  const recs = await gk.read(ctx, dir)
  t.ok(located(ctx).includes('grok:bad-meta@summary.json:'), String(located(ctx)))
  t.ok(msgs(recs).length > 4)
})

t.test('--max-line-bytes is honoured by every Grok read path (chat_history, updates index, rebuild, native lines)', async (t) => {
  const { root, dir } = v1Copy(t)
  const big = 'x'.repeat(5000)
  // chat_history: a 5 KB user prompt after the others.
  appendFileSync(join(dir, 'chat_history.jsonl'), JSON.stringify({ type: 'user', content: [{ type: 'text', text: big }] }) + '\n')
  const chatLines = readFileSync(join(dir, 'chat_history.jsonl'), 'utf8').trimEnd().split('\n').length
  appendFileSync(join(dir, 'updates.jsonl'), JSON.stringify({ timestamp: 1, method: 'session/update', params: { sessionId: V1_ID, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: big } } } }) + '\n')
  const updLines = readFileSync(join(dir, 'updates.jsonl'), 'utf8').trimEnd().split('\n').length
  // Every line of the fixture is shorter than 1000 bytes.
  const ctx = gk.ctx(root, { maxLineBytes: 1000 })
  const recs = await gk.read(ctx, dir, { native: true })
  t.same(located(ctx).sort(), [`grok:line-too-long@chat_history.jsonl:${chatLines}`, `grok:line-too-long@updates.jsonl:${updLines}`].sort(), 'each over-long line reported once, with file:line')
  t.notOk(JSON.stringify(recs).includes(big), 'no over-long line is carried, modelled or native')
  t.equal(msgs(recs).length, msgs(await gk.read(gk.ctx(V1), V1_ID)).length, 'the other lines are read')

  // A session rebuilt from updates.jsonl alone takes the cap on that path too.
  const rebuilt = tempDir(t)
  const rdir = join(rebuilt, 'sessions', '%2Fsrv%2Fno-chat', '0a000000-0000-4000-8000-000000000002')
  cpSync(edgeDir('%2Fsrv%2Fno-chat', 2), rdir, { recursive: true })
  appendFileSync(join(rdir, 'updates.jsonl'), JSON.stringify({ timestamp: 1, method: 'session/update', params: { sessionId: 'x', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: big } } } }) + '\n')
  const rctx = gk.ctx(rebuilt, { maxLineBytes: 1000 })
  const rrecs = await gk.read(rctx, rdir)
  t.equal(rctx.diagnostics.items.filter((d) => d.code === 'line-too-long').length, 1, 'reported once over three passes of updates.jsonl')
  t.notOk(JSON.stringify(rrecs).includes(big))
  t.equal(msgs(rrecs).length, 4)
})
