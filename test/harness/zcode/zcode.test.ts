// ZCode: reading (ZCode's order, every part type, sub-agents, archived, corrupt rows, schema drift,
// a live writer holding rows only in -wal) and writing (into an existing database only, the
// resume-requirement check, byte-for-byte same-store round trip, exists/force, busy, --out FILE).
import t from 'tap'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createContext, type StoreContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import { NotWrittenError } from '../../../lib/errors.js'
import { pipeline } from '../../../lib/io/pipeline.js'
import type { BoundaryRec, FerryRecord, MessageRec, NativeRec, SessionRec } from '../../../lib/model.js'
import { zcode } from '../../../lib/harness/zcode/index.js'
import { primaryDb } from '../../../lib/harness/zcode/paths.js'
import { sink as zcodeSink, type SinkOpts as ZCodeWriteOptions } from '../../../lib/harness/zcode/sink.js'
import { ID_SHAPE } from '../../../lib/harness/zcode/ids.js'
import { INTERRUPTED } from '../../../lib/harness/zcode/source.js'
import { migrate } from '../../../lib/harness/zcode/schema.js'
import type { SessionInfo, WrittenSession } from '../../../lib/harness/types.js'
import { FIXTURES, collect, fileTimeout, ferry, jsonl, kit, tempDir } from '../../kit.js'
import { resumeViolations } from './resume-check.js'
// @ts-ignore plain JS fixture builder
import { createDb, finish, insertSession, writeArtifacts } from '../../../fixtures/zcode/zcode-db.mjs'
// @ts-ignore
import { ARCHIVED_ID, ARTIFACT_PNG, BROKEN_ID, CHILD_ID, DEMO_ID, REWOUND_ID, SHOT_ID, artifacts, demo, rewound } from '../../../fixtures/zcode/scenarios.mjs'

process.env.TZ = 'UTC'
fileTimeout(t, 5 * 60_000)

const CLI_ENV = { PATH: '/nonexistent' }

const zc = kit('zcode')

function ctxFor(home: string, env: Record<string, string> = {}, roots: Record<string, string> = {}): StoreContext {
  return zc.ctx(home, { env, roots })
}

/** A temp copy of the contract home (demo, sub-agent, archived, corrupt row). */
function fixtureHome(t: Tap.Test): { home: string; db: string } {
  const home = zc.home(t)
  return { home, db: join(home, '.zcode', 'cli', 'db', 'db.sqlite') }
}

/** An empty, migrated ZCode database in a fresh home (what ZCode's first run leaves). */
function zcodeHome(t: Tap.Test): { home: string; db: string } {
  const home = zc.home(t, 'empty')
  return { home, db: join(home, '.zcode', 'cli', 'db', 'db.sqlite') }
}

const read = (ctx: StoreContext, id: string, native = false): Promise<FerryRecord[]> => zc.read(ctx, id, { native })

/** Writes the records as given (no `end` added: what a sink does without one is tested here). */
const write = (ctx: StoreContext, recs: FerryRecord[], opts: ZCodeWriteOptions = {}): Promise<WrittenSession[]> => zc.write(ctx, recs, { ...opts, complete: false })

const messages = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')

function fingerprint(p: string): string {
  if (!existsSync(p)) return 'absent'
  const st = statSync(p)
  return `${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`
}

function ledger(db: string): unknown[] {
  const h = new Database(db, { readonly: true })
  try {
    return h.prepare('SELECT * FROM schema_migration ORDER BY id').all()
  } finally {
    h.close()
  }
}

function integrity(db: string): string {
  const h = new Database(db, { readonly: true })
  try {
    return String(h.pragma('integrity_check', { simple: true }))
  } finally {
    h.close()
  }
}

function conversation(recs: FerryRecord[]) {
  const ms = messages(recs).filter((m) => !m.context)
  return {
    prompts: ms.filter((m) => m.role === 'user').flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []))),
    answers: ms.filter((m) => m.role === 'assistant').flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []))),
    calls: ms.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))),
    results: ms.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))),
  }
}

