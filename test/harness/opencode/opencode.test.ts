import t from 'tap'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { opencode } from '../../../lib/harness/opencode/index.js'
import { databases, primaryDb } from '../../../lib/harness/opencode/paths.js'
import { sink as openCodeSink } from '../../../lib/harness/opencode/sink.js'
import { documentProblems } from '../../../lib/harness/family/opencode-document.js'
import { ID_SHAPE } from '../../../lib/harness/family/opencode-ids.js'
import type { SessionInfo, WrittenSession } from '../../../lib/harness/types.js'
import { FIXTURES, collect, kit, opencodeHome, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder, shared with the sample-store script
import { createDb, insertDocument, idMaker } from '../../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { archivedSession, demoSession } from '../../../fixtures/opencode/scenarios.mjs'

const oc = kit('opencode')

t.test('discovery: one query, archived and sub-agent sessions only with all', async (t) => {
  const { home, demo, rich, arch } = opencodeHome(t)
  const ctx = oc.ctx(home)
  const shown = await collect(opencode.discover!(ctx))
  t.same(shown.map((s) => s.id).sort(), [demo.info.id, rich.parent.info.id].sort())
  const d = shown.find((s) => s.id === demo.info.id)!
  t.equal(d.cwd, '/home/dev/demo-app')
  t.equal(d.title, 'Why npm test fails')
  t.equal(d.model, 'claude-sonnet-4-5')
  t.equal(d.agent_version, '1.18.33')
  t.equal(d.sid, `opencode:${demo.info.id}`)
  const all = await collect(opencode.discover!(ctx, { all: true }))
  t.equal(all.length, 4)
  const a = all.find((s) => s.id === arch.info.id)!
  t.equal(a.archived, true)
  t.equal(a.title, undefined, 'placeholder title is no title')
  t.equal(all.find((s) => s.id === rich.child.info.id)!.parent, `opencode:${rich.parent.info.id}`)
  t.equal((await opencode.resolve!(ctx, demo.info.id.slice(0, 12)))?.id, demo.info.id, 'unique prefix')
  t.equal(await opencode.resolve!(ctx, 'ses_nope'), null)
})

t.test('database location: OPENCODE_DB, XDG_DATA_HOME, channel dbs, absent store', async (t) => {
  const home = tempDir(t, 'ferry-oc-')
  t.same(await collect(opencode.discover!(oc.ctx(home))), [], 'absent database: no sessions, no error')
  const data = join(home, 'xdg')
  mkdirSync(join(data, 'opencode'), { recursive: true })
  const ids = idMaker()
  const a = createDb(join(data, 'opencode', 'opencode.db'))
  insertDocument(a, demoSession(ids))
  a.close()
  const b = createDb(join(data, 'opencode', 'opencode-dev.db'))
  insertDocument(b, archivedSession(ids), { archived: null })
  b.close()
  const ctx = createContext({ env: { HOME: home, XDG_DATA_HOME: data }, diagnostics: new Diagnostics({ stream: null }) })
  t.same(databases(ctx).map((p) => p.slice(data.length)), ['/opencode/opencode.db', '/opencode/opencode-dev.db'])
  t.equal((await collect(opencode.discover!(ctx))).length, 2)
  const only = createContext({ env: { HOME: home, XDG_DATA_HOME: data, OPENCODE_DB: 'opencode-dev.db' }, diagnostics: new Diagnostics({ stream: null }) })
  t.equal(primaryDb(only), join(data, 'opencode', 'opencode-dev.db'), 'relative OPENCODE_DB joins the data dir')
  t.same(databases(only), [join(data, 'opencode', 'opencode-dev.db')])
  const flag = createContext({ home, roots: { opencode: join(data, 'opencode', 'opencode-dev.db') }, diagnostics: new Diagnostics({ stream: null }) })
  t.equal((await collect(opencode.discover!(flag))).length, 1, 'root flag may name the .db file')
  t.equal(opencode.root(ctx), join(data, 'opencode'))
})

t.test('read: mapping, errors, pending tools, images, bad part, sub-agent', async (t) => {
  const { home, db, rich } = opencodeHome(t)
  const ctx = oc.ctx(home)
  const info = (await opencode.resolve!(ctx, rich.parent.info.id))!
  const recs = await oc.read(ctx, info)
  const sessions = recs.filter((r): r is SessionRec => r.kind === 'session')
  t.same(sessions.map((s) => s.native_id), [rich.parent.info.id, rich.child.info.id], 'child session follows its parent')
  t.same(sessions[1]!.parent, { sid: `opencode:${rich.parent.info.id}`, kind: 'subagent', tool_use_id: 'call_task' })
  const sid = `opencode:${rich.parent.info.id}`
  const msgs = recs.filter((r): r is MessageRec => r.kind === 'message' && r.sid === sid)
  const first = msgs[0]!
  t.equal(first.id, `${sid}:message:${rich.parent.messages[0].info.id}`)
  t.same(first.blocks.map((b) => b.type), ['text', 'image'])
  t.match(first.blocks[1], { type: 'image', mime: 'image/png', data: /^iVBOR/ })
  const ctxMsg = msgs[1]!
  t.equal(ctxMsg.context, true, 'synthetic text is injected context')
  t.equal(ctxMsg.id, `${sid}:part:${rich.parent.messages[0].parts[2].id}`)
  // Step 1: text + two parallel calls, then one user record with both results.
  const s1 = msgs[2]!
  t.same(s1.blocks.map((b) => (b.type === 'tool_use' ? `${b.name}:${b.id}` : b.type)), ['text', 'read:call_a', 'read:call_b'])
  t.equal(s1.stop_reason, 'tool_use')
  t.equal(s1.native_stop_reason, 'tool-calls')
  t.match(s1.usage, { input_tokens: 1200, output_tokens: 80, reasoning_tokens: 20, cost_usd: 0.002 })
  const r1 = msgs[3]!
  t.equal(r1.role, 'user')
  t.match(r1.blocks, [{ type: 'tool_result', tool_use_id: 'call_a', is_error: false }, { type: 'tool_result', tool_use_id: 'call_b', is_error: true, content: 'File not found: missing.ts' }])
  t.equal(r1.id, `${sid}:part:${rich.parent.messages[1].parts[2].id}#result`)
  // Last step: the broken part is skipped, the running call has no result, the abort is the stop reason.
  const last = msgs[msgs.length - 1]!
  t.same(last.blocks.map((b) => b.type), ['tool_use'], 'text part with broken JSON skipped, message kept')
  t.equal(last.stop_reason, 'aborted')
  t.notOk(msgs.some((m) => m.blocks.some((b) => b.type === 'tool_result' && b.tool_use_id === 'call_pending')), 'pending call has no result')
  t.equal(ctx.diagnostics.counts.get('opencode:bad-row'), 1, 'one code from lib/codes.ts, printed as opencode:bad-row')
  t.match(ctx.diagnostics.items[0], { code: 'bad-row', source: 'opencode', position: { file: db, row: `part:${rich.badPart}` } })
  const natives = recs.filter((r) => r.kind === 'native' && r.sid === sid)
  t.ok(natives.every((n) => n.kind === 'native' && /^opencode\/step-(start|finish)$/.test(n.native_type)))
  const end = recs.find((r) => r.kind === 'end' && r.sid === sid)
  t.match(end, { complete: true, counts: { skipped_rows: 1 } })
  t.same((await oc.read(oc.ctx(home), info)).map((r) => r.id), recs.map((r) => r.id), 'ids stable across reads')
  const withNative = await oc.read(oc.ctx(home), info, { native: true })
  t.match(withNative.find((r) => r.kind === 'native')?.native, { format: 'opencode/sqlite@1.18.33', table: 'part', raw: '{"type":"step-start"}' })
})

function fingerprint(path: string) {
  if (!existsSync(path)) return 'absent'
  return `${createHash('sha256').update(readFileSync(path)).digest('hex')}:${statSync(path).mtimeMs}`
}

t.test('a database another process is writing (pages only in -wal) reads fully and stays untouched', async (t) => {
  const dir = tempDir(t, 'ferry-oc-wal-')
  const data = join(dir, '.local/share/opencode')
  mkdirSync(data, { recursive: true })
  const dbPath = join(data, 'opencode.db')
  const writer = spawn(process.execPath, [join(FIXTURES, 'opencode/wal-writer.mjs'), dbPath], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => writer.kill())
  await new Promise<void>((res) => writer.stdout.once('data', () => res()))
  t.ok(statSync(`${dbPath}-wal`).size > 0, 'rows are in the WAL')
  const before = ['', '-wal', '-shm'].map((s) => fingerprint(dbPath + s))
  const ctx = oc.ctx(dir)
  const listed = await collect(opencode.discover!(ctx))
  t.equal(listed.length, 2)
  let records = 0
  for (const info of listed) records += (await oc.read(ctx, info)).length
  t.ok(records > 20)
  t.same(['', '-wal', '-shm'].map((s) => fingerprint(dbPath + s)), before, 'db, -wal and -shm bytes and mtimes unchanged')
  writer.stdin.write('x')
  await new Promise((res) => writer.once('exit', res))
  t.notOk(existsSync(`${dbPath}-wal`), 'writer closed cleanly')
  const closed = fingerprint(dbPath)
  t.equal((await collect(opencode.discover!(ctx))).length, 2)
  t.notOk(existsSync(`${dbPath}-wal`) || existsSync(`${dbPath}-shm`), 'reading a closed db creates no -wal/-shm')
  t.equal(fingerprint(dbPath), closed)
})

async function writeDocs(ctx: any, recs: FerryRecord[], out: string, opts: Record<string, unknown> = {}) {
  return oc.write(ctx, recs, { out, ...opts })
}

/** What must survive common → OpenCode → common: roles, blocks, stop reasons (ids and times aside). */
function conversation(recs: FerryRecord[]) {
  return recs
    .filter((r): r is MessageRec => r.kind === 'message')
    .map((m) => ({ role: m.role, context: m.context ?? false, stop: m.stop_reason, usage: m.usage, blocks: m.blocks.map((b) => (b.type === 'tool_result' ? { ...b, structured: undefined, content: String(b.content).replace(/ses_\w+/g, 'ses_X') } : b)) }))
}

t.test('export document fixpoint: common → OpenCode → common', async (t) => {
  const { home, demo, rich } = opencodeHome(t)
  const ctx = oc.ctx(home)
  const out = tempDir(t, 'ferry-oc-out-')
  const original: FerryRecord[] = []
  for (const id of [demo.info.id, rich.parent.info.id]) original.push(...(await oc.read(ctx, (await opencode.resolve!(ctx, id))!)))
  const written = await writeDocs(ctx, original, out)
  t.equal(written.length, 3, 'demo, rich parent, rich child')
  const back = join(tempDir(t, 'ferry-oc-back-'), 'opencode.db')
  const db = createDb(back)
  for (const w of written) {
    const doc = JSON.parse(readFileSync(w.path, 'utf8'))
    t.same(documentProblems(doc), [], `${w.id} importable`)
    t.match(w.id, ID_SHAPE)
    for (const m of doc.messages) {
      t.match(m.info.id, ID_SHAPE)
      for (const p of m.parts) t.match(p.id, ID_SHAPE)
    }
    insertDocument(db, doc)
  }
  db.close()
  t.equal((statSync(written[0]!.path).mode & 0o777).toString(8), '600')
  const child = JSON.parse(readFileSync(written[2]!.path, 'utf8'))
  t.equal(child.info.parentID, written[1]!.id, 'child document names its parent')
  const ctxBack = createContext({ home, env: { PATH: '/nonexistent', OPENCODE_DB: back }, diagnostics: new Diagnostics({ stream: null }) })
  const again: FerryRecord[] = []
  for (const w of written.slice(0, 2)) again.push(...(await oc.read(ctxBack, (await opencode.resolve!(ctxBack, w.id))!)))
  // The broken part is gone on both sides; the running call comes back as a pending one.
  t.same(conversation(again), conversation(original))
  const sessionsBack = again.filter((r): r is SessionRec => r.kind === 'session')
  t.equal(sessionsBack.length, 3)
  t.match(sessionsBack[2]!.parent, { kind: 'subagent', tool_use_id: 'call_task' })
})

t.test('sink: --out FILE is atomic and never overwrites; store mode explains how to import', async (t) => {
  const { home, demo } = opencodeHome(t)
  const ctx = oc.ctx(home)
  const recs = await oc.read(ctx, (await opencode.resolve!(ctx, demo.info.id))!)
  const out = join(tempDir(t, 'ferry-oc-out-'), 'demo.json')
  const [w] = await writeDocs(ctx, recs, out)
  t.equal(w!.path, out)
  const doc = JSON.parse(readFileSync(out, 'utf8'))
  t.same(doc.messages.map((m: any) => m.info.role), ['user', 'assistant', 'assistant', 'assistant'], 'one assistant message per step')
  t.same(doc.messages.map((m: any) => m.info.finish ?? null), [null, 'tool-calls', 'tool-calls', 'stop'])
  const bash = doc.messages[2].parts.find((p: any) => p.type === 'tool')
  t.match(bash, { tool: 'bash', callID: 'toolu_demo_bash', state: { status: 'completed', input: { command: 'npm test' }, output: /vitest: not found/ } })
  await t.rejects(writeDocs(ctx, recs, out), /already exists/)
  writeFileSync(out + '.keep', '')
  await writeDocs(ctx, recs, out, { force: true })
  t.same(documentProblems(JSON.parse(readFileSync(out, 'utf8'))), [])
  // Into the store without opencode on PATH: the document lands under the data dir, the db is untouched.
  const dbBefore = fingerprint(join(home, '.local/share/opencode/opencode.db'))
  const [s] = await writeDocs(ctx, recs, '')
  t.match(s!.path, /\.local\/share\/opencode\/ferry-import\/ses_[0-9a-f]{12}[0-9A-Za-z]{14}\.json$/)
  t.match(s!.note, /opencode import/)
  t.equal(fingerprint(join(home, '.local/share/opencode/opencode.db')), dbBefore)
})

t.test('sink: a Claude-Code-shaped stream becomes OpenCode steps with native tool names', async (t) => {
  const home = tempDir(t, 'ferry-oc-')
  const ctx = oc.ctx(home)
  const sid = 'claude-code:5d2f7e10-2222-4b4b-9b9b-000000000abc'
  const rec = (id: string, role: 'user' | 'assistant', ts: string, blocks: any[], extra = {}): MessageRec => ({ kind: 'message', sid, id: `${sid}:u${id}`, role, ts, blocks, ...extra })
  const stream: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'claude-code', locator: {} }, native_id: '5d2f7e10', cwd: '/home/dev/demo-app', model: 'claude-opus-4-7' },
    rec('1', 'user', '2026-11-02T09:15:00.000Z', [{ type: 'text', text: 'Why does npm test fail?' }]),
    rec('c', 'user', '2026-11-02T09:15:00.001Z', [{ type: 'text', text: '<system-reminder>x</system-reminder>' }], { context: true, context_kind: 'reminder' }),
    rec('2', 'assistant', '2026-11-02T09:15:01.000Z', [{ type: 'thinking', text: 'Read it.', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/home/dev/demo-app/package.json' } }], { stop_reason: 'tool_use' }),
    rec('3', 'user', '2026-11-02T09:15:01.500Z', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"scripts":{}}' }]),
    rec('4', 'assistant', '2026-11-02T09:15:00.900Z', [{ type: 'text', text: 'No test script.' }], { stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } }),
  ]
  const out = join(tempDir(t, 'ferry-oc-out-'), 'cc.json')
  await writeDocs(ctx, stream, out)
  const doc = JSON.parse(readFileSync(out, 'utf8'))
  t.same(documentProblems(doc), [])
  t.equal(doc.messages.length, 3, 'injected reminder dropped')
  t.match(doc.messages[1].parts, [{ type: 'reasoning', text: 'Read it.' }, { type: 'tool', tool: 'read', callID: 'toolu_1', state: { status: 'completed', input: { filePath: '/home/dev/demo-app/package.json' } } }])
  t.notOk(JSON.stringify(doc).includes('"sig"'), 'no foreign signature')
  t.ok(doc.messages[2].info.time.created >= doc.messages[1].info.time.created, 'times never go backwards')
  t.match(doc.messages[2].info, { finish: 'stop', providerID: 'anthropic', modelID: 'claude-opus-4-7', tokens: { input: 10, output: 5 } })
})

