// The archive (issue #16): 10,000 generated Claude Code sessions (~800 MB;
// 1,000 with --quick) and one 1 GiB Codex rollout (64 MiB with --quick):
//   - first `ferry archive` (MB/s, peak RSS) next to the baseline loop over the same files;
//   - a re-run with nothing changed (seconds);
//   - a re-run after appending one line to each of 100 sessions;
//   - search latency: median of 20 queries (library call on the archive, and one CLI run);
//   - the database's size next to the sources' (issue #49: at most 0.6 of them);
//   - `ferry ls --archive -n 5` (issue #49: at most 0.3 s);
//   - `ferry export --format parquet` (MB/s of source bytes archived, against the loop; peak RSS against 200 MB).
// Run as a script with --search DB, it is the measured helper itself; the baseline is bench/baseline.mjs --list.
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const name = 'archive'

const self = fileURLToPath(import.meta.url)
const root = join(dirname(self), '..', '..')


const QUERIES = ['error', 'refactor', 'test', '"npm test"', 'config', 'build', 'function', 'import', 'file', 'fix', 'README', 'deploy', 'migration', 'cache', 'docker', 'timeout', 'parser', 'commit', 'lint', 'network']

function dbSize(db) {
  return ['', '-wal'].reduce((n, ext) => n + (existsSync(db + ext) ? statSync(db + ext).size : 0), 0)
}

function removeDb(db) {
  for (const ext of ['', '-wal', '-shm']) rmSync(db + ext, { force: true })
}