t.test('reading: ZCode order, every part type, the sub-agent linked to its task call', async (t) => {
  const { home } = fixtureHome(t)
  const ctx = ctxFor(home)
  const recs = await read(ctx, DEMO_ID)
  t.same(ctx.diagnostics.items, [], 'no diagnostics')
  const headers = recs.filter((r): r is SessionRec => r.kind === 'session')
  t.same(headers.map((h) => h.native_id), [DEMO_ID, CHILD_ID], 'the session, then its sub-agent session')
  t.match(headers[0], { cwd: '/home/dev/demo-app', model: 'GLM-5.2', provider: 'zai-api', source: { agent_version: '0.16.9' } })
  t.same(headers[1]!.parent, { sid: `zcode:${DEMO_ID}`, kind: 'subagent', tool_use_id: 'call_03_task' }, 'child linked to the parent’s task call')
  const demoRecs = recs.slice(0, recs.findIndex((r) => r.kind === 'end') + 1)
  const c = conversation(demoRecs)
  t.same(c.calls, ['call_01_read_pkg', 'call_02_npm_test', 'call_03_task', 'call_04_ls'])
  t.same(c.results, c.calls, 'every call answered')
  const results = messages(demoRecs).flatMap((m) => m.blocks).filter((b) => b.type === 'tool_result') as any[]
  t.match(results[1], { is_error: true, content: 'Exit code: 1\n\nError: no test specified' }, 'an error shows the model content, as ZCode’s hydrator does')
  t.match(results[3], { is_error: true, content: INTERRUPTED }, 'a running tool is interrupted, in ZCode’s words')
  const blocks = messages(demoRecs).flatMap((m) => m.blocks)
  t.match(blocks.find((b) => b.type === 'thinking'), { signature: 'c2lnbmF0dXJl', provider: 'anthropic' })
  t.match(blocks.find((b) => b.type === 'image'), { mime: 'image/png' })
  const reminder = messages(demoRecs).find((m) => m.blocks.some((b) => b.type === 'text' && b.text.startsWith('Remember')))
  t.match(reminder, { role: 'user', context: true }, 'a synthetic reminder is context')
  t.match(demoRecs.find((r): r is BoundaryRec => r.kind === 'boundary'), { type: 'compaction', trigger: 'auto', pre_tokens: 12000 })
  const natives = demoRecs.filter((r): r is NativeRec => r.kind === 'native').map((r) => r.native_type)
  for (const n of ['zcode/session_entry', 'zcode/agent', 'zcode/step-start', 'zcode/step-finish', 'zcode/retry', 'zcode/patch', 'zcode/subtask', 'zcode/snapshot', 'zcode/timeline', 'zcode/ferry-fixture-future-part']) t.ok(natives.includes(n), `${n} kept as native`)
  const last = messages(demoRecs).filter((m) => m.role === 'assistant').at(-1)!
  t.match(last, { stop_reason: 'end_turn', native_stop_reason: 'stop', usage: { input_tokens: 900, output_tokens: 58 } })
  const ids = recs.map((r) => (r as { id: string }).id)
  t.equal(new Set(ids).size, ids.length, 'record ids unique')
  t.ok(ids.every((id) => /^zcode:sess_[^:]+:(session|end|(message|part|session_entry):.+)$/.test(id)), 'ids are table + primary key')
})

t.test('a corrupt JSON row is a located diagnostic and reading goes on', async (t) => {
  const { home, db } = fixtureHome(t)
  const ctx = ctxFor(home)
  const recs = await read(ctx, BROKEN_ID)
  t.match(ctx.diagnostics.items, [{ severity: 'error', code: 'bad-row', source: 'zcode', position: { file: db, row: 'part:part_mwot0100_00000000-0000-4000-8000-000000000402' } }])
  t.same(conversation(recs).answers, ['Added "lint": "eslint ." to the scripts.'], 'the good part after it is read')
  const cat = await ferry(['--home', home, 'cat', `zcode:${BROKEN_ID}`, '--no-native'], { env: CLI_ENV })
  t.equal(cat.code, 1)
  t.match(cat.stderr, `zcode:bad-row: ${db} [part:part_mwot0100_`)
  t.notMatch(cat.stderr, /\n\s+at /, 'no stack trace')
})

