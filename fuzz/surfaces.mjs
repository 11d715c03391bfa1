// The fault campaign of #47, beyond the line readers of campaign.mjs: real `ferry` processes against
// damaged archives and exports, another program's and a newer ferry's database, SQLite faults on the
// database stores, writers into symlinked targets, signals during export, and adversarial queries and
// text. Each run counts what went wrong, in campaign.mjs's columns plus one:
//   crashes  an `internal` error or a stack trace on stderr, or a death by a signal we did not send
//   hangs    a run that did not end within its bound
//   lost     good records missing from an export of a damaged archive (rows on undamaged pages)
//   changed  a database ferry was told not to change (a source store, a foreign or newer database)
//   partial  a `.ferry-tmp-*` file left by a run that ended
//   escapes  a file written outside the store root, through a symlink
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { dbState, HOME, judge, rng, run, sha, temps } from './proc.mjs'
import { MUTANT_SCENARIOS } from './mutants.mjs'
import { TARGET_SCENARIOS } from './targets.mjs'
import { closeRender, RENDER_SCENARIOS } from './render.mjs'

async function archivedHome(dir) {
  const home = join(dir, 'home')
  rmSync(home, { recursive: true, force: true })
  cpSync(HOME, home, { recursive: true })
  await run(['--home', home, 'archive'])
  return { home, db: join(home, '.local/share/ferry/archive.db') }
}

/** The scenarios, each one run: (random, dir, counts, notes) → Promise. */
export const SCENARIOS = {
  async 'archive: damaged pages → export, cat --archive'(rand, dir, counts, notes) {
    const { home, db } = await archivedHome(dir)
    const d = new Database(db)
    d.pragma('wal_checkpoint(TRUNCATE)')
    d.pragma('journal_mode = DELETE')
    const total = d.prepare('SELECT count(*) AS n FROM records').get().n
    const sid = d.prepare('SELECT sid FROM sessions ORDER BY sid LIMIT 1').get().sid
    d.close()
    const buf = readFileSync(db)
    const page = 16384
    const pages = Math.floor(buf.length / page)
    const p = 1 + Math.floor(rand() * (pages - 1))
    const n = 1 + Math.floor(rand() * 64)
    for (let k = 0; k < n; k++) buf[p * page + Math.floor(rand() * page)] ^= 1 << Math.floor(rand() * 8)
    writeFileSync(db, buf)
    const out = join(dir, 'export')
    rmSync(out, { recursive: true, force: true })
    const e = await run(['--home', home, 'export', '--format', 'jsonl', '--out', out, '--json'])
    judge(counts, notes, 'export', e)
    if (e.code === 0 && e.stdout.trim()) {
      const got = JSON.parse(e.stdout).records
      if (got < total && !/bad-row|db-error/.test(e.stderr)) {
        counts.lost += total - got
        notes.push(`export: ${total - got} records missing without a report`)
      }
    }
    counts.partial += temps(out).length
    judge(counts, notes, 'cat --archive', await run(['--home', home, 'cat', '--archive', sid]))
  },
  async 'archive: a foreign, newer or table-less database is left untouched'(rand, dir, counts, notes) {
    const { home, db } = await archivedHome(dir)
    const kind = Math.floor(rand() * 4)
    const d = new Database(db)
    if (kind === 0) d.exec('DROP TABLE records')
    else if (kind === 1) d.exec("UPDATE meta SET value = '99' WHERE key = 'schema'")
    else if (kind === 2) d.exec("UPDATE meta SET value = 'three' WHERE key = 'schema'")
    else d.exec('DROP TABLE sessions; DROP TABLE records; DROP TABLE meta; DROP TABLE fts; CREATE TABLE notes (body TEXT)')
    d.pragma('journal_mode = DELETE')
    d.close()
    const before = dbState(db)
    const r = await run(['--home', home, 'archive'])
    judge(counts, notes, `archive on kind ${kind}`, r)
    if (dbState(db) !== before) {
      counts.changed++
      notes.push(`archive changed a database it should have refused (kind ${kind})`)
    }
  },
  async 'stores: junk -wal, zeroed -shm, flipped pages in OpenCode and ZCode databases'(rand, dir, counts, notes) {
    const home = join(dir, 'home')
    rmSync(home, { recursive: true, force: true })
    cpSync(HOME, home, { recursive: true })
    const dbs = [join(home, '.local/share/opencode/opencode.db'), join(home, '.zcode/cli/db/db.sqlite')].filter((f) => existsSync(f))
    for (const f of dbs) {
      const op = Math.floor(rand() * 3)
      if (op === 0) {
        writeFileSync(`${f}-wal`, Buffer.alloc(4096 + Math.floor(rand() * 65536), 0x5a))
        writeFileSync(`${f}-shm`, Buffer.alloc(32768))
      } else if (op === 1) {
        const b = readFileSync(f)
        for (let k = 0; k < 16; k++) b[100 + Math.floor(rand() * (b.length - 100))] ^= 0xff
        writeFileSync(f, b)
      } else writeFileSync(`${f}-journal`, Buffer.alloc(512, 0x11))
    }
    const before = dbs.map(dbState)
    judge(counts, notes, 'ls', await run(['--home', home, 'ls', '--json'], { timeout: 45_000 }))
    for (const h of ['opencode', 'zcode']) judge(counts, notes, `cat ${h}`, await run(['--home', home, 'cat', '--from', h], { timeout: 45_000 }))
    dbs.forEach((f, i) => {
      if (dbState(f) !== before[i]) {
        counts.changed++
        notes.push(`${f} changed by reading it`)
      }
    })
  },
  async 'writers: symlinks inside the target store leading out'(rand, dir, counts, notes) {
    const outside = join(dir, 'outside')
    rmSync(outside, { recursive: true, force: true })
    mkdirSync(outside)
    const target = join(dir, 'target')
    rmSync(target, { recursive: true, force: true })
    const layouts = [
      ['claude-code', () => (mkdirSync(join(target, '.claude'), { recursive: true }), symlinkSync(outside, join(target, '.claude/projects')))],
      ['codex', () => (mkdirSync(join(target, '.codex/sessions'), { recursive: true }), symlinkSync(outside, join(target, '.codex/sessions/2026')))],
      ['zcode', () => (mkdirSync(join(target, '.zcode/cli'), { recursive: true }), symlinkSync(outside, join(target, '.zcode/cli/db')))],
    ]
    const [to, lay] = layouts[Math.floor(rand() * layouts.length)]
    lay()
    const input = (await run(['--home', HOME, 'cat', 'codex:019a3c1e'])).stdout
    const r = await run(['write', '--to', to, '--home', target], { input })
    judge(counts, notes, `convert --to ${to}`, r)
    const esc = readdirSync(outside, { recursive: true })
    if (esc.length) {
      counts.escapes += esc.length
      notes.push(`convert --to ${to} wrote outside its root: ${esc.join(', ')}`)
    }
  },
  async 'export: SIGINT at a random moment, then a re-run'(rand, dir, counts, notes) {
    const { home } = await archivedHome(dir)
    const out = join(dir, 'export')
    rmSync(out, { recursive: true, force: true })
    const r = await run(['--home', home, 'export', '--format', rand() < 0.5 ? 'jsonl' : 'parquet', '--out', out], { signalAfter: 50 + Math.floor(rand() * 1500) })
    judge(counts, notes, 'export under SIGINT', r, { signalled: true })
    const left = temps(out)
    if (left.length) {
      counts.partial += left.length
      notes.push(`SIGINT left ${left.join(', ')}`)
    }
  },
  async 'search and redact: adversarial input under a bound'(rand, dir, counts, notes) {
    const { home } = await archivedHome(dir)
    const term = ['npm', '"', '*', 'NEAR(', '-x', '^', 'a OR', '(((('][Math.floor(rand() * 8)]
    const q = Array(1000 + Math.floor(rand() * 9000)).fill(term).join(' ')
    judge(counts, notes, 'search', await run(['--home', home, 'search', '--', q], { timeout: 30_000 }))
    const unit = ['password=', 'token: ', 'AKIA', 'sk-', '-----BEGIN '][Math.floor(rand() * 5)]
    judge(counts, notes, 'redact', await run(['redact', '--text'], { input: unit.repeat(100_000 + Math.floor(rand() * 200_000)), timeout: 30_000 }))
  },
  ...MUTANT_SCENARIOS,
  ...TARGET_SCENARIOS,
  ...RENDER_SCENARIOS,
}

