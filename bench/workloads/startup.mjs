// Short commands (issue #49): how long a person waits for `ferry --version`, `--help`, `ls --help` and
// `ferry search X`, next to `node -e 0` on the same Node in the same minute. Each command runs 11 times
// (5 with --quick), interleaved with the others, without the RSS probe (a preload would add the same
// start-up cost to both sides of the ratio); the rows give the median wall seconds and, where
// /usr/bin/time is installed, the median CPU seconds. Targets: every short command ≤ 2× `node -e 0`;
// `ferry ls --archive -n 5` ≤ 0.3 s; `ferry search X` ≤ 2× `node -e 0` + the query, the query being
// the library's `search` call timed inside a process that has already started (the first call, as the CLI makes it), on an archive of
// the sessions workload's 10,000 generated Claude Code sessions (1,000 with --quick; the archive is
// built once and cached under out/, about 45 CPU-s for 10,000).
// Run as a script with --query DB, it is the measured helper itself.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const name = 'startup'

const self = fileURLToPath(import.meta.url)
const root = join(dirname(self), '..', '..')
const WORD = 'npm'

/** The first search of a fresh process on `db`, in ms (library call; opening the archive included). */
async function queryMs(db) {
  const { openArchive } = await import(pathToFileURL(join(root, 'dist/lib/archive/store/db.js')).href)
  const { search } = await import(pathToFileURL(join(root, 'dist/lib/archive/search.js')).href)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const d = openArchive(db, { readonly: true })
  const hits = search(d, WORD, { limit: 20 }).length
  d.close()
  const c = process.cpuUsage(c0)
  process.stdout.write(JSON.stringify({ ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, hits }) + '\n')
}

if (process.argv[1] === self) {
  const q = process.argv.indexOf('--query')
  if (q > 0) await queryMs(process.argv[q + 1])
}

const hasTime = spawnSync('/usr/bin/time', ['-f', '%e', 'true']).status === 0

/** One run: wall seconds (and CPU seconds through /usr/bin/time), stdout discarded. */
function once(cmd, args) {
  if (!hasTime) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(cmd, args, { stdio: 'ignore', cwd: root })
    return { wall: Number(process.hrtime.bigint() - t0) / 1e9, code: r.status }
  }
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], cwd: root, encoding: 'utf8' })
  const [e, u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { wall: e, cpu: u + s, code: r.status }
}

const median = (xs) => {
  const s = xs.filter((x) => x !== undefined).sort((a, b) => a - b)
  return s.length ? s[s.length >> 1] : undefined
}

export default async function (b) {
  // The sessions workload's data (the same generator arguments, so it is generated once for both).
  const sessions = b.quick ? 1000 : 10000
  const home = await b.gen(['--harness', 'claude', '--sessions', String(sessions), '--lines-per-session', '20'])
  const db = join(b.outDir, `startup-archive-${sessions}.db`)
  if (!existsSync(db)) await b.ferry(`archive of ${sessions} sessions (for search)`, ['--home', home, 'archive', '--db', db], { note: 'setup' })
  const query = JSON.parse((await b.script('the query alone (library search call)', self, ['--query', db], { capture: true })).stdout.trim().split('\n').pop())
  const ferry = join(b.root, 'bin', 'ferry.js')
  const cmds = [
    ['node -e 0', ['-e', '0']],
    ['ferry --version', [ferry, '--version']],
    ['ferry --help', [ferry, '--help']],
    ['ferry ls --help', [ferry, 'ls', '--help']],
    [`ferry search ${WORD} (${sessions}-session archive)`, [ferry, 'search', '--db', db, WORD]],
    [`ferry ls --archive -n 5 (${sessions}-session archive)`, [ferry, 'ls', '--archive', '--db', db, '-n', '5']],
  ]
  const n = b.quick ? 5 : 11
  const runs = cmds.map(() => [])
  // Once each first: Node's compile cache (Node ≥ 22.1) is filled by a first run, as after any install.
  for (const [, args] of cmds) once(process.execPath, args)
  for (let i = 0; i < n; i++) cmds.forEach(([, args], j) => runs[j].push(once(process.execPath, args)))
  const res = runs.map((rs) => ({ wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)), failed: rs.filter((r) => r.code !== 0 && r.code !== 1).length }))
  cmds.forEach(([label], j) => b.report(label, `${res[j].wall.toFixed(3)} s${res[j].cpu === undefined ? '' : `, ${res[j].cpu.toFixed(2)} CPU-s`} (median of ${n})${res[j].failed ? `, ${res[j].failed} run(s) failed` : ''}`))
  b.report('the query', `${query.ms.toFixed(1)} ms, ${query.hits} hits`)
  const node = res[0].wall
  for (const j of [1, 2, 3]) b.ratio(`startup: ${cmds[j][0]}`, (2 * node) / res[j].wall, '2 × node -e 0 / seconds taken (target ≥ 1)')
  b.ratio('startup: ferry search X', (2 * node + query.ms / 1000) / res[4].wall, '(2 × node -e 0 + the query) / seconds taken (target ≥ 1)')
  b.ratio('startup: ferry ls --archive -n 5', 0.3 / res[5].wall, 'target seconds (0.3 s) / seconds taken (issue #49)')
  // The same in CPU seconds (no floor): on a loaded machine the wall ratios mostly measure the scheduler.
  if (res[0].cpu) {
    for (const j of [1, 2, 3]) b.ratio(`startup: ${cmds[j][0]} (CPU)`, (2 * res[0].cpu) / res[j].cpu, '2 × node -e 0 / CPU seconds taken')
    b.ratio('startup: ferry search X (CPU)', (2 * res[0].cpu + query.cpuMs / 1000) / res[4].cpu, '(2 × node -e 0 + the query) / CPU seconds taken')
  }
}