t.test('sample store holds the demo session', async (t) => {
  const ctx = oc.ctx(join(FIXTURES, 'home'))
  const [s] = await collect(opencode.discover!(ctx))
  t.equal(s?.cwd, '/home/dev/demo-app')
  const recs = await oc.read(ctx, s!)
  t.ok(recs.some((r) => r.kind === 'message' && r.blocks.some((b) => b.type === 'tool_result' && /vitest: not found/.test(String(b.content)))))
  t.notOk(existsSync(join(FIXTURES, 'home/.local/share/opencode/opencode.db-wal')))
})

t.test('which harness a session came from is sourceHarness(): header first, else the sid prefix', async (t) => {
  const { home, rich } = opencodeHome(t)
  const ctx = oc.ctx(home)
  const recs = await oc.read(ctx, (await opencode.resolve!(ctx, rich.parent.info.id))!, { native: true })
  const synthetic = (doc: any) => doc.messages.flatMap((m: any) => m.parts).some((p: any) => p.synthetic === true && /Called the Read tool/.test(p.text))
  // An interchange stream may carry an empty source harness; the sid still says OpenCode.
  const blank = recs.map((r) => (r.kind === 'session' ? { ...r, source: { ...r.source, harness: '' } } : r))
  const out = tempDir(t, 'ferry-oc-out-')
  const [w] = await writeDocs(ctx, blank, out)
  t.ok(synthetic(JSON.parse(readFileSync(w!.path, 'utf8'))), 'OpenCode’s own synthetic text is kept: the session is recognised as OpenCode’s')
  // A header that names another harness wins over the sid.
  const foreign = recs.map((r) => (r.kind === 'session' ? { ...r, source: { ...r.source, harness: 'codex' } } : r))
  const [f] = await writeDocs(ctx, foreign, tempDir(t, 'ferry-oc-out-'))
  t.notOk(synthetic(JSON.parse(readFileSync(f!.path, 'utf8'))), 'another harness’s injected context is dropped')
})
