/**
 * `convert --jobs N` (issue #20): sessions written by worker threads give the
 * same files, the same reports and the same diagnostics and exit code as
 * the sequential run; a bad session costs only itself; a bad --jobs is a
 * usage error; background commits report in input order. (kill -9, SIGINT
 * and SIGTERM during --jobs 2: kill-durability.test.ts.)
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEMP_PREFIX } from '../../lib/io/atomic.js'
import { ferry, gen as generate, tempDir } from '../kit.js'

const gen = (home: string, harness: string, sessions: number, seed: string) => generate(home, { harness, sessions, lines: 12, seed })

/** A written file with its stream header's created_at (the time of the run) blanked. */
const content = (file: string): string => readFileSync(file, 'utf8').replace(/^(\{"kind":"stream"[^\n]*?)"created_at":"[^"]*"/, '$1"created_at":""')
const finals = (dir: string): string[] => readdirSync(dir).filter((f) => !f.startsWith(TEMP_PREFIX)).sort()
const lines = (s: string): string[] => s.split('\n').filter(Boolean)

function sameFiles(t: { same: (a: unknown, b: unknown, m?: string) => void }, a: string, b: string): void {
  t.same(finals(a), finals(b), 'the same files')
  const differ = finals(a).filter((f) => content(join(a, f)) !== content(join(b, f)))
  t.same(differ, [], 'each byte for byte the same')
}

t.test('--jobs 2 writes what --jobs 1 writes: files, report lines, JSON reports, with transforms', async (t) => {
  const home = tempDir(t, 'ferry-jobs-')
  gen(home, 'claude', 40, 'jobs-same')
  gen(home, 'codex', 10, 'jobs-same-codex')
  for (const extra of [[], ['--redact', '--truncate', '--tool-output 200']]) {
    const one = join(home, `one${extra.length}`) + '/'
    const two = join(home, `two${extra.length}`) + '/'
    const base = ['--home', home, 'convert', '--from', 'claude-code', '--from', 'codex', '--to', 'ferry', ...extra]
    const a = await ferry([...base, '--out', one, '--jobs', '1'], { timeout: 120_000 })
    const b = await ferry([...base, '--out', two, '--jobs', '2'], { timeout: 120_000 })
    t.equal(a.code, 0, a.stderr)
    t.equal(b.code, 0, b.stderr)
    t.equal(finals(two).length, 50, 'one file a session')
    sameFiles(t, one, two)
    const rel = (s: string, dir: string) => lines(s).map((l) => l.replace(dir, '')).sort()
    t.same(rel(b.stdout, two), rel(a.stdout, one), 'the same report lines (as sessions complete, so compared as sets)')
    t.equal(b.stderr, a.stderr, 'the same stderr')
  }
  const j = await ferry(['--home', home, 'convert', '--from', 'codex', '--to', 'ferry', '--out', join(home, 'json') + '/', '--jobs', '3', '--json'], { timeout: 120_000 })
  t.equal(j.code, 0, j.stderr)
  const reports = lines(j.stdout).map((l) => JSON.parse(l) as { harness: string; path: string; from: string })
  t.equal(reports.length, 10, 'one JSON report a session')
  t.ok(reports.every((r) => r.harness === 'ferry' && r.from.startsWith('codex:') && r.path.endsWith('.ferry.jsonl')), 'each names what was written from what')
})

t.test('--jobs 2: a broken session and an existing one are reported as in a sequential run; the others are written', async (t) => {
  if (spawnSync('zstd', ['--version']).status !== 0) return t.skip('zstd not installed: cannot build a .zst fixture')
  const home = tempDir(t, 'ferry-jobs-bad-')
  gen(home, 'codex', 12, 'jobs-bad')
  const rollouts: string[] = []
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : rollouts.push(join(d, e.name))
  }
  walk(join(home, '.codex', 'sessions'))
  rollouts.sort()
  // The fifth compressed, then cut in the middle of its frame.
  const mid = rollouts[4]!
  const z = spawnSync('zstd', ['-q', '-c', mid]).stdout as Buffer
  writeFileSync(`${mid}.zst`, z.subarray(0, Math.floor(z.length / 2)))
  rmSync(mid)
  const run = async (jobs: string, out: string) => {
    // The first session is there already: `exists`, without --force.
    const first = await ferry(['convert', rollouts[0]!, '--to', 'ferry', '--out', out], { timeout: 60_000 })
    t.equal(first.code, 0, first.stderr)
    return ferry(['--home', home, 'convert', '--from', 'codex', '--to', 'ferry', '--out', out, '--jobs', jobs], { timeout: 120_000 })
  }
  const one = join(home, 'one') + '/'
  const two = join(home, 'two') + '/'
  const a = await run('1', one)
  const b = await run('2', two)
  t.equal(a.code, 1, 'sequential: exit 1')
  t.equal(b.code, 1, 'parallel: exit 1')
  // Sorted, and the summary's counts too: with workers, problems are met in the order sessions complete.
  const errs = (s: string, dir: string) =>
    lines(s)
      .map((l) => l.replace(dir, '').replace(/^(ferry: \d+ error\(s\), \d+ warning\(s\): )(.*)$/, (_m, head: string, list: string) => head + list.split(', ').sort().join(', ')))
      .sort()
  t.same(errs(b.stderr, two), errs(a.stderr, one), `the same diagnostics:\n${b.stderr}`)
  t.match(b.stderr, /ferry: error: .*\.jsonl\.zst:\d+ \(byte \d+\): zstd: /, 'the cut file located')
  t.match(b.stderr, /exists/, 'the existing session reported')
  t.notMatch(b.stderr, /\n\s+at /, 'no stack trace')
  t.equal(finals(two).length, 11, 'every other session written')
  sameFiles(t, one, two)
  t.notOk(readdirSync(two).some((f) => f.startsWith(TEMP_PREFIX)), 'no temp file left')
})

