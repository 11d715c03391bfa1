// OpenCode 2.0: sessions in `session_v2`/`session_message` beside the stale v1 tables.
// Databases are built by fixtures/opencode/opencode2-db.mjs from the upstream schema.
import t from 'tap'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { BoundaryRec, FerryRecord, MessageRec } from '../../../lib/model.js'
import { ID_SHAPE } from '../../../lib/harness/family/opencode-ids.js'
import { ferry, kit, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builders
import { createV2Db, insertV2Session, markMigrated, v2Session } from '../../../fixtures/opencode/opencode2-db.mjs'
// @ts-ignore
import { insertDocument, idMaker } from '../../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { demoSession } from '../../../fixtures/opencode/scenarios.mjs'

const oc = kit('opencode')

function dataDir(home: string): string {
  const d = join(home, '.local', 'share', 'opencode')
  mkdirSync(d, { recursive: true })
  return d
}

const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')

t.test('a database with only the v2 tables: listed and read from session_v2/session_message', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const db = createV2Db(join(dataDir(home), 'opencode.db'))
  const s = v2Session()
  insertV2Session(db, s)
  db.close()
  const ctx = oc.ctx(home)
  const list = await oc.discover(ctx)
  t.same(list.map((i) => [i.id, i.locator.table, i.title, i.message_count, i.agent_version]), [[s.info.id, 'session_v2', 'Why npm test fails (v2)', 4, '2.0.4']])
  const recs = await oc.read(ctx, s.info.id)
  const m = msgs(recs)
  t.same(m.filter((r) => r.role === 'user' && !r.context && r.blocks[0]!.type === 'text').map((r) => r.blocks[0]), [{ type: 'text', text: 'Why does `npm test` fail?' }, { type: 'text', text: 'Thanks, installing it now.' }])
  const calls = m.flatMap((r) => r.blocks.filter((b) => b.type === 'tool_use'))
  t.same(calls.map((b: any) => [b.id, b.name, b.input]), [['call_v2_bash', 'bash', { command: 'npm test' }], ['call_v2_read', 'read', { filePath: '/home/dev/demo-app/missing.json' }]], 'v2 tool names and arguments read as v1 (the vocabulary)')
  const results = m.flatMap((r) => r.blocks.filter((b) => b.type === 'tool_result'))
  // The shell call OpenCode kept `completed` exited 127: a failed call (issue 41), its status kept for the way back.
  t.same(results.map((b: any) => [b.tool_use_id, b.content, b.is_error, b.exit_code]), [['call_v2_bash', 'sh: 1: vitest: not found', true, 127], ['call_v2_read', 'ENOENT: no such file', true, undefined]])
  const last = m.filter((r) => r.role === 'assistant')[1]!
  t.same([last.stop_reason, last.usage?.input_tokens, last.usage?.cost_usd], ['end_turn', 1200, 0.002], 'usage and finish on the step\'s last assistant record')
  const b = recs.find((r): r is BoundaryRec => r.kind === 'boundary')!
  t.same([b.type, b.trigger, b.summary], ['compaction', 'auto', 'The user asked why npm test fails; vitest is missing.'])
  t.same(recs.filter((r) => r.kind === 'native').map((r: any) => r.native_type), ['opencode/agent-switched', 'opencode/model-switched', 'opencode/location-switched'], 'types with no place in the model pass as native, none dropped')
  t.ok(m.some((r) => r.role === 'user' && r.context_kind === 'command' && (r.blocks[0] as any).text === '!ls\npackage.json\nsrc\n'), 'a shell message keeps command and output')
  t.same((recs.at(-1) as any).counts, { messages: 9, tool_uses: 2, native: 3, skipped_rows: 0 })
})