async function searchLatency(db) {
  const { openArchive } = await import(pathToFileURL(join(root, 'dist/lib/archive/store/db.js')).href)
  const { search } = await import(pathToFileURL(join(root, 'dist/lib/archive/search.js')).href)
  const d = openArchive(db, { readonly: true })
  const times = []
  let hits = 0
  for (const q of QUERIES) {
    const t0 = process.hrtime.bigint()
    hits += search(d, q, { limit: 20 }).length
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  d.close()
  times.sort((a, b) => a - b)
  process.stdout.write(JSON.stringify({ median_ms: (times[9] + times[10]) / 2, max_ms: times[times.length - 1], hits }) + '\n')
}

if (process.argv[1] === self) {
  const s = process.argv.indexOf('--search')
  if (s > 0) await searchLatency(process.argv[s + 1])
}

export default async function (b) {
  const n = b.quick ? 1000 : 10000
  const home = await b.gen(['--harness', 'claude', '--sessions', String(n), '--lines-per-session', '20'])
  const files = b.findFiles(join(home, '.claude', 'projects'), /\.jsonl$/)
  const bytes = files.reduce((s, f) => s + b.size(f), 0)
  const list = join(b.outDir, 'archive-files.txt')
  writeFileSync(list, files.join('\n') + '\n')
  const label = `${files.length} Claude Code sessions, ${(bytes / 1e6).toFixed(0)} MB`
  const base = await b.script(`baseline loop: ${label}`, join(dirname(self), '..', 'baseline.mjs'), ['--list', list], { bytes })
  const db = join(b.outDir, 'archive-bench.db')
  const first = await b.ferry(`ferry archive (first): ${label}`, ['--home', home, '--db', db, 'archive', '--quiet'], { bytes, before: () => removeDb(db) })
  b.report('  vs baseline', `${((first.mbs / base.mbs) * 100).toFixed(0)}% of baseline speed, ${(first.rssKiB / base.rssKiB).toFixed(2)}x its RSS (target ≥ 80%, RSS ≤ 250 MB)`)
  b.ratio('archive: first archive', first.mbs / base.mbs, 'MB/s vs the loop over the same files')
  b.ceiling('archive: first archive peak RSS / 250 MB', (first.rssKiB * 1024) / 250e6, 'peak RSS vs the 250 MB target')
  const dbBytes = dbSize(db)
  b.report('  archive size', `${(dbBytes / 1e6).toFixed(1)} MB for ${(bytes / 1e6).toFixed(1)} MB of sources: ${(dbBytes / bytes).toFixed(2)}x (target ≤ 0.6x)`)
  b.ceiling('archive: database size / sources', dbBytes / bytes, 'archive file (and WAL) bytes vs the source bytes')
  const rerun = await b.ferry(`ferry archive (re-run, nothing changed)`, ['--home', home, '--db', db, 'archive', '--quiet'], { note: 'target ≤ 2 s for 10,000 sessions' })
  // Discovery alone (what `ferry ls` does over the same store), for how much of the re-run is beyond it.
  const ls = await b.ferry('ferry ls (discovery alone, same store)', ['--home', home, 'ls', '--json'])
  b.report('  re-run beyond discovery', `${(rerun.seconds - ls.seconds).toFixed(2)} s wall, ${((rerun.cpuSeconds ?? 0) - (ls.cpuSeconds ?? 0)).toFixed(2)} CPU-s`)
  b.ratio(`archive: re-run of ${n} unchanged sessions`, (n === 10000 ? 2 : 0.2) / rerun.seconds, 'target seconds (2 s per 10,000 sessions) / seconds taken')
  // One more line in each of 100 sessions (a copy of its last line under a new uuid), before each run.
  const append = () => {
    for (const f of files.slice(0, 100)) {
      const lines = readFileSync(f, 'utf8').trimEnd().split('\n')
      const last = JSON.parse(lines[lines.length - 1])
      last.parentUuid = last.uuid
      last.uuid = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
      appendFileSync(f, JSON.stringify(last) + '\n')
    }
  }
  await b.ferry(`ferry archive (re-run, 100 sessions appended)`, ['--home', home, '--db', db, 'archive', '--quiet'], { before: append })
  const s = await b.script('search: 20 queries (library call)', self, ['--search', db], { capture: true })
  const lat = JSON.parse(s.stdout.trim().split('\n').pop())
  b.report('  search latency', `median ${lat.median_ms.toFixed(1)} ms, max ${lat.max_ms.toFixed(1)} ms, ${lat.hits} hits (target median ≤ 100 ms)`)
  b.ratio('archive: search median of 20 queries', 100 / lat.median_ms, 'target ms (100) / median ms')
  await b.ferry('ferry search (one CLI run, startup included)', ['--db', db, 'search', 'error', '--limit', '20'])
  const lsA = await b.ferry('ferry ls --archive -n 5', ['--db', db, 'ls', '--archive', '-n', '5'], { note: 'target ≤ 0.3 s' })
  b.ratio('archive: ls --archive -n 5', 0.3 / lsA.seconds, 'target seconds (0.3) / seconds taken')
  const out = join(b.outDir, 'archive-export')
  const ex = await b.ferry('ferry export --format parquet', ['--db', db, 'export', '--out', out], { bytes, note: 'MB/s of the archived source bytes', before: () => rmSync(out, { recursive: true, force: true }) })
  b.ratio('archive: export parquet', ex.mbs / base.mbs, 'MB/s of the archived sources vs the loop over them')
  b.ceiling('archive: export parquet peak RSS / 200 MB', (ex.rssKiB * 1024) / 200e6, 'peak RSS vs the 200 MB target')
  rmSync(out, { recursive: true, force: true })

  // One big Codex rollout.
  const size = b.quick ? '64M' : '1G'
  const chome = await b.gen(['--harness', 'codex', '--big', size])
  const rollout = b.findFiles(join(chome, '.codex'), /\.jsonl$/)[0]
  const cbytes = b.size(rollout)
  await b.baseline(`codex rollout ${size}`, rollout)
  const cdb = join(b.outDir, 'archive-bench-codex.db')
  const big = await b.ferry(`ferry archive (first): codex rollout ${size}`, ['--home', chome, '--db', cdb, 'archive', '--quiet'], { bytes: cbytes, before: () => removeDb(cdb) })
  b.ceiling(`archive: codex ${size} rollout peak RSS / 250 MB`, (big.rssKiB * 1024) / 250e6, 'peak RSS vs the 250 MB target')
  for (const d of [db, cdb]) removeDb(d)
}
