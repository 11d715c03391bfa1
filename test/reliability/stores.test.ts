// #11 defects 7, 9, 13: one bad row, one bad summary, one odd record must
// cost that row, that session or that record, never the whole read or listing.
import t from 'tap'
import Database from 'better-sqlite3'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { ferry, FIXTURES, tempDir } from '../kit.js'
import { collect, context, discover, open, pipeline, sink } from '../../lib/index.js'
import { Diagnostics } from '../../lib/diagnostics.js'

const HOME = join(FIXTURES, 'home')

t.test('defect 9: a Grok summary.json with time 1e300 does not break `ferry ls`', async (t) => {
  const home = tempDir(t)
  cpSync(HOME, home, { recursive: true })
  const f = join(home, '.grok/sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17/summary.json')
  const s = JSON.parse(readFileSync(f, 'utf8'))
  writeFileSync(f, JSON.stringify({ ...s, created_at: 1e300, updated_at: 1e300, last_active_at: 1e300 }))
  const r = await ferry(['ls', '--home', home, '--json'])
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace')
  const ids = r.stdout.trim().split('\n').map((l) => JSON.parse(l).harness as string)
  for (const h of ['claude-code', 'codex', 'opencode', 'grok']) t.ok(ids.includes(h), `${h} still listed`)
})

