// Many small sessions (issue #20): 10,000 generated Claude Code sessions
// (~800 MB; 1,000 with --quick), the shape of a real long history.
//   - the baseline loop (split2 + JSON.parse + JSON.stringify) over the same files, one after the other;
//   - `ferry convert --from claude-code --to ferry --out DIR` (target ≥ 0.9× that loop);
//   - `ferry ls` cold (FERRY_NO_CACHE=1) and warm (the discovery cache), and `ferry ls --json | head -1`
//     (seconds; the ratio is to 1 s, the target);
//   - `ferry ls` open/stat syscalls per session (strace -c, when strace is installed).
// The baseline is bench/baseline.mjs --list over the same files.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const name = 'sessions'

const self = fileURLToPath(import.meta.url)


/** Seconds until the first line of `ferry ls --json` arrives and the pipe is closed (as `| head -1` does). */
function firstLine(root, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, [join(root, 'bin', 'ferry.js'), ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
    let got = false
    child.stdout.on('data', () => {
      if (got) return
      got = true
      child.stdout.destroy()
    })
    child.on('error', reject)
    child.on('close', () => resolve(Number(process.hrtime.bigint() - t0) / 1e9))
  })
}

/** open/openat and stat-family calls of one `ferry ls` run, from strace -c -f. */
function syscalls(root, args) {
  const out = join(dirname(self), '..', 'out', `strace-${process.pid}.txt`)
  const r = spawnSync('strace', ['-f', '-c', '-o', out, process.execPath, join(root, 'bin', 'ferry.js'), ...args], { stdio: 'ignore' })
  if (r.error || r.status !== 0) return undefined
  const text = readFileSync(out, 'utf8')
  rmSync(out, { force: true })
  const count = (re) => text.split('\n').filter((l) => re.test(l.trim().split(/\s+/).pop() ?? '')).reduce((s, l) => s + Number(l.trim().split(/\s+/)[3] ?? 0), 0)
  return { open: count(/^open(at)?$/), stat: count(/^(statx|newfstatat|fstat|stat|lstat)$/) }
}

export default async function (b) {
  const n = b.quick ? 1000 : 10000
  const home = await b.gen(['--harness', 'claude', '--sessions', String(n), '--lines-per-session', '20'])
  const files = b.findFiles(join(home, '.claude', 'projects'), /\.jsonl$/)
  const bytes = files.reduce((s, f) => s + b.size(f), 0)
  const list = join(b.outDir, 'sessions-files.txt')
  writeFileSync(list, files.join('\n') + '\n')
  const label = `${files.length} Claude Code sessions, ${(bytes / 1e6).toFixed(0)} MB`
  const base = await b.script(`baseline loop over the files: ${label}`, join(dirname(self), '..', 'baseline.mjs'), ['--list', list], { bytes })
  // A real HOME has a cache folder; ferry would make one under the given home anyway (discovery-cache.ts).
  mkdirSync(join(home, '.cache'), { recursive: true })
  const out = join(b.outDir, 'sessions-export')
  const clean = () => rmSync(out, { recursive: true, force: true })
  // Each convert run starts with no discovery cache (the one the run before left would skip the discovery being measured).
  const fresh = () => {
    clean()
    rmSync(join(home, '.cache', 'ferry'), { recursive: true, force: true })
  }
  // A trailing slash: a folder of one file per session (the row). Without it a path that does not exist is
  // one interchange file for all of them (sink-run.ts outKind), which skips the per-session cost being measured.
  const conv = await b.ferry(`convert --from claude-code --to ferry --out DIR/: ${label}`, ['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out + '/'], { bytes, before: fresh })
  b.ratio('sessions: convert --from claude-code --to ferry', conv.mbs / base.mbs, 'MB/s vs the loop over the same files', { rss: conv.rssKiB / base.rssKiB })
  clean()
  // Cold: every head and tail read and parsed (no cache), as the first listing ever.
  const cold = await b.ferry(`ferry ls, no cache (FERRY_NO_CACHE=1): ${label}`, ['--home', home, 'ls'], { env: { FERRY_NO_CACHE: '1' }, note: 'cold' })
  b.ratio('sessions: ferry ls, no cache', 1 / cold.seconds, 'target seconds (1 s) / seconds taken (no floor: the first listing)')
  // Warm: the discovery cache that convert's discovery left (every later listing).
  const ls = await b.ferry(`ferry ls: ${label}`, ['--home', home, 'ls'], { note: 'discovery cache warm' })
  b.ratio('sessions: ferry ls', 1 / ls.seconds, 'target seconds (1 s) / seconds taken')
  const first = await firstLine(b.root, ['--home', home, 'ls', '--json'])
  b.report('ferry ls --json | head -1', `${first.toFixed(2)} s to the first line`)
  b.ratio('sessions: ferry ls --json | head -1', 1 / first, 'target seconds (1 s) / seconds taken')
  // Issue #49: `ls --json` with a --home whose cache folder is missing (the first listing, which leaves a cache
  // where ferry can write one), then again (warm).
  const noCache = () => rmSync(join(home, '.cache'), { recursive: true, force: true })
  const coldJson = await b.ferry(`ferry ls --json, --home without .cache: ${label}`, ['--home', home, 'ls', '--json'], { before: noCache, note: 'cold' })
  b.ratio('sessions: ferry ls --json cold', 1.5 / coldJson.seconds, 'target seconds (1.5 s) / seconds taken')
  const warmJson = await b.ferry(`ferry ls --json after it: ${label}`, ['--home', home, 'ls', '--json'], { note: 'warm where the cold run left a cache' })
  b.ratio('sessions: ferry ls --json warm', 0.3 / warmJson.seconds, 'target seconds (0.3 s) / seconds taken')
  mkdirSync(join(home, '.cache'), { recursive: true })
  const sc = syscalls(b.root, ['--home', home, 'ls'])
  if (sc) b.report('ferry ls syscalls per session', `${(sc.open / files.length).toFixed(1)} open, ${(sc.stat / files.length).toFixed(1)} stat (${sc.open} / ${sc.stat} in all)`)
}
