// The Kilo harness on Kilo-shaped databases (fixtures/kilo builds them): what
// is Kilo's own (its paths and variable, default agent `code`, `kilo import`),
// and the OpenCode-family guarantees on its store (a live writer's WAL, a hot
// journal, sub-agent sessions, spilled outputs). The rest is the contract's.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import type { FerryRecord, MessageRec, SessionRec, ToolResultBlock } from '../../../lib/model.js'
import { databases, primaryDb } from '../../../lib/harness/kilo/paths.js'
import { documentProblems } from '../../../lib/harness/family/opencode-document.js'
import { FIXTURES, ferry, kit, sampleHome, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder
import { createDb, insertDocument, idMaker, landDocuments } from '../../../fixtures/kilo/kilo-db.mjs'
// @ts-ignore
import { archived, demo, SPILL_PATH } from '../../../fixtures/kilo/scenarios.mjs'

const k = kit('kilo')

/** A HOME whose kilo.db holds the full demo (with its sub-agent session) and an archived session. */
function home(t: any, project?: string) {
  const h = tempDir(t, 'ferry-kilo-')
  const data = join(h, '.local/share/kilo')
  mkdirSync(data, { recursive: true })
  const db = createDb(join(data, 'kilo.db'))
  const ids = idMaker()
  const d = demo(ids)
  if (project) d.main.info.directory = d.child.info.directory = project
  for (const doc of [archived(ids), d.main, d.child]) insertDocument(db, doc)
  db.close()
  return { home: h, data, db: join(data, 'kilo.db'), main: d.main.info.id as string, child: d.child.info.id as string }
}

function fingerprint(path: string) {
  if (!existsSync(path)) return null
  const s = statSync(path)
  return `${s.size}:${s.mtimeMs}:${readFileSync(path).toString('base64').length}`
}

t.test('paths: kilo.db under XDG data, KILO_DB, kilo-<channel>.db; OpenCode\'s database is not Kilo\'s', async (t) => {
  const { home: h, db, main, child } = home(t)
  const ctx = k.ctx(h)
  t.equal(primaryDb(ctx), db)
  mkdirSync(join(h, '.local/share/opencode'), { recursive: true })
  createDb(join(h, '.local/share/opencode/opencode.db')).close()
  copyFileSync(db, join(h, '.local/share/kilo/kilo-beta.db'))
  t.same(databases(ctx), [db, join(h, '.local/share/kilo/kilo-beta.db')], 'the primary, then channel databases; never opencode.db')
  t.same(databases(k.ctx(h, { env: { KILO_DB: 'kilo-beta.db' } })), [join(h, '.local/share/kilo/kilo-beta.db')], 'a relative KILO_DB is joined to the data dir, and is the only one')
  t.same(databases(k.ctx(h, { env: { XDG_DATA_HOME: join(h, 'elsewhere') } })), [], 'XDG_DATA_HOME moves the store')
  const listed = await k.discover(k.ctx(h, { env: { KILO_DB: db } }))
  t.same(listed.map((s) => s.id), [main], 'top-level, unarchived sessions only')
  const all = await k.discover(k.ctx(h, { env: { KILO_DB: db } }), { all: true })
  t.same(all.map((s) => s.id).sort(), [main, child, all.find((s) => s.archived)!.id].sort(), 'with all: the sub-agent and the archived session too')
  t.match(all.find((s) => s.id === child), { parent: `kilo:${main}`, title: 'Check package.json (@general subagent)' })
  t.equal(all.find((s) => s.archived)!.title, undefined, '"New session - <time>" is no title')
})

t.test('read: agent code, usage on assistant records, the spilled output, then the sub-agent session', async (t) => {
  const { home: h, main, child } = home(t)
  const recs = await k.read(k.ctx(h), `kilo:${main}`)
  const headers = recs.filter((r): r is SessionRec => r.kind === 'session')
  t.same(headers.map((s) => s.native_id), [main, child], 'the session, then its sub-agent session')
  t.match(headers[0], { source: { harness: 'kilo', agent_version: '7.7.7' }, cwd: '/home/dev/demo-app', model: 'anthropic/claude-sonnet-4.5', provider: 'kilo' })
  t.match(headers[1]!.parent, { sid: `kilo:${main}`, kind: 'subagent', tool_use_id: 'call_kilo_task' })
  const msgs = recs.filter((r): r is MessageRec => r.kind === 'message')
  const assistants = msgs.filter((m) => m.role === 'assistant' && m.sid === `kilo:${main}`)
  t.ok(assistants.length >= 4)
  t.ok(assistants.filter((m) => m.usage).length >= 4, 'each step carries its usage')
  t.match(assistants.find((m) => m.usage)!.usage, { input_tokens: 12300, output_tokens: 40, reasoning_tokens: 15, cache_read_tokens: 11000, cost_usd: 0.0042 })
  const results = msgs.flatMap((m) => m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result'))
  const spilled = results.find((r) => r.tool_use_id === 'call_kilo_log')!
  t.same(spilled.truncated, { ref: { path: SPILL_PATH } }, 'the spilled output is named, as a truncated result')
  t.match(results.find((r) => r.tool_use_id === 'call_kilo_test'), { is_error: true, exit_code: 127 }, 'a command that exited 127 is a failed call (failedResult, issue #41)')
  t.ok(msgs.some((m) => m.sid === `kilo:${child}` && m.blocks.some((b) => b.type === 'text' && /vitest is missing/.test(b.text))), 'the sub-agent conversation')
})

/** Kilo holding `<home>/.local/share/kilo/kilo.db` open (fixtures/kilo/live-writer.mjs), its rows only in -wal; `stop` closes it. */
async function liveKilo(t: any) {
  const dir = tempDir(t, 'ferry-kilo-wal-')
  const db = join(dir, '.local/share/kilo/kilo.db')
  mkdirSync(dirname(db), { recursive: true })
  const writer = spawn(process.execPath, [join(FIXTURES, 'kilo/live-writer.mjs'), db], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => writer.kill())
  await once(writer.stdout, 'data')
  const stop = async () => {
    writer.stdin.write('x')
    await once(writer, 'exit')
  }
  return { dir, db, stop }
}

const files = (db: string) => ['', '-wal', '-shm'].map((s) => fingerprint(db + s))

t.test('a database Kilo is writing (pages only in -wal) reads fully and stays untouched', async (t) => {
  const live = await liveKilo(t)
  t.ok(statSync(`${live.db}-wal`).size > 0, 'rows are in the WAL')
  const before = files(live.db)
  const all = await k.discover(k.ctx(live.dir), { all: true })
  t.equal(all.length, 3, 'the demo, its sub-agent session, the archived one')
  const top = all.find((s) => !s.parent && !s.archived)!
  t.equal((await k.read(k.ctx(live.dir), top)).filter((r) => r.kind === 'session').length, 2)
  t.same(files(live.db), before, 'db, -wal and -shm bytes and mtimes unchanged')
  await live.stop()
})

t.test('a hot journal (a writer died mid-transaction): read from one snapshot, the store untouched', async (t) => {
  const { home: h, db, main } = home(t)
  const w = new Database(db)
  w.pragma('journal_mode = DELETE')
  w.close()
  copyFileSync(db, `${db}-journal`)
  const before = ['', '-journal'].map((s) => fingerprint(db + s))
  const ctx = k.ctx(h)
  t.equal((await k.discover(ctx)).length, 1)
  const recs = await k.read(ctx, `kilo:${main}`)
  t.equal(recs.filter((r) => r.kind === 'session').length, 2)
  t.same(['', '-journal'].map((s) => fingerprint(db + s)), before, 'db and journal unchanged')
})

/** What must survive Kilo → document → Kilo: roles, blocks, usage (ids aside). */
function conversation(recs: FerryRecord[]) {
  return recs
    .filter((r): r is MessageRec => r.kind === 'message')
    .map((m) => ({ role: m.role, stop: m.stop_reason, usage: m.usage, blocks: m.blocks.map((b) => (b.type === 'tool_result' ? { ...b, structured: undefined, content: String(b.content).replace(/ses_\w+/g, 'ses_X') } : b)) }))
}

t.test('write: Kilo → export documents → kilo import keeps the conversation; sub-agent named by its parent', async (t) => {
  const { home: h, main } = home(t)
  const ctx = k.ctx(h)
  const original = await k.read(ctx, `kilo:${main}`)
  const written = await k.write(ctx, original, { out: tempDir(t, 'ferry-kilo-out-') })
  t.equal(written.length, 2)
  const docs = written.map((w) => JSON.parse(readFileSync(w.path, 'utf8')))
  for (const d of docs) t.same(documentProblems(d), [], `${d.info.id} importable`)
  t.equal(docs[1].info.parentID, written[0]!.id, 'the child document names its parent')
  t.equal(docs[0].info.version, '7.7.7')
  const back = tempDir(t, 'ferry-kilo-back-')
  landDocuments(written.map((w) => w.path), join(back, '.local/share/kilo'))
  const again = await k.read(k.ctx(back), `kilo:${written[0]!.id}`)
  t.same(conversation(again), conversation(original))
  t.match(again.filter((r): r is SessionRec => r.kind === 'session')[1]!.parent, { kind: 'subagent', tool_use_id: 'call_kilo_task' })
})

t.test('write: a foreign session names agent and mode code, and Kilo\'s version', async (t) => {
  const sid = 'claude-code:5d2f7e10-2222-4b4b-9b9b-000000000abc'
  const stream: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'claude-code', locator: {} }, native_id: '5d2f7e10', cwd: '/home/dev/demo-app', model: 'claude-opus-4-7' },
    { kind: 'message', sid, id: `${sid}:u1`, role: 'user', ts: '2026-11-02T09:15:00.000Z', blocks: [{ type: 'text', text: 'Run the tests.' }] },
    { kind: 'message', sid, id: `${sid}:a1`, role: 'assistant', ts: '2026-11-02T09:15:01.000Z', blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }], stop_reason: 'tool_use' },
    { kind: 'message', sid, id: `${sid}:u2`, role: 'user', ts: '2026-11-02T09:15:02.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    { kind: 'message', sid, id: `${sid}:a2`, role: 'assistant', ts: '2026-11-02T09:15:03.000Z', blocks: [{ type: 'text', text: 'Passing.' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } },
  ]
  const out = join(tempDir(t, 'ferry-kilo-out-'), 'cc.json')
  await k.write(k.ctx(tempDir(t)), stream, { out })
  const doc = JSON.parse(readFileSync(out, 'utf8'))
  t.same(documentProblems(doc), [])
  t.equal(doc.info.version, '7.7.7')
  t.ok(doc.messages.every((m: any) => m.info.agent === 'code'), 'agent code everywhere')
  t.ok(doc.messages.filter((m: any) => m.info.role === 'assistant').every((m: any) => m.info.mode === 'code'))
  t.match(doc.messages[1].parts, [{ type: 'tool', tool: 'bash', callID: 'toolu_1', state: { status: 'completed', output: 'ok' } }])
  t.match(doc.messages[2].info, { providerID: 'anthropic', modelID: 'claude-opus-4-7', tokens: { input: 10, output: 5 } })
})