t.test('discovery: archived only with --all, sub-agents name their parent', async (t) => {
  const { home } = fixtureHome(t)
  const ls = await ferry(['--home', home, 'ls', '--harness', 'zcode', '--json'], { env: CLI_ENV })
  t.equal(ls.code, 0, ls.stderr)
  const shown = jsonl(ls.stdout)
  t.same(shown.map((s) => s.id), [BROKEN_ID, DEMO_ID], 'ZCode’s order (time_updated desc); archived and sub-agent sessions hidden')
  const all = await ferry(['--home', home, 'ls', '--harness', 'zcode', '--all', '--json'], { env: CLI_ENV })
  const every = jsonl(all.stdout)
  t.ok(every.some((s) => s.id === ARCHIVED_ID && s.archived === true), '--all: the archived one')
  t.equal(every.find((s) => s.id === CHILD_ID)?.parent, `zcode:${DEMO_ID}`, '--all: the sub-agent, naming its parent')
})

t.test('store location: ZCode’s variables, config.json, --zcode-home DIR or FILE', async (t) => {
  const dir = tempDir(t, 'ferry-zc-loc-')
  const home = join(dir, 'home')
  mkdirSync(home)
  t.equal(primaryDb(ctxFor(home)), join(home, '.zcode', 'cli', 'db', 'db.sqlite'))
  t.equal(primaryDb(ctxFor(home, { ZCODE_DESKTOP_HOME_DIR: join(dir, 'desk') })), join(dir, 'desk', '.zcode', 'cli', 'db', 'db.sqlite'))
  t.equal(primaryDb(ctxFor(home, { ZCODE_DATA_BASE_DIR: join(dir, 'base'), ZCODE_DESKTOP_HOME_DIR: join(dir, 'desk') })), join(dir, 'base', '.zcode', 'cli', 'db', 'db.sqlite'), 'ZCODE_DATA_BASE_DIR first')
  t.equal(primaryDb(ctxFor(home, { ZCODE_SESSION_DB_PATH: '~/elsewhere/s.sqlite' })), join(home, 'elsewhere', 's.sqlite'), 'ZCODE_SESSION_DB_PATH, ~/ expanded')
  mkdirSync(join(home, '.zcode', 'cli'), { recursive: true })
  writeFileSync(join(home, '.zcode', 'cli', 'config.json'), JSON.stringify({ storage: { sessionDbPath: '~/cfg/db.sqlite' } }))
  t.equal(primaryDb(ctxFor(home)), join(home, 'cfg', 'db.sqlite'), 'storage.sessionDbPath')
  t.equal(primaryDb(ctxFor(home, { ZCODE_SESSION_DB: join(dir, 'env.sqlite') })), join(dir, 'env.sqlite'), 'the environment wins over config.json')
  writeFileSync(join(home, '.zcode', 'cli', 'config.json'), '{ not json')
  const bad = ctxFor(home)
  t.equal(primaryDb(bad), join(home, '.zcode', 'cli', 'db', 'db.sqlite'))
  t.match(bad.diagnostics.items, [{ code: 'bad-config', severity: 'warning' }])
  const f = join(dir, 'one.sqlite')
  t.equal(primaryDb(ctxFor(home, {}, { zcode: f })), f, '--zcode-home FILE')
  // Moved by a variable, then listed by the CLI (and --home drops the variable).
  const base = join(dir, 'base')
  const db = createDb(join(base, '.zcode', 'cli', 'db', 'db.sqlite'))
  insertSession(db, demo())
  finish(db)
  const ls = await ferry(['ls', '--harness', 'zcode', '--json'], { env: { ...CLI_ENV, HOME: home, ZCODE_DATA_BASE_DIR: base } })
  t.same(jsonl(ls.stdout).map((s) => s.id), [DEMO_ID], ls.stderr)
  const dropped = await ferry(['--home', home, 'ls', '--harness', 'zcode', '--json'], { env: { ...CLI_ENV, ZCODE_DATA_BASE_DIR: base } })
  t.equal(dropped.stdout, '', '--home drops ZCODE_DATA_BASE_DIR')
})

