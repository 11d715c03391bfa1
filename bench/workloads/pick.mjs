// `ferry pick`'s first screen (issue #50): on the 10,000-session Claude Code
// store of the sessions workload (1,000 with --quick), the seconds until the
// picker shows its first rows and until every session is listed, next to
// `ferry ls | head -1` on the same store (the issue's yardstick: the table
// comes out only after every session is listed and sorted). Both with the
// discovery cache warm, as every listing after the first. The picker runs in
// a real terminal (a tmux window of 80×24, polled every 20 ms); skipped
// without tmux.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'pick'

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Seconds until `ferry ARGS` prints its first bytes (then the pipe is closed, as `| head -1` does). */
function firstOutput(root, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, [join(root, 'bin', 'ferry.js'), ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
    let at
    child.stdout.on('data', () => {
      if (at !== undefined) return
      at = Number(process.hrtime.bigint() - t0) / 1e9
      child.stdout.destroy()
    })
    child.on('error', reject)
    child.on('close', () => resolve(at ?? Number(process.hrtime.bigint() - t0) / 1e9))
  })
}

/** Seconds until the picker's screen shows a session row, and until its count says every session is listed. */
async function pickTimes(root, home, n) {
  const sock = `ferry-bench-pick-${process.pid}`
  const tmux = (...a) => spawnSync('tmux', ['-L', sock, ...a], { encoding: 'utf8' })
  const t0 = process.hrtime.bigint()
  const since = () => Number(process.hrtime.bigint() - t0) / 1e9
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '24', '-s', 'b', `NO_COLOR=1 ${process.execPath} ${join(root, 'bin', 'ferry.js')} --home ${home} pick; sleep 600`)
  let first
  let all
  try {
    while (since() < 300) {
      const s = tmux('capture-pane', '-p', '-t', 'b').stdout ?? ''
      if (first === undefined && /^[> ] \d\d-\d\d \d\d:\d\d /m.test(s)) first = since()
      if (new RegExp(`^pick> .* ${n}/${n}\\s*$`, 'm').test(s)) {
        all = since()
        break
      }
      await sleep(20)
    }
  } finally {
    tmux('kill-server')
  }
  return { first, all }
}

export default async function (b) {
  if (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status !== 0) {
    b.report('pick: first rows', 'skipped: tmux is not installed')
    return
  }
  const n = b.quick ? 1000 : 10000
  const home = await b.gen(['--harness', 'claude', '--sessions', String(n), '--lines-per-session', '20'])
  mkdirSync(join(home, '.cache'), { recursive: true })
  // Warm the discovery cache (every listing after the first finds it).
  await firstOutput(b.root, ['--home', home, 'ls', '--json', '--sort', 'none'])
  await b.ferry(`ferry ls (warm): ${n} Claude Code sessions`, ['--home', home, 'ls'], { note: 'discovery cache warm' })
  const head = await firstOutput(b.root, ['--home', home, 'ls'])
  b.report('pick: ferry ls | head -1', `${head.toFixed(2)} s to the first line (${n} sessions, cache warm)`)
  const p = await pickTimes(b.root, home, n)
  if (p.first === undefined) {
    b.report('pick: first rows', 'no row within 300 s')
    return
  }
  b.report('pick: first rows on screen', `${p.first.toFixed(2)} s (${n} sessions, cache warm)${p.all === undefined ? '' : `; all ${n} listed at ${p.all.toFixed(2)} s`}`)
  b.ratio('pick: first rows vs ls | head -1', head / p.first, 'seconds of ls | head -1 / seconds to the first rows')
}
