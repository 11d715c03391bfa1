import t from 'tap'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { grok } from '../../../lib/harness/grok/index.js'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { tempDir } from '../../helpers.js'
import { ctxFor, GROK_FIXTURES, readAll } from './helpers.js'

const V1 = join(GROK_FIXTURES, 'v1')
const V02 = join(GROK_FIXTURES, 'v02')
const EDGE = join(GROK_FIXTURES, 'edge')
const V1_ID = '01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'
const V02_ID = '7c1f2a9e-4b3d-4e8a-9f10-2b3c4d5e6f70'
const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')
const edgeDir = (cwdName: string, n: number) => join(EDGE, 'sessions', cwdName, `0a000000-0000-4000-8000-00000000000${n}`)

t.test('discovery: sessions/<group>/<id>, metadata from summary.json, stray files skipped', async (t) => {
  const ctx = ctxFor(V1)
  const found = []
  for await (const s of grok.discover!(ctx)) found.push(s)
  t.equal(found.length, 1, 'prompt_history.jsonl and session_search.sqlite are not sessions')
  const s = found[0]!
  t.match(s, { harness: 'grok', id: V1_ID, sid: `grok:${V1_ID}`, cwd: '/home/dev/demo-app', title: 'Diagnose failing npm test script', model: 'grok-build', git_branch: 'main', created_at: '2026-11-20T09:29:58.412Z', updated_at: '2026-11-20T09:30:10.004Z' })
  t.same(await grok.resolve!(ctx, V1_ID.slice(0, 8)), s, 'unique prefix')
  t.same(await grok.resolve!(ctx, join(s.path, 'chat_history.jsonl')), s, 'a file of the session')
  t.equal(await grok.resolve!(ctx, 'ffffffff'), null)

  const edge = ctxFor(EDGE)
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
  const info = await grok.resolve!(ctxFor(root), dir)
  t.match(info, { cwd: '/srv/empty-chat', created_at: '2026-11-01T08:00:00.000Z' })
  t.notOk(info!.title)
})

t.test('1.0.x session: conversation from chat_history, backfilled from updates', async (t) => {
  const ctx = ctxFor(V1)
  const recs = await readAll(ctx, V1_ID)
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
  const recs = await readAll(ctxFor(V02), V02_ID)
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
  const recs = await readAll(ctxFor(EDGE), edgeDir('%2Fsrv%2Fno-updates', 1))
  const m = msgs(recs)
  t.equal(m.length, 4)
  t.ok(m.every((x) => x.ts === null))
  t.match(recs[0], { created_at: '2026-11-01T08:00:00.000Z', x: { 'grok.updates': 'absent' } }, 'the session keeps its own time')
})

t.test('missing or empty chat_history.jsonl: rebuilt from updates.jsonl', async (t) => {
  for (const [name, n, state] of [['%2Fsrv%2Fno-chat', 2, 'absent'], ['%2Fsrv%2Fempty-chat', 3, 'empty']] as const) {
    const recs = await readAll(ctxFor(EDGE), edgeDir(name, n))
    t.match(recs[0], { x: { 'grok.chat_history': state } })
    const m = msgs(recs)
    t.match(m.map((x) => x.role), ['user', 'assistant', 'user', 'assistant'])
    t.match(m[1]!.blocks[0], { type: 'tool_use', name: 'run_terminal_cmd', input: { command: 'echo hi' } })
    t.match(m[3], { stop_reason: 'aborted', native_stop_reason: 'cancelled', ts: '2026-11-01T08:00:00.300Z' })
    t.match(m[0]!.id, /:updates:l0#m$/)
  }
})

t.test('hostile input: promptIndex 1e12 / -5 ignored, torn line reported, session id from the directory', async (t) => {
  const ctx = ctxFor(EDGE)
  const dir = edgeDir('%2Fsrv%2Fhostile', 4)
  const recs = await readAll(ctx, dir)
  t.equal(recs[0]!.kind === 'session' && recs[0]!.native_id, '0a000000-0000-4000-8000-000000000004', 'summary info.id "../../x" not used')
  const m = msgs(recs)
  t.match(m[0], { ts: '2026-11-01T08:00:00.000Z' }, 'the prompt still gets its time (chunks grouped as one run)')
  t.match(m[3], { stop_reason: 'aborted' })
  const codes = ctx.diagnostics.items.map((d) => `${d.code}@${d.position?.line ?? ''}`)
  t.ok(codes.includes('EBADLINE@5'), `torn chat line reported with its 1-based line (${codes})`)
  t.ok(codes.includes('EIDMISMATCH@'))
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
  const recs = await readAll(ctxFor(root), dir)
  t.equal(msgs(recs)[0]!.ts, new Date(1793520000 * 1000).toISOString())
})