t.test('defect 7: a malformed file:// URL in one OpenCode part, or no part table, costs that part only', async (t) => {
  const home = tempDir(t)
  cpSync(HOME, home, { recursive: true })
  const db = join(home, '.local/share/opencode/opencode.db')
  const ctx = () => context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const sessions = []
  for await (const s of discover({ ctx: ctx(), harness: ['opencode'] })) sessions.push(s)
  const ref = `opencode:${sessions[0]!.id}`
  const before = await collect(await open(ref, { ctx: ctx() }))
  const w = new Database(db)
  const row = w.prepare(`SELECT id, message_id, session_id, time_created FROM part LIMIT 1`).get() as Record<string, unknown>
  w.prepare(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`).run(
    'prt_zzzz_bad_url',
    row.message_id,
    row.session_id,
    row.time_created,
    row.time_created,
    JSON.stringify({ type: 'file', mime: 'text/plain', url: 'file:///tmp/%E0%A4%A', filename: 'x' }),
  )
  w.close()
  const c1 = ctx()
  const after = await collect(await open(ref, { ctx: c1 }))
  t.equal(after.filter((r) => r.kind === 'message').length >= before.filter((r) => r.kind === 'message').length, true, 'every message still read')
  const w2 = new Database(db)
  w2.exec('DROP TABLE part')
  w2.close()
  const c2 = ctx()
  const noParts = await collect(await open(ref, { ctx: c2 }))
  t.ok(noParts.some((r) => r.kind === 'session') && noParts.some((r) => r.kind === 'end'), 'the session is still read')
  t.match(c2.diagnostics.items.map((d) => d.code), ['db-error'])
})

t.test('defect 13: unknown kinds, sid null and a non-string native.format are ignored by every writer', async (t) => {
  const sid = 'ferry:odd'
  const recs = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'odd', cwd: '/home/dev/app' },
    { kind: 'hologram', sid, id: `${sid}:h` },
    { kind: 'native', sid: null, id: 'x', native_type: 'x/y' },
    { kind: 'native', sid, id: `${sid}:n`, native_type: 'x/y', native: { format: 7, raw: 5 } },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }], native: { format: null } },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ]
  for (const to of ['claude-code', 'codex', 'grok', 'opencode', 'cursor', 'zcode', 'ferry'] as const) {
    const out = tempDir(t)
    const ctx = context({ home: out, diagnostics: new Diagnostics({ stream: null }) })
    let err: unknown = null
    try {
      await pipeline(Readable.from(recs, { objectMode: true }), sink(to, { ctx, ...(to === 'ferry' ? { out } : to === 'zcode' ? { out: join(out, 'z.sqlite') } : {}) }))
    } catch (e) {
      err = e
    }
    t.equal(err, null, `${to}: ${String((err as Error)?.stack ?? '')}`)
  }
})

t.test('defect 13: a newline in an id or cwd cannot forge a line of the written report', async (t) => {
  const out = tempDir(t)
  const sid = 'ferry:a\nclaude-code\tforged\t/etc/passwd'
  const stream = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'a\nb', cwd: '/home/dev/app\nx' },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ]
  const r = await ferry(['write', '--to', 'ferry', '--out', out], { input: stream.map((x) => JSON.stringify(x)).join('\n') + '\n' })
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stdout.trim().split('\n').length, 1, r.stdout)
})

t.test('defect 11: a rollback-journal database held by an exclusive writer is one located db-error, not a read of uncommitted pages', async (t) => {
  const { openReadOnly } = await import('../../lib/io/sqlite-readonly.js')
  const dir = tempDir(t)
  const path = join(dir, 'x.db')
  const w = new Database(path)
  w.pragma('journal_mode = DELETE')
  w.exec('CREATE TABLE t (v TEXT); INSERT INTO t VALUES (1)')
  const free = openReadOnly(path, { source: 'test' })
  t.equal(free.mode, 'immutable', 'unlocked: immutable as before')
  free.close()
  // The journal in memory: no -journal file tells a reader that a writer holds the database.
  w.pragma('locking_mode = EXCLUSIVE')
  w.pragma('journal_mode = MEMORY')
  w.exec('BEGIN; INSERT INTO t VALUES (2); COMMIT')
  let err: unknown = null
  try {
    openReadOnly(path, { source: 'test', busyTimeout: 50, attempts: 2 }).close()
  } catch (e) {
    err = e
  }
  t.match(err, { code: 'db-error', position: { file: path } })
  w.close()
})

t.test('defect 6: a re-run after a run cut between parent and sub-agent completes the store, without a duplicate', async (t) => {
  const { kit, FIXTURE } = await import('../kit.js')
  const { feature: FEATURE_ID, agent: AGENT_ID } = FIXTURE.claudeCode
  const fixtureCopy = (t: Parameters<typeof tempDir>[0]) => kit('claude-code').home(t)
  const { readdirSync, rmSync } = await import('node:fs')
  const ctx = context({ home: fixtureCopy(t), diagnostics: new Diagnostics({ stream: null }) })
  const out = tempDir(t)
  const list = () => readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort()
  await pipeline(await open(`claude-code:${FEATURE_ID}`, { ctx }), sink('claude-code', { ctx, out }))
  const first = list()
  const agent = first.find((p) => p.endsWith(`agent-${AGENT_ID}.jsonl`))!
  t.ok(agent, 'the sub-agent went under its parent')
  rmSync(agent)
  rmSync(agent.replace(/\.jsonl$/, '.meta.json'), { force: true })
  const dest = sink('claude-code', { ctx, out })
  const written: string[] = []
  dest.on('written', (w: { id: string }) => written.push(w.id))
  await t.rejects(pipeline(await open(`claude-code:${FEATURE_ID}`, { ctx }), dest), { code: 'not-written', failures: [{ error: { code: 'exists' } }] })
  t.same(written, [`agent-${AGENT_ID}`], 'only the missing sub-agent is written')
  t.same(list(), first, 'the same files as the uninterrupted run: no duplicate top-level session')
})

t.test('defect 13: an unreadable store file (mode 000) is a located permission error, not "no session"', async (t) => {
  const { spawnSync } = await import('node:child_process')
  const { chmodSync, copyFileSync, mkdirSync, mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  // Root reads a mode-000 file anyway: as root, the CLI runs as `nobody` (setpriv), where that is possible,
  // without the test runner's NODE_OPTIONS hooks (they write into the checkout, which `nobody` may not).
  const asRoot = process.getuid?.() === 0
  if (asRoot && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']).status !== 0) return t.skip('root without setpriv: mode 000 cannot be tested')
  const home = mkdtempSync(join(tmpdir(), 'ferry-m000-'))
  t.teardown(() => spawnSync('rm', ['-rf', home]))
  cpSync(HOME, home, { recursive: true })
  spawnSync('chmod', ['-R', 'a+rwX', home])
  const { FERRY } = await import('../kit.js')
  const asNobody = (argv: string[]) => spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'env', '-u', 'NODE_OPTIONS', ...argv], { encoding: 'utf8', env: { ...process.env, HOME: home } })
  // A node installed under root's home (CI's Node 24 lives in ~/.cache) is out of `nobody`'s reach: run a copy of it.
  let node = process.execPath
  if (asRoot && asNobody([node, '-e', '0']).status !== 0) {
    node = join(home, '.node', 'node')
    mkdirSync(dirname(node), { recursive: true })
    copyFileSync(process.execPath, node)
    chmodSync(node, 0o755)
  }
  if (asRoot && asNobody([node, FERRY, '--version']).status !== 0) return t.skip(`\`nobody\` cannot run ${FERRY}: mode 000 cannot be tested`)
  const run = (args: string[]) => {
    const argv = [node, FERRY, ...args]
    const r = asRoot ? asNobody(argv) : spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' })
    return { code: r.status, stderr: r.stderr, stdout: r.stdout }
  }
  const cases: Array<[string, string, string[]]> = [
    ['opencode', '.local/share/opencode/opencode.db', ['ls', '--home', home, '--harness', 'opencode']],
    ['zcode', '.zcode/cli/db/db.sqlite', ['ls', '--home', home, '--harness', 'zcode']],
    ['codex', '.codex/sessions/2026/11/02/rollout-2026-11-02T09-15-00-019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b.jsonl', ['cat', '--home', home, '--from', 'codex']],
    ['grok', '.grok/sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17/updates.jsonl', ['cat', '--home', home, '--from', 'grok']],
    // File-per-session stores list a session they cannot read (with a warning) and fail when it is read.
    ['claude-code', '.claude/projects/-home-dev-demo-app/0b9e6c1a-4d2f-4a8b-9c1d-00000000de00.jsonl', ['cat', '--home', home, '--from', 'claude-code']],
    ['cursor', '.cursor/projects/home-dev-demo-app/agent-transcripts/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93.jsonl', ['cat', '--home', home, '--from', 'cursor']],
  ]
  for (const [h, rel, args] of cases) {
    const file = join(home, rel)
    chmodSync(file, 0o000)
    const r = run(args)
    chmodSync(file, 0o666)
    t.equal(r.code, 1, `${h}: exit 1`)
    // An empty listing after the store failed is not "no sessions found": it says why it is empty.
    if (args[0] === 'ls') t.match(r.stderr, /^ferry: no sessions listed: [1-9]\d* error\(s\) reported above \(stores looked at: /m, `${h}: ls says why it lists nothing (on stderr, #46)`)
    const esc = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    t.match(r.stderr, new RegExp(`^ferry: error: ${h}:unreadable: ${esc}: .*permission denied \\(EACCES\\)$`, 'm'), `${h}: located, coded: ${r.stderr}`)
    for (const line of r.stderr.split('\n').filter((l) => l.includes(file))) t.equal(line.split(file).length - 1, 1, `${h}: the path once per line: ${line}`)
    // The summary comes last and counts the error that ended the run.
    const lines = r.stderr.trimEnd().split('\n')
    if (/error\(s\)/.test(r.stderr)) t.match(lines.at(-1), /^ferry: [1-9]\d* error\(s\)/, `${h}: the summary is last and counts the error`)
  }
})

t.test('defect 13: the snapshot fallback copies a database once per run, not once per session, and again once it changed', async (t) => {
  const { openReadOnly } = await import('../../lib/io/sqlite-readonly.js')
  const { writeFileSync, copyFileSync } = await import('node:fs')
  const dir = tempDir(t)
  const path = join(dir, 'x.db')
  const w = new Database(path)
  w.pragma('journal_mode = DELETE')
  w.exec('CREATE TABLE t (v TEXT); INSERT INTO t VALUES (1)')
  w.close()
  // A lone -journal (a writer that crashed mid-transaction leaves one) sends the open to the snapshot copy.
  copyFileSync(path, `${path}-journal`)
  const a = openReadOnly(path, { source: 'test' })
  const b = openReadOnly(path, { source: 'test' })
  t.equal(a.mode, 'snapshot')
  t.equal(b.mode, 'snapshot')
  t.equal(a.db.name, b.db.name, 'the second open reuses the first copy')
  t.same(b.db.prepare('SELECT v FROM t').all(), [{ v: '1' }])
  a.close()
  b.close()
  writeFileSync(`${path}-journal`, Buffer.alloc(1024, 1))
  const c = openReadOnly(path, { source: 'test' })
  t.not(c.db.name, a.db.name, 'a changed journal gets a fresh copy')
  c.close()
})