t.test('CLI: into the store the document goes to `kilo import` from the session directory; without kilo, the note says how', async (t) => {
  const project = tempDir(t, 'ferry-kilo-project-')
  const { home: h, main } = home(t, project)
  const bin = tempDir(t, 'ferry-kilo-bin-')
  const log = join(bin, 'calls.log')
  writeFileSync(join(bin, 'kilo'), `#!/bin/sh\nprintf '%s|%s\\n' "$PWD" "$*" >> '${log}'\necho "Imported session: $2"\n`)
  chmodSync(join(bin, 'kilo'), 0o755)
  // A Kilo session into Kilo is refused by continue; convert writes a copy, with fresh ids.
  const r = await ferry(['convert', `kilo:${main}`, '--to', 'kilo', '--home', h, '--json'], { env: { PATH: `${bin}${delimiter}${process.env.PATH}` } })
  t.equal(r.code, 0, r.stderr)
  const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
  t.equal(rows.length, 2, 'the session and its sub-agent session')
  t.match(rows[0].note, /imported into Kilo \(kilo import, from /)
  t.equal(rows[0].path, join(h, '.local/share/kilo/kilo.db'))
  const calls = readFileSync(log, 'utf8').trim().split('\n')
  t.equal(calls.length, 2)
  t.match(calls[0], new RegExp(`^${project}\\|import ${h}/\\.local/share/kilo/ferry-import/${rows[0].id}\\.json$`))
  const off = await ferry(['convert', `kilo:${main}`, '--to', 'kilo', '--home', h, '--json', '--no-kilo-import', '--force'], { env: { PATH: `${bin}${delimiter}${process.env.PATH}` } })
  t.equal(off.code, 0, off.stderr)
  t.match(JSON.parse(off.stdout.split('\n')[0]!).note, `not imported; to import: cd ${project} && kilo import `)
  t.equal(readFileSync(log, 'utf8').trim().split('\n').length, 2, 'kilo is not run')
})

t.test('continue --with kilo writes the session and prints `kilo --session <id>` for its directory', async (t) => {
  const h = sampleHome(t)
  const r = await ferry(['--home', h, 'continue', 'claude-code:0b9e6c1a', '--with', 'kilo', '--json'], { env: { PATH: '/nonexistent', XDG_STATE_HOME: tempDir(t) } })
  t.equal(r.code, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n')[0]!)
  t.match(out.id, /^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/)
  t.match(out.note, /kilo is not on PATH; to import: cd .* && kilo import /)
  t.same(out.command, ['kilo', '--session', out.id])
})