t.test('a migrated database: v2 rows preferred, v1 rows not duplicated, later v1 sessions still listed', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const db = createV2Db(join(dataDir(home), 'opencode.db'), { v1: true })
  const ids = idMaker()
  const demo = demoSession(ids)
  const later = demoSession(ids, 1797000000000)
  later.info.id = ids.ses(1797000000000, 'laterV1Sessn01')
  for (const m of later.messages) {
    m.info.sessionID = later.info.id
    for (const p of m.parts) p.sessionID = later.info.id
  }
  insertDocument(db, demo)
  insertDocument(db, later)
  // OpenCode 2's migration copied the demo session; its v1 rows stay, stale.
  insertV2Session(db, { info: { id: demo.info.id, directory: demo.info.directory, title: 'Why npm test fails', time_created: demo.info.time.created, time_updated: demo.info.time.updated, model: { id: 'claude-sonnet-4-5', providerID: 'anthropic' } }, messages: [{ id: 'msg_223fb4764001MigratedUser01', type: 'user', text: 'Why does `npm test` fail?', files: [], agents: [], time: { created: demo.info.time.created + 100 } }] })
  markMigrated(db)
  db.close()
  const ctx = oc.ctx(home)
  const list = await oc.discover(ctx)
  t.same(list.map((i) => [i.id, i.locator.table]).sort(), [[demo.info.id, 'session_v2'], [later.info.id, 'session']].sort(), 'each session once')
  t.equal((await oc.resolve(ctx, demo.info.id)).locator.table, 'session_v2', 'resolve prefers v2')
  t.equal(msgs(await oc.read(ctx, demo.info.id)).length, 1, 'the migrated session is read from its v2 rows')
  t.ok(msgs(await oc.read(ctx, later.info.id)).length > 3, 'a session only in v1 is read from v1')
})

t.test('channel databases with v2 tables are found beside opencode.db', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const d = dataDir(home)
  createV2Db(join(d, 'opencode.db')).close()
  const beta = createV2Db(join(d, 'opencode-beta.db'))
  const s = v2Session(1796100000000, { id: 'ses_8a0f3c2b1ffeV2betaChannel1' })
  insertV2Session(beta, s)
  beta.close()
  const list = await oc.discover(oc.ctx(home))
  t.same(list.map((i) => [i.id, i.path.endsWith('opencode-beta.db')]), [[s.info.id, true]])
})

t.test('writing into a v2 database: rows in session_v2/session_message, v1 tables untouched', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const path = join(dataDir(home), 'opencode.db')
  const db = createV2Db(path, { v1: true })
  const demo = demoSession()
  insertDocument(db, demo)
  markMigrated(db)
  const v1Before = (db.prepare('SELECT (SELECT COUNT(*) FROM session) + (SELECT COUNT(*) FROM message) + (SELECT COUNT(*) FROM part) AS n').get() as { n: number }).n
  db.close()
  const ctx = oc.ctx(home)
  const recs = await oc.read(ctx, demo.info.id)
  // A copy from another harness: what a conversion brings.
  const foreign = recs.map((r: any) => JSON.parse(JSON.stringify({ ...r, native: undefined, sid: 'claude-code:abc', id: String(r.id).replace(`opencode:${demo.info.id}`, 'claude-code:abc'), ...(r.kind === 'session' ? { source: { harness: 'claude-code', locator: {} }, native_id: 'abc' } : {}) })))
  const [w] = await oc.write(ctx, foreign, { import: false })
  t.equal(w!.path, path)
  t.match(w!.id, ID_SHAPE)
  const check = new Database(path, { readonly: true })
  t.equal((check.prepare('SELECT (SELECT COUNT(*) FROM session) + (SELECT COUNT(*) FROM message) + (SELECT COUNT(*) FROM part) AS n').get() as { n: number }).n, v1Before, 'no v1 row written')
  const row = check.prepare('SELECT project_id, directory, title, version FROM session_v2 WHERE id = ?').get(w!.id) as any
  t.same(row, { project_id: 'global', directory: '/home/dev/demo-app', title: 'Why npm test fails', version: '2.0.4' })
  const rows = check.prepare('SELECT id, type, seq, data FROM session_message WHERE session_id = ? ORDER BY seq').all(w!.id) as any[]
  check.close()
  t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1), 'seq counts from 1 without gaps')
  t.ok(rows.every((r) => /^msg_/.test(r.id)), 'message ids in msg_ shape')
  const tools = rows.filter((r) => r.type === 'assistant').flatMap((r) => JSON.parse(r.data).content.filter((c: any) => c.type === 'tool'))
  t.same(tools.map((c: any) => [c.id, c.name, c.state.status, c.state.content[0].text.length > 0]), [['toolu_demo_read', 'read', 'completed', true], ['toolu_demo_bash', 'shell', 'error', true]], 'tool items carry id and state, v2 names; the command that exited 1 is a failed call from another agent (issue 41)')
  t.equal(JSON.parse(rows.find((r) => r.type === 'assistant' && JSON.parse(r.data).content.some((c: any) => c.name === 'read')).data).content.find((c: any) => c.name === 'read').state.input.path, '/home/dev/demo-app/package.json', 'filePath is path in v2')
  // ferry reads back what it wrote.
  const back = msgs(await oc.read(ctx, w!.id))
  t.same(back.filter((r) => r.role === 'user' && !r.context && r.blocks[0]!.type === 'text').map((r) => (r.blocks[0] as any).text), ['Why does `npm test` fail?'])
  t.ok(back.some((r) => r.blocks.some((b: any) => b.type === 'text' && /vitest is not installed/.test(b.text))), 'the answer is there')
  const again = await oc.writeSettled(ctx, foreign, { import: false })
  t.equal(again.written.length, 0, 'an existing session is not written again without --force')
})

