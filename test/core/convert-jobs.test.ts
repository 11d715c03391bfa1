/**
 * `convert --jobs N` (issue #20): sessions written by worker threads give the
 * same files, the same reports and the same diagnostics and exit code as
 * the sequential run; a bad session costs only itself; kill -9 leaves only
 * complete sessions under final names; a bad --jobs is a usage error.
 */
import t from 'tap'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEMP_PREFIX } from '../../lib/io/atomic.js'
import { FERRY, ROOT, ferry, tempDir } from '../kit.js'

const GEN = join(ROOT, 'bench', 'gen.mjs')
const gen = (home: string, harness: string, sessions: number, seed: string) =>
  execFileSync(process.execPath, [GEN, '--harness', harness, '--out', home, '--sessions', String(sessions), '--lines-per-session', '12', '--seed', seed, '--quiet'])

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

t.test('kill -9 during convert --jobs 2: no partial session under a final name, and a re-run completes it', async (t) => {
  const home = tempDir(t, 'ferry-jobs-kill-')
  const n = 120
  gen(home, 'claude', n, 'jobs-kill')
  const ref = join(home, 'ref') + '/'
  const full = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', ref, '--jobs', '1'], { timeout: 120_000 })
  t.equal(full.code, 0, full.stderr)
  const out = join(home, 'killed') + '/'
  const child = spawn(process.execPath, [FERRY, '--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--jobs', '2'], { stdio: 'ignore' })
  const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, signal) => res(signal)))
  for (let i = 0; i < 6000 && child.exitCode === null; i++) {
    let seen = 0
    try {
      seen = finals(out).length
    } catch {
      // Not made yet.
    }
    if (seen >= 5) break
    await new Promise((r) => setTimeout(r, 5))
  }
  child.kill('SIGKILL')
  t.equal(await exited, 'SIGKILL', 'killed before it finished')
  const left = finals(out)
  t.ok(left.length > 0 && left.length < n, `${left.length} of ${n} sessions under final names`)
  t.same(left.filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'every one complete, byte for byte')
  t.ok(readdirSync(out).every((f) => left.includes(f) || f.startsWith(TEMP_PREFIX)), 'anything else is a temp file')
  const again = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--force', '--jobs', '2'], { timeout: 120_000 })
  t.equal(again.code, 0, again.stderr)
  t.same(finals(out), finals(ref), 'a re-run with --force completes the export')
})

t.test('SIGINT and SIGTERM during convert --jobs 2: no temp file left, only complete sessions', async (t) => {
  const home = tempDir(t, 'ferry-jobs-int-')
  gen(home, 'claude', 150, 'jobs-int')
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const out = join(home, signal) + '/'
    const child = spawn(process.execPath, [FERRY, '--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--jobs', '2'], { stdio: 'ignore' })
    const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, sig) => res(sig)))
    // Signalled while the workers have files open: some committed, others still temp files.
    for (let i = 0; i < 6000 && child.exitCode === null; i++) {
      let temps = 0
      try {
        temps = readdirSync(out).filter((f) => f.startsWith(TEMP_PREFIX)).length
      } catch {
        // Not made yet.
      }
      if (temps > 0 && finals(out).length >= 3) break
      await new Promise((r) => setTimeout(r, 2))
    }
    child.kill(signal)
    t.equal(await exited, signal, `${signal}: ended by it`)
    t.same(readdirSync(out).filter((f) => f.startsWith(TEMP_PREFIX)), [], `${signal}: no temp file left`)
    t.ok(finals(out).length < 150, `${signal}: stopped before the end (${finals(out).length} written)`)
  }
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
