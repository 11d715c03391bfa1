/**
 * The streaming commands' Node flags (lib/cli/relaunch.ts): which commands
 * get a second Node process started with them, that a flag already given
 * wins, and that the second process is the command as far as its caller can
 * tell (stdio, exit code, signals, and going away with a launcher killed
 * outright). What the flags buy is measured by the bench (docs/performance.md).
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { commandModules, commandName, loadCommands } from '../../lib/cli/main.js'
import { nodeFlagsFor, ONE_PROCESS_COMMANDS } from '../../lib/cli/relaunch.js'
import { FERRY, FIXTURES, ferry, tempDir } from '../helpers.js'

const HOME = join(FIXTURES, 'home')
t.test('which arguments get flags', async (t) => {
  const flags = nodeFlagsFor(['convert', 'x.jsonl', '--to', 'codex'], [], '')
  t.ok(flags.includes('--max-semi-space-size=8') && flags.includes('--heap-growing-percent=50'), `convert: ${flags.join(' ')}`)
  t.same(nodeFlagsFor(['--home', '/h', 'cat', 'x'], [], ''), flags, 'after global options')
  t.same(nodeFlagsFor(['ls'], [], ''), [], 'ls: none')
  t.same(nodeFlagsFor(['redact', '--text'], [], ''), flags, 'a filter command')
  t.same(nodeFlagsFor(['show', 'codex:x'], [], ''), [], 'show: none (a pager has the terminal)')
  t.same(nodeFlagsFor(['cat', 'ls'], [], ''), [], 'a word that spells a one-process command only loses the flags')
  t.same(nodeFlagsFor(['__complete', '--', 'convert'], [], ''), [], 'completion: none')
  t.same(nodeFlagsFor(['convert', '--help'], [], ''), [], 'help: none')
  t.same(nodeFlagsFor(['help', 'convert'], [], ''), [], 'help CMD: none')
  t.same(nodeFlagsFor(['--version'], [], ''), [], '--version: none')
  t.same(nodeFlagsFor([], [], ''), [], 'no command: none')
  t.same(nodeFlagsFor(['--', 'cat'], [], ''), [], 'after --, nothing is a command')
  const given = nodeFlagsFor(['cat', 'x'], ['--max_semi_space_size=16'], '--heap-growing-percent=100')
  t.notOk(given.some((f) => /semi-space|growing/.test(f)), `flags on the command line or in NODE_OPTIONS win: ${given.join(' ')}`)
  t.same(nodeFlagsFor(['cat', 'x'], ['--inspect'], ''), [], 'under an inspector: none')
})

t.test('the one-process commands are commands; every other one gets the flags', async (t) => {
  await loadCommands()
  const names = commandModules([]).map((m) => commandName(m))
  for (const n of ONE_PROCESS_COMMANDS.filter((c) => c !== 'help' && c !== '__complete')) t.ok(names.includes(n), `${n} is a command`)
  t.comment(`in a second process: ${names.filter((n) => nodeFlagsFor([n], [], '').length).join(', ')}`)
})

/** Starts the CLI with a preload that reports each process's pid, parent and Node flags. */
function started(t: Parameters<typeof tempDir>[0], args: string[]) {
  const dir = tempDir(t, 'ferry-relaunch-')
  const log = join(dir, 'procs.txt')
  const probe = join(dir, 'probe.mjs')
  writeFileSync(probe, `import { appendFileSync } from 'node:fs'\nimport { isMainThread } from 'node:worker_threads'\nif (isMainThread) appendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, ppid: process.ppid, execArgv: process.execArgv }) + '\\n')\n`)
  const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, FERRY, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('close', (code, signal) => res({ code, signal })))
  const procs = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; ppid: number; execArgv: string[] }) : [])
  /** The second process, once it has started. */
  const second = async () => {
    for (let i = 0; i < 400; i++) {
      const p = procs().find((x) => x.ppid === child.pid)
      if (p) return p
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error('no second process started')
  }
  return { child, ended, procs, second, out: () => stdout, err: () => stderr }
}

/** Whether a process runs (a zombie left for a reaper that does not come counts as ended). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = `/proc/${pid}/stat`
  return !existsSync(stat) || !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'))
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && running(pid); i++) await new Promise((r) => setTimeout(r, 25))
  return !running(pid)
}

t.test('a streaming command runs in a second process with the flags; its output and exit code are the command\'s', async (t) => {
  const s = started(t, ['--home', HOME, 'cat', '--from', 'codex'])
  const { code } = await s.ended
  t.equal(code, 0, s.err())
  t.match(s.out(), /^\{"kind":"stream"/, 'the stream on stdout')
  const procs = s.procs()
  t.equal(procs.length, 2, 'two processes')
  t.ok(procs[1]!.execArgv.includes('--max-semi-space-size=8'), `the second has the flags: ${procs[1]!.execArgv.join(' ')}`)
  t.notOk(procs[0]!.execArgv.includes('--max-semi-space-size=8'), 'the first had none')
  const bad = await ferry(['convert', 'x.jsonl'])
  t.equal(bad.code, 2, 'a usage error: exit 2 through the launcher')
  t.match(bad.stderr, /^ferry: .*\bto\b/, 'its message on stderr')
  const ls = started(t, ['--home', HOME, 'ls'])
  t.equal((await ls.ended).code, 0)
  t.equal(ls.procs().length, 1, 'ls: one process')
})

t.test('signals reach the command; a launcher killed outright takes it along', { skip: process.platform === 'win32' && 'POSIX signals' }, async (t) => {
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    // `cat -` waits on stdin, which stays open.
    const s = started(t, ['cat', '-'])
    const second = await s.second()
    s.child.kill(sig)
    const r = await s.ended
    t.equal(r.signal, sig, `${sig}: the launcher ends by it, as the command did`)
    t.ok(await gone(second.pid), `${sig}: the second process is gone`)
  }
  const s = started(t, ['cat', '-'])
  const second = await s.second()
  s.child.kill('SIGKILL')
  t.equal((await s.ended).signal, 'SIGKILL')
  t.ok(await gone(second.pid), 'SIGKILL: the second process went too')
})