t.test('schema drift: an old database without sequence columns; a newer one warns and is read', async (t) => {
  const dir = tempDir(t, 'ferry-zc-drift-')
  const path = join(dir, 'old.sqlite')
  const db = new Database(path)
  migrate(db, { upTo: '0012_session_trace_id' })
  const d = demo()
  db.prepare(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'proj_x', ?, ?, ?, '0.14.0', ?, ?)`).run(d.id, d.id, d.directory, d.title, d.created, d.updated)
  // Old binaries: no sequence; rows inserted out of order, so time_created orders them.
  for (const m of [...d.messages].reverse()) {
    db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(m.id, d.id, m.data.time.created, m.data.time.created, JSON.stringify(m.data))
    for (const p of m.parts) db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(p.id, m.id, d.id, m.data.time.created, m.data.time.created, JSON.stringify(p.data))
  }
  db.prepare(`INSERT INTO schema_migration VALUES ('0031_future_thing', 'x', '9.0.0', 1)`).run()
  db.exec(`CREATE TABLE future_table (id TEXT); ALTER TABLE message ADD COLUMN future_col TEXT`)
  db.close()
  const ctx = ctxFor(dir, {}, { zcode: path })
  const recs = await read(ctx, DEMO_ID)
  t.match(ctx.diagnostics.items, [{ severity: 'warning', code: 'unsupported', message: /0031_future_thing/ }], 'one warning naming the unknown migration')
  t.equal(ctx.diagnostics.errors, 0)
  const c = conversation(recs)
  t.equal(c.prompts[0], d.messages[0].parts[0].data.text, 'first message first')
  t.equal(c.calls.length, 4)
})

t.test('reading never changes the database, -wal or -shm, and sees rows that live only in -wal', async (t) => {
  const { home, db } = fixtureHome(t)
  const writer = spawn(process.execPath, [join(FIXTURES, 'zcode', 'live-writer.mjs'), db, 'wal'], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => writer.kill())
  await new Promise<void>((res) => writer.stdout.once('data', () => res()))
  t.ok(statSync(`${db}-wal`).size > 0, 'the live session is in the WAL')
  const before = ['', '-wal', '-shm'].map((s) => fingerprint(db + s))
  const ctx = ctxFor(home)
  const listed = await collect(zcode.discover!(ctx, { all: true }))
  t.ok(listed.some((s) => s.title === 'Live session'), 'the WAL-only session is listed')
  const live = await read(ctx, 'sess_0a0b0c0d')
  t.same(conversation(live).answers, ['Seen while ZCode runs.'])
  await read(ctx, DEMO_ID, true)
  const cat = await ferry(['--home', home, 'cat', 'zcode:sess_0a0b0c0d', '--no-native'], { env: CLI_ENV })
  t.equal(cat.code, 0, cat.stderr)
  t.same(['', '-wal', '-shm'].map((s) => fingerprint(db + s)), before, 'db, -wal and -shm: same bytes and mtimes')
  writer.stdin.write('x')
  await new Promise((res) => writer.once('exit', res))
  t.notOk(existsSync(`${db}-wal`), 'the writer closed cleanly')
  const closed = fingerprint(db)
  const dirBefore = readdirSync(join(home, '.zcode', 'cli', 'db'))
  await read(ctxFor(home), 'sess_0a0b0c0d')
  t.equal(fingerprint(db), closed, 'a closed database: unchanged')
  t.same(readdirSync(join(home, '.zcode', 'cli', 'db')), dirBefore, 'and no -wal/-shm created')
})

t.test('writing into an existing database: every resume requirement met, integrity ok, ledger unchanged', async (t) => {
  const src = fixtureHome(t)
  const target = zcodeHome(t)
  const ledgerBefore = ledger(target.db)
  const sources: Array<[string, string]> = [[src.home, `zcode:${DEMO_ID}`]]
  for (const sid of ['claude-code', 'codex', 'opencode']) {
    const ls = await ferry(['--home', join(FIXTURES, 'home'), 'ls', '--harness', sid, '--json'], { env: CLI_ENV })
    sources.push([join(FIXTURES, 'home'), jsonl(ls.stdout)[0]!.sid])
  }
  for (const [home, sid] of sources) {
    const cat = await ferry(['--home', home, 'cat', sid, '--no-native'], { env: CLI_ENV })
    const before = conversation(jsonl(cat.stdout) as FerryRecord[])
    // Read from the source's home, written through a pipe into the target's database.
    const conv = await ferry(['--home', target.home, 'write', '--to', 'zcode', '--json'], { input: cat.stdout, env: CLI_ENV })
    t.equal(conv.code, 0, `${sid} → zcode: ${conv.stderr}`)
    const written = jsonl(conv.stdout)
    t.ok(written.length >= 1, `${sid}: written`)
    for (const ws of written) {
      t.ok(ID_SHAPE.test(ws.id), `${ws.id}: ZCode id shape`)
      t.same(resumeViolations(target.db, ws.id), [], `${sid} → ${ws.id}: zero resume-requirement violations`)
    }
    const back = await ferry(['--zcode-home', join(target.home, '.zcode'), 'cat', `zcode:${written[0].id}`, '--no-native'], { env: CLI_ENV })
    t.equal(back.code, 0, back.stderr)
    const after = conversation(jsonl(back.stdout) as FerryRecord[])
    t.equal(after.calls.length, before.calls.length, `${sid}: every tool call`)
    t.same(after.results.sort(), after.calls.slice().sort(), `${sid}: every call answered`)
    for (const p of before.prompts) t.ok(after.prompts.some((q) => q.includes(p.slice(0, 40))), `${sid}: prompt kept`)
    if (before.answers.length) t.ok(after.answers.includes(before.answers.at(-1)!), `${sid}: final answer kept`)
  }
  t.equal(integrity(target.db), 'ok', 'PRAGMA integrity_check')
  t.same(ledger(target.db), ledgerBefore, 'schema_migration unchanged')
  const h = new Database(target.db, { readonly: true })
  const tables = h.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('session','session_entry','message','part','schema_migration')`).all() as Array<{ name: string }>
  for (const { name } of tables) t.equal((h.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n, 0, `${name}: untouched`)
  h.close()
})

