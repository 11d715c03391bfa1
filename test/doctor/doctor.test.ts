// ferry doctor: installed versions against the verified ones, stores, counts, types ferry does not understand; it never writes.
import t from 'tap'
import Database from 'better-sqlite3'
import { appendFileSync, chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, FIXTURES, ferry, kit, sampleHome, tempDir, tree } from '../kit.js'
import { compatTable, lastVerifiedOk, splicedCompat } from '../../lib/doctor/compat-table.js'
import { compareVersions, doctor, doctorHarnesses, failed } from '../../lib/doctor/check.js'

/** An empty PATH but for what the test puts there: no agent of this machine is found. */
const noAgents = (dir: string) => ({ PATH: dir })

t.test('the compatibility table in docs/formats/README.md is the doctor data, and every Last verified line agrees with it', async (t) => {
  const readme = readFileSync(join(ROOT, 'docs/formats/README.md'), 'utf8')
  t.equal(splicedCompat(readme, compatTable()), readme, 'docs/formats/README.md is up to date (npm run docs:formats)')
  for (const h of doctorHarnesses()) {
    const doc = readFileSync(join(ROOT, 'docs/formats', `${h.id}.md`), 'utf8')
    const lines = doc.split('\n').filter((l) => l.startsWith('Last verified:'))
    t.equal(lines.length, 1, `${h.id}: one Last verified line`)
    t.ok(lastVerifiedOk(lines[0] ?? '', h.doctor!.verified), `${h.id}: "${lines[0]}" names ${h.doctor!.verified.date} and ${h.doctor!.verified.versions.join(', ') || 'no client version'}`)
  }
})

t.test('versions compare as numbers', async (t) => {
  t.ok(compareVersions('0.180', '0.171.0') > 0)
  t.ok(compareVersions('0.171.0', '0.171') === 0)
  t.ok(compareVersions('2.1.40', '2.1.332') < 0)
  t.ok(compareVersions('1.0.0-beta.1', '1.0.0') < 0)
})

t.test('the sample stores: every agent listed, the injected future records reported with a location, exit 1, nothing written', async (t) => {
  const home = sampleHome(t)
  // A cache folder exists, so a discovery cache would be written there if doctor kept one.
  mkdirSync(join(home, '.cache'), { recursive: true })
  const before = tree(home)
  const bin = tempDir(t)
  const r = await ferry(['--home', home, 'doctor'], { env: noAgents(bin) })
  t.equal(r.code, 1, 'unknown types: exit 1')
  for (const h of doctorHarnesses()) t.match(r.stdout, `${h.name}: not installed`, `${h.id} listed`)
  t.match(r.stdout, /unknown codex\/ferry_future_record: 1 in 1 session, e\.g\. .*rollout-2026-11-02T09-15-00-019a3c1e-[^:]+\.jsonl:\d+/)
  t.match(r.stdout, /unknown zcode\/ferry-fixture-future-part: 1 in 1 session/)
  t.match(r.stdout, /Claude Code: not installed; ~\/\.claude, 1 session; 1 newest read, all understood/)
  t.same([...tree(home).keys()].sort(), [...before.keys()].sort(), 'no file added or removed under HOME (no cache either)')
  for (const [p, b] of before) t.ok(tree(home).get(p)!.equals(b), `${p} unchanged`)

  const j = await ferry(['--home', home, 'doctor', '--json', '--harness', 'codex'], { env: noAgents(bin) })
  t.equal(j.code, 1)
  const doc = JSON.parse(j.stdout)
  t.equal(doc.ok, false)
  t.equal(doc.agents.length, 1)
  t.match(doc.agents[0], { harness: 'codex', installed: null, status: 'absent', sessions: 1, scanned: 1, unknown: [{ type: 'codex/ferry_future_record', count: 1, sessions: 1 }], unreadable: [] })
})

