// Search on a 100,000-session archive (issue #49; 10,000 with --quick): generated Claude Code sessions of
// 4 lines, archived once and kept under bench/out/ (archive-100k.db, with its HOME under out/data/), then
//   - search latency: median of 20 queries (library call, as in the archive workload; target ≤ 50 ms);
//   - `ferry archive` re-run with nothing changed (target ≤ 5 s).
// The first archive is not a measured row here (the archive workload measures that on 10,000 sessions).
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const name = 'archive-100k'

const archiveWorkload = join(dirname(fileURLToPath(import.meta.url)), 'archive.mjs')

export default async function (b) {
  const n = b.quick ? 10000 : 100000
  const home = await b.gen(['--harness', 'claude', '--sessions', String(n), '--lines-per-session', '4', '--seed', 'archive-100k'])
  const db = join(b.outDir, `archive-${n / 1000}k.db`)
  if (!existsSync(db)) {
    // Built under a temporary name, so a run stopped halfway leaves no half archive to be taken as cached.
    const tmp = `${db}.building`
    for (const ext of ['', '-wal', '-shm']) rmSync(tmp + ext, { force: true })
    await b.ferry(`ferry archive (first, cached afterwards): ${n} sessions`, ['--home', home, '--db', tmp, 'archive', '--quiet'])
    renameSync(tmp, db)
    for (const ext of ['-wal', '-shm']) rmSync(tmp + ext, { force: true })
  }
  const s = await b.script(`search: 20 queries on ${n} sessions (library call)`, archiveWorkload, ['--search', db], { capture: true })
  const lat = JSON.parse(s.stdout.trim().split('\n').pop())
  b.report('  search latency', `median ${lat.median_ms.toFixed(1)} ms, max ${lat.max_ms.toFixed(1)} ms, ${lat.hits} hits (target median ≤ 50 ms)`)
  b.ratio(`archive: search median on ${n} sessions`, 50 / lat.median_ms, 'target ms (50) / median ms')
  const rerun = await b.ferry(`ferry archive (re-run, nothing changed): ${n} sessions`, ['--home', home, '--db', db, 'archive', '--quiet'], { note: 'target ≤ 5 s' })
  b.ratio(`archive: re-run of ${n} unchanged sessions`, 5 / rerun.seconds, 'target seconds (5) / seconds taken')
}