t.test('--jobs: a positive whole number, else exit 2 before anything is written', async (t) => {
  const home = tempDir(t, 'ferry-jobs-usage-')
  gen(home, 'claude', 3, 'jobs-usage')
  for (const bad of ['0', '-1', '1.5', 'many']) {
    const out = join(home, `o${bad}`) + '/'
    const r = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--jobs', bad])
    t.equal(r.code, 2, `--jobs ${bad}: exit 2`)
    t.match(r.stderr, /^ferry: .*--jobs/m, 'a one-line message naming --jobs')
    t.throws(() => readdirSync(out), 'nothing written')
  }
  // A stream to stdout is one stream: --jobs does not split it, the records come in order.
  const seq = await ferry(['--home', home, 'cat', '--from', 'claude-code'])
  const conv = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', '-', '--jobs', '4'])
  t.equal(conv.code, 0, conv.stderr)
  const strip = (s: string) => lines(s).filter((l) => !l.startsWith('{"kind":"stream"'))
  t.same(strip(conv.stdout), strip(seq.stdout), 'to stdout: the same records, in order')
})

t.test('commits fsynced in the background: reports in input order, a session met twice is written once and reported `exists`', async (t) => {
  const home = tempDir(t, 'ferry-bg-')
  generate(home, { harness: 'claude', sessions: 40, lines: 10, seed: 'bg-commit' })
  const all = await ferry(['--home', home, 'cat', '--from', 'claude-code'], { timeout: 120_000 })
  t.equal(all.code, 0, all.stderr)
  // The stream with its 7th session given twice in a row: the copy arrives while the first may still be syncing,
  // and must find its name taken either way (checked at open, or by the no-clobber link).
  const lines = all.stdout.split('\n').filter(Boolean)
  const starts = lines.flatMap((l, i) => (l.startsWith('{"kind":"session"') ? [i] : []))
  const seventh = lines.slice(starts[6], starts[7])
  const input = [...lines.slice(0, starts[7]), ...seventh, ...lines.slice(starts[7])].join('\n') + '\n'
  const out = join(home, 'out') + '/'
  const r = await ferry(['convert', '-', '--to', 'ferry', '--out', out], { input, timeout: 120_000 })
  t.equal(r.code, 1, 'exit 1: one session was not written')
  const sid = JSON.parse(seventh[0]!).sid as string
  t.match(r.stderr, new RegExp(`ferry:exists: .*${sid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), 'the repeated session is reported as existing')
  const reported = r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[1])
  const order = starts.map((i) => (JSON.parse(lines[i]!).native_id as string))
  t.same(reported, order, 'one report a session, in the order of the input')
  t.equal(finals(out).length, starts.length, 'one file a session')
  t.notOk(readdirSync(out).some((f) => f.startsWith(TEMP_PREFIX)), 'no temp file left')
})