t.test('a clean store exits 0; one unknown record type injected is named with its file and line, exit 1', async (t) => {
  const home = join(tempDir(t), 'home')
  cpSync(join(FIXTURES, 'home', '.claude'), join(home, '.claude'), { recursive: true })
  const bin = tempDir(t)
  const ok = await ferry(['--home', home, 'doctor', '--harness', 'claude-code'], { env: noAgents(bin) })
  t.equal(ok.code, 0, ok.stdout + ok.stderr)
  t.match(ok.stdout, 'all understood')
  const dir = join(home, '.claude', 'projects')
  const project = join(dir, readdirSync(dir)[0]!)
  const file = join(project, readdirSync(project).find((n) => n.endsWith('.jsonl'))!)
  const n = readFileSync(file, 'utf8').split('\n').filter(Boolean).length
  appendFileSync(file, JSON.stringify({ sessionId: 'x', frobnication: { level: 3 }, type: 'frobnicate-state' }) + '\n')
  const bad = await ferry(['--home', home, 'doctor', '--harness', 'claude-code'], { env: noAgents(bin) })
  t.equal(bad.code, 1)
  t.match(bad.stdout, `unknown claude-code/frobnicate-state: 1 in 1 session, e.g. ${file}:${n + 1}`)
  appendFileSync(file, '{"type":"user","uuid":\n')
  const torn = await ferry(['--home', home, 'doctor', '--harness', 'claude-code', '--json'], { env: noAgents(bin) })
  t.equal(torn.code, 1)
  t.ok(JSON.parse(torn.stdout).agents[0].unreadable.length > 0, 'a broken line is unreadable')
})

t.test('a SQLite store: a table or a column the verified schema does not have is reported; the database is not changed', async (t) => {
  // In process (the exit code and the text are the CLI tests' above).
  const home = join(tempDir(t), 'home')
  cpSync(join(FIXTURES, 'home', '.local', 'share', 'opencode'), join(home, '.local', 'share', 'opencode'), { recursive: true })
  const db = join(home, '.local', 'share', 'opencode', 'opencode.db')
  const ctx = kit('opencode').ctx(home)
  const [ok] = await doctor(ctx, { only: ['opencode'] })
  t.same([ok!.unknown, ok!.unreadable, failed([ok!])], [[], [], false], 'the fixture database: every table known')
  const d = new Database(db)
  d.exec('CREATE TABLE session_v9 (id TEXT PRIMARY KEY, data TEXT); ALTER TABLE part ADD COLUMN state TEXT')
  d.close()
  const before = readFileSync(db)
  const [bad] = await doctor(ctx, { only: ['opencode'] })
  t.same(bad!.unknown, [
    { type: 'opencode/column part.state', count: 1, sessions: 1, example: `${db} (table part)` },
    { type: 'opencode/table session_v9', count: 1, sessions: 1, example: `${db} (table session_v9)` },
  ])
  t.ok(failed([bad!]), 'exit 1')
  t.same(readFileSync(db), before, 'the database is unchanged')
})

t.test('the installed version: from the package beside the program (never run), else from --version', async (t) => {
  const home = join(tempDir(t), 'home')
  mkdirSync(home)
  const root = tempDir(t)
  const bin = join(root, 'bin')
  mkdirSync(bin)
  // An npm install of a newer Codex: the program links into its package; running it would fail.
  const pkg = join(root, 'lib', 'node_modules', '@openai', 'codex')
  mkdirSync(join(pkg, 'bin'), { recursive: true })
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@openai/codex', version: '0.180.0' }))
  writeFileSync(join(pkg, 'bin', 'codex.js'), '#!/bin/sh\nexit 9\n')
  chmodSync(join(pkg, 'bin', 'codex.js'), 0o755)
  symlinkSync(join(pkg, 'bin', 'codex.js'), join(bin, 'codex'))
  // A program without a package: its --version is asked.
  writeFileSync(join(bin, 'grok'), '#!/bin/sh\necho "grok 0.2.103"\n')
  chmodSync(join(bin, 'grok'), 0o755)
  const r = await ferry(['--home', home, 'doctor', '--harness', 'codex', '--harness', 'grok'], { env: { PATH: `${bin}:/usr/bin:/bin` } })
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, 'Codex CLI 0.180.0 is newer than verified (0.171.0); ~/.codex (no store)')
  t.match(r.stdout, 'Grok Build 0.2.103: installed, never verified against a real client')
  const j = JSON.parse((await ferry(['--home', home, 'doctor', '--harness', 'codex', '--json'], { env: { PATH: `${bin}:/usr/bin:/bin` } })).stdout)
  t.match(j.agents[0].installed, { version: '0.180.0', from: 'package' })
  t.equal(j.agents[0].status, 'newer')
})