t.test('same-store round trip: every row and its data JSON byte for byte', async (t) => {
  const src = fixtureHome(t)
  const target = zcodeHome(t)
  const recs = await read(ctxFor(src.home), DEMO_ID, true)
  const written = await write(ctxFor(target.home), recs)
  t.same(written.map((w) => w.id), [DEMO_ID, CHILD_ID], 'same ids')
  const rows = (db: string) => {
    const h = new Database(db, { readonly: true })
    try {
      const ids = [DEMO_ID, CHILD_ID]
      return {
        session: h.prepare(`SELECT * FROM session WHERE id IN (?, ?) ORDER BY id`).all(...ids),
        entry: h.prepare(`SELECT * FROM session_entry WHERE session_id IN (?, ?) ORDER BY id`).all(...ids),
        message: h.prepare(`SELECT * FROM message WHERE session_id IN (?, ?) ORDER BY id`).all(...ids),
        part: h.prepare(`SELECT * FROM part WHERE session_id IN (?, ?) ORDER BY id`).all(...ids),
      }
    } finally {
      h.close()
    }
  }
  const a = rows(src.db)
  const b = rows(target.db)
  t.ok(a.part.length > 20)
  t.same(b, a, 'every column of every row, data text identical')
  t.same(resumeViolations(target.db, DEMO_ID).filter((v) => !v.startsWith('tool parts terminal') && !v.startsWith('no empty user message')), [], 'resumable (the fixture’s interrupted tool part is ZCode’s own)')
})