/**
 * Runs every scenario (or those whose name contains one of `only`) `runs` times with `seed`; returns
 * the totals, the totals per scenario and the failures seen.
 */
export async function surfaces({ runs, seed, onProgress, only = [] }) {
  const totals = { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0, escapes: 0 }
  const failures = []
  const perScenario = {}
  const dir = mkdtempSync(join(tmpdir(), 'ferry-fuzz-surfaces-'))
  const before = sha(join(HOME, '.local/share/opencode/opencode.db')) + sha(join(HOME, '.zcode/cli/db/db.sqlite'))
  try {
    for (const [name, fn] of Object.entries(SCENARIOS)) {
      if (only.length && !only.some((o) => name.includes(o))) continue
      const rand = rng(seed + name.length)
      perScenario[name] = { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0, escapes: 0 }
      for (let i = 0; i < runs; i++) {
        const counts = { inputs: 1, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0, escapes: 0 }
        const notes = []
        try {
          await fn(rand, dir, counts, notes)
        } catch (err) {
          counts.crashes++
          notes.push(`the scenario itself failed: ${err?.stack ?? err}`)
        }
        for (const k of Object.keys(totals)) (totals[k] += counts[k]), (perScenario[name][k] += counts[k])
        if (notes.length) failures.push({ target: name, mutation: { run: i }, notes })
        onProgress?.(totals)
      }
    }
  } finally {
    await closeRender()
    rmSync(dir, { recursive: true, force: true })
  }
  if (sha(join(HOME, '.local/share/opencode/opencode.db')) + sha(join(HOME, '.zcode/cli/db/db.sqlite')) !== before) totals.changed++
  return { totals, failures, perScenario }
}