t.test('--opencode-schema v2 --out: a SessionTransfer document for opencode2 import', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const db = createV2Db(join(dataDir(home), 'opencode.db'))
  insertV2Session(db, v2Session())
  db.close()
  const out = join(tempDir(t, 'ferry-oc2-out-'), 'transfer.json')
  const r = await ferry(['convert', 'opencode:ses_8a0f3c2b1ffeV2demoSession01', '--to', 'opencode', '--opencode-schema', 'v2', '--out', out, ...oc.cli(home)])
  t.equal(r.code, 0, r.stderr)
  const doc = JSON.parse(readFileSync(out, 'utf8'))
  t.same(Object.keys(doc).sort(), ['info', 'messages'])
  t.same(doc.info.location, { directory: '/home/dev/demo-app' }, 'info.location, not v1\'s info.directory')
  t.same(doc.messages.map((m: any) => m.type), ['agent-switched', 'model-switched', 'system', 'user', 'assistant', 'assistant', 'synthetic', 'synthetic', 'location-switched', 'compaction', 'user', 'assistant'], 'OpenCode 2\'s own switch rows kept')
  const tools = doc.messages.flatMap((m: any) => (m.content ?? []).filter((c: any) => c.type === 'tool'))
  t.same(tools.map((c: any) => [c.id, c.name, c.state.status]), [['call_v2_bash', 'shell', 'completed'], ['call_v2_read', 'read', 'error']])
  t.same(tools[1].state.error, { type: 'tool', message: 'ENOENT: no such file' })
  t.ok(tools.every((c: any) => c.state.content.length > 0), 'content is never empty')
  t.equal(doc.messages.find((m: any) => m.type === 'compaction').status, 'completed')
})

t.test('OpenCode 2 → OpenCode 2: rows with no place in the model come back in place; --force rewrites; v2 into a 1.x store is refused', async (t) => {
  const home = tempDir(t, 'ferry-oc2-')
  const path = join(dataDir(home), 'opencode.db')
  const db = createV2Db(path)
  const s = v2Session()
  insertV2Session(db, s)
  db.close()
  const ctx = oc.ctx(home)
  const recs = await oc.read(ctx, s.info.id, { native: true })
  // A copy under another id, as a conversion from OpenCode into OpenCode makes one.
  const copy = recs.map((r: any) => (r.kind === 'session' ? { ...r, created_at: '2026-12-01T00:00:00.000Z' } : r))
  const [w] = await oc.write(ctx, copy)
  t.not(w!.id, s.info.id)
  const check = new Database(path, { readonly: true })
  const types = (check.prepare('SELECT type FROM session_message WHERE session_id = ? ORDER BY seq').all(w!.id) as any[]).map((r) => r.type)
  const loc = JSON.parse((check.prepare(`SELECT data FROM session_message WHERE session_id = ? AND type = 'location-switched'`).get(w!.id) as any).data)
  check.close()
  t.same(types.slice(0, 3), ['agent-switched', 'model-switched', 'system'], 'native rows first, in their order')
  t.ok(types.includes('location-switched'), 'location-switched kept')
  t.same(loc.location, { directory: '/home/dev/demo-app/packages/web' })
  const again = await oc.write(ctx, copy, { force: true })
  t.equal(again[0]!.id, w!.id, '--force rewrites the same session')
  const after = new Database(path, { readonly: true })
  t.equal((after.prepare('SELECT COUNT(*) AS n FROM session_message WHERE session_id = ?').get(w!.id) as any).n, types.length, 'no row twice')
  after.close()

  const v1home = tempDir(t, 'ferry-oc2-v1-')
  // @ts-ignore
  const { createDb } = await import('../../../fixtures/opencode/opencode-db.mjs')
  createDb(join(dataDir(v1home), 'opencode.db')).close()
  t.throws(() => oc.h.sink!(oc.ctx(v1home), { schema: 'v2' }), /no OpenCode 2 tables/, 'v2 into a 1.x database: a usage error naming it')
})