t.test('no database: a one-line how-to, nothing created; --out FILE writes a standalone database', async (t) => {
  const dir = tempDir(t, 'ferry-zc-none-')
  const home = join(dir, 'home')
  mkdirSync(home)
  const w = await ferry(['--home', join(FIXTURES, 'home'), 'convert', 'claude-code:' + 'x', '--to', 'zcode', '--zcode-home', join(home, '.zcode')], { env: CLI_ENV })
  t.not(w.code, 0)
  const cc = jsonl((await ferry(['--home', join(FIXTURES, 'home'), 'ls', '--harness', 'claude-code', '--json'], { env: CLI_ENV })).stdout)[0]!.sid
  const r = await ferry(['--home', join(FIXTURES, 'home'), 'convert', cc, '--to', 'zcode', '--zcode-home', join(home, '.zcode')], { env: CLI_ENV })
  t.equal(r.code, 2, 'usage exit')
  t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`)
  t.match(r.stderr, /no ZCode database at .*db\.sqlite: start ZCode once .*--out FILE/)
  t.same(readdirSync(home), [], 'nothing created')
  const out = join(dir, 'export.sqlite')
  const o = await ferry(['--home', join(FIXTURES, 'home'), 'convert', cc, '--to', 'zcode', '--out', out, '--json'], { env: CLI_ENV })
  t.equal(o.code, 0, o.stderr)
  const [ws] = jsonl(o.stdout)
  t.equal(ws.path, out)
  t.same(resumeViolations(out, ws.id), [])
  t.equal(integrity(out), 'ok')
  t.ok(ledger(out).length > 5, 'the standalone file carries the schema and its ledger')
  const back = await ferry(['--zcode-home', out, 'cat', `zcode:${ws.id}`, '--no-native'], { env: CLI_ENV })
  t.equal(back.code, 0, back.stderr)
  const byPath = await ferry(['cat', out, '--no-native'], { env: CLI_ENV })
  t.equal(byPath.code, 0, `a database holding one session resolves by path: ${byPath.stderr}`)
})

t.test('an existing session: refused without --force (nothing changes), replaced in one transaction with it', async (t) => {
  const src = fixtureHome(t)
  const target = zcodeHome(t)
  const recs = await read(ctxFor(src.home), DEMO_ID)
  const first = await write(ctxFor(target.home), recs)
  t.equal(first.length, 2)
  const count = () => {
    const h = new Database(target.db, { readonly: true })
    try {
      return ['session', 'session_entry', 'message', 'part'].map((x) => (h.prepare(`SELECT count(*) AS n FROM ${x}`).get() as { n: number }).n)
    } finally {
      h.close()
    }
  }
  const n = count()
  const snap = readdirSync(join(target.home, '.zcode', 'cli', 'db')).map((f) => `${f} ${fingerprint(join(target.home, '.zcode', 'cli', 'db', f))}`)
  const err = await write(ctxFor(target.home), recs).then(() => null, (e: unknown) => e)
  t.ok(err instanceof NotWrittenError)
  if (err instanceof NotWrittenError) t.same(err.failures.map((f) => f.error.code), ['exists', 'exists'])
  t.same(readdirSync(join(target.home, '.zcode', 'cli', 'db')).map((f) => `${f} ${fingerprint(join(target.home, '.zcode', 'cli', 'db', f))}`), snap, 'bytes, mtimes and files unchanged')
  const again = await write(ctxFor(target.home), recs, { force: true })
  t.same(again.map((w) => w.id), first.map((w) => w.id), 'same ids (reproducible)')
  t.same(count(), n, 'replaced, not duplicated')
  t.equal(integrity(target.db), 'ok')
  const text = (await ferry(['--home', src.home, 'cat', `zcode:${DEMO_ID}`, '--no-native'], { env: CLI_ENV })).stdout
  const cli = await ferry(['--home', target.home, 'write', '--to', 'zcode'], { input: text, env: CLI_ENV })
  t.equal(cli.code, 1)
  t.match(cli.stderr, 'zcode:exists:')
})

t.test('ZCode holding the database busy past the timeout: fails cleanly, nothing written', async (t) => {
  const src = fixtureHome(t)
  const target = zcodeHome(t)
  const recs = await read(ctxFor(src.home), DEMO_ID)
  const holder = spawn(process.execPath, [join(FIXTURES, 'zcode', 'live-writer.mjs'), target.db, 'hold'], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => holder.kill())
  await new Promise<void>((res) => holder.stdout.once('data', () => res()))
  const err = await write(ctxFor(target.home), recs, { busyTimeout: 200 }).then(() => null, (e: unknown) => e)
  t.ok(err instanceof NotWrittenError, 'not written')
  if (err instanceof NotWrittenError) {
    t.same(err.failures.map((f) => f.error.code), ['db-error', 'db-error'])
    t.match(err.failures[0]!.error.message, /busy/)
  }
  holder.stdin.write('x')
  await new Promise((res) => holder.once('exit', res))
  const h = new Database(target.db, { readonly: true })
  t.equal((h.prepare('SELECT count(*) AS n FROM session').get() as { n: number }).n, 0, 'nothing written')
  h.close()
  t.equal((await write(ctxFor(target.home), recs)).length, 2, 'written once the lock is gone')
})

/** A home holding the rewound session (branch cut, retried tool call, images in the artifact store). */
function rewoundHome(t: Tap.Test): { home: string; db: string; root: string } {
  const home = join(tempDir(t, 'ferry-zc-rw-'), 'home')
  const root = join(home, '.zcode')
  const db = join(root, 'cli', 'db', 'db.sqlite')
  const h = createDb(db)
  insertSession(h, rewound())
  finish(h)
  writeArtifacts(root, artifacts())
  return { home, db, root }
}

t.test('a rewind (session.revert): the active branch as ZCode resumes it; the cut turn kept off-branch', async (t) => {
  const { home, db } = rewoundHome(t)
  const ctx = ctxFor(home)
  const recs = await read(ctx, REWOUND_ID)
  t.same(ctx.diagnostics.items, [], 'no diagnostics')
  const c = conversation(recs)
  t.same(c.prompts, ['Write the changelog from this screenshot.', 'Write it in German.'], 'the kept turn, then the one after the cut')
  t.notOk(c.answers.some((a) => a.startsWith('Voici')), 'the answer the rewind cut off is not in the conversation')
  t.ok(c.answers.includes('Hier ist das Änderungsprotokoll.'))
  t.match(recs.find((r) => r.kind === 'end'), { counts: { inactive: 2 } }, 'the two cut messages are counted')
  // With native data they stay, as native records marked off-branch, and replay row for row.
  const nat = await read(ctxFor(home), REWOUND_ID, true)
  const off = nat.filter((r): r is NativeRec => r.kind === 'native' && r.native_type === 'zcode/message-inactive')
  t.equal(off.length, 2, 'the cut messages are kept')
  t.ok(off.every((r) => r.x?.['zcode.inactive'] === true && r.native?.row !== undefined), 'marked off-branch, with their rows')
  const target = zcodeHome(t)
  await write(ctxFor(target.home), nat)
  const rows = (p: string) => {
    const h = new Database(p, { readonly: true })
    try {
      return [h.prepare('SELECT * FROM session WHERE id = ?').all(REWOUND_ID), h.prepare('SELECT * FROM message WHERE session_id = ? ORDER BY id').all(REWOUND_ID), h.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY id').all(REWOUND_ID)]
    } finally {
      h.close()
    }
  }
  t.same(rows(target.db), rows(db), 'same-store round trip keeps the revert and every row, cut ones included')
  // Converted elsewhere (here: back into ZCode as a new session) only the active branch travels.
  const conv = zcodeHome(t)
  const [w] = await write(ctxFor(conv.home), recs.map((r) => ({ ...r, native: undefined })) as FerryRecord[], { model: 'GLM-5.2' })
  const back = conversation(await read(ctxFor(conv.home), w!.id))
  t.same(back.prompts, c.prompts, 'converted: the active branch only')
  t.same(resumeViolations(conv.db, w!.id), [], 'and resumable')
})

t.test('tool parts sharing a callID: the last is read; declarationIndex order', async (t) => {
  const { home } = rewoundHome(t)
  const recs = await read(ctxFor(home), REWOUND_ID)
  const c = conversation(recs)
  t.same(c.calls, ['call_tags', 'call_log'], 'one call per callID, in declaration order (as stored: log, tags, log)')
  t.same(c.results, c.calls)
  const results = messages(recs).flatMap((m) => m.blocks).filter((b) => b.type === 'tool_result') as any[]
  const log = results.find((r) => r.tool_use_id === 'call_log')
  t.match(log, { is_error: false }, 'the retried call’s last part wins (completed, not the stream error)')
  t.match(JSON.stringify(log.content), 'abc123 add login')
  const superseded = recs.filter((r): r is NativeRec => r.kind === 'native' && r.native_type === 'zcode/tool-superseded')
  t.equal(superseded.length, 1, 'the replaced part is kept as native')
})

t.test('artifacts: images named zcode-artifact:// are read from cli/artifacts/, never from outside it', async (t) => {
  const { home, root } = rewoundHome(t)
  let ctx = ctxFor(home)
  let recs = await read(ctx, REWOUND_ID)
  t.same(ctx.diagnostics.items, [])
  const image = messages(recs).flatMap((m) => m.blocks).find((b) => b.type === 'image') as any
  t.match(image, { mime: 'image/png', data: ARTIFACT_PNG }, 'the prompt’s attachment, inlined from its artifact file')
  t.notOk(image.ref, 'no reference left')
  const result = messages(recs).flatMap((m) => m.blocks).find((b) => b.type === 'tool_result' && (b as any).tool_use_id === 'call_log') as any
  t.ok(Array.isArray(result.content) && result.content.some((p: any) => p.type === 'image' && p.data === ARTIFACT_PNG), 'the tool result’s image too')
  // The CLI: on by default; --no-zcode-inline-artifacts keeps the references.
  const cat = await ferry(['--home', home, 'cat', `zcode:${REWOUND_ID}`, '--no-native'], { env: CLI_ENV })
  t.equal(cat.code, 0, cat.stderr)
  t.match(cat.stdout, ARTIFACT_PNG)
  const refs = await ferry(['--home', home, 'cat', `zcode:${REWOUND_ID}`, '--no-native', '--no-zcode-inline-artifacts'], { env: CLI_ENV })
  t.equal(refs.code, 0, refs.stderr)
  t.notMatch(refs.stdout, ARTIFACT_PNG)
  t.match(refs.stdout, `zcode-artifact://${REWOUND_ID}/${SHOT_ID}`)
  // ZCODE_STORAGE_DIR moves the artifact store (not the database).
  const moved = join(tempDir(t, 'ferry-zc-st-'), 'storage')
  cpSync(join(root, 'cli', 'artifacts'), join(moved, 'cli', 'artifacts'), { recursive: true })
  rmSync(join(root, 'cli', 'artifacts'), { recursive: true })
  ctx = ctxFor(home, { ZCODE_STORAGE_DIR: moved })
  recs = await read(ctx, REWOUND_ID)
  t.match(messages(recs).flatMap((m) => m.blocks).find((b) => b.type === 'image'), { data: ARTIFACT_PNG }, 'found under $ZCODE_STORAGE_DIR')
  // A symlink out of the store is not followed: the reference stays, with a located warning.
  const outside = join(tempDir(t, 'ferry-zc-out-'), 'secret.txt')
  writeFileSync(outside, 'data:image/png;base64,U0VDUkVU')
  const file = join(moved, 'cli', 'artifacts', REWOUND_ID, `file-${SHOT_ID}.txt`)
  rmSync(file)
  symlinkSync(outside, file)
  ctx = ctxFor(home, { ZCODE_STORAGE_DIR: moved })
  recs = await read(ctx, REWOUND_ID)
  const img = messages(recs).flatMap((m) => m.blocks).find((b) => b.type === 'image') as any
  t.notOk(img.data, 'nothing read through the symlink')
  t.match(img.ref, { url: `zcode-artifact://${REWOUND_ID}/${SHOT_ID}` })
  t.match(ctx.diagnostics.items, [{ severity: 'warning', code: 'side-file', source: 'zcode', message: /outside the artifacts directory/, position: { row: /^part:/ } }])
})

t.test('one connection lent across sessions is never stale: a change to the database between reads is seen', async (t) => {
  const { home, db } = rewoundHome(t)
  const first = conversation(await read(ctxFor(home), REWOUND_ID))
  t.ok(first.answers.includes('Hier ist das Änderungsprotokoll.'))
  // Another program changes a row (and closes, so -wal/-shm are gone again, as after ZCode quits).
  const w = new Database(db)
  w.prepare(`UPDATE part SET data = json_set(data, '$.text', 'Geändert.') WHERE json_extract(data, '$.text') = 'Hier ist das Änderungsprotokoll.'`).run()
  w.close()
  t.notOk(existsSync(db + '-wal'), 'closed: no -wal left')
  const again = conversation(await read(ctxFor(home), REWOUND_ID))
  t.ok(again.answers.includes('Geändert.'), 'the second read sees the change')
  // Two readers at once each get a connection of their own.
  const both = await Promise.all([read(ctxFor(home), REWOUND_ID), read(ctxFor(home), REWOUND_ID)])
  t.same(conversation(both[0]), conversation(both[1]))
})
