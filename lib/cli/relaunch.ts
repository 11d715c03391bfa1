/**
 * The V8 settings of the commands that stream whole sessions, given the only
 * supported way: on Node's command line, when the process starts. `bin/ferry.js`
 * asks `nodeFlagsFor` before it loads the CLI; when a command needs flags this
 * process was not started with, it runs the command in a second Node process
 * that has them (`relaunch`) and only waits for it. Other commands (`ls`,
 * `search`, completion, help, `show`, `continue`) run here: a second Node
 * start (about 0.1 s) would be most of a short command's time. Why these
 * flags: see docs/performance.md, "Node flags of streaming commands".
 *
 * The second process is the command as far as its caller can tell: it shares
 * stdin, stdout and stderr; a signal sent to this process is passed on; its
 * exit code, or the signal that ended it, is this process's; and if this
 * process is killed outright (SIGKILL), the second one kills itself too. A
 * flag already on Node's command line or in NODE_OPTIONS wins.
 *
 * Imports only Node's own modules: this is all the waiting process loads.
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

/**
 * The commands that run in this process; every other one streams sessions (`cat`, `convert`,
 * `write`, the archive, `export`, `render`, the transforms' filter commands). `show` and
 * `continue` hand the terminal to a pager or an agent for as long as it runs, and read a session
 * once, for a person; `hooks` edits a settings file, or starts an archive and returns; `pick` lists
 * sessions for a person, whose first rows a second start would delay.
 */
export const ONE_PROCESS_COMMANDS: readonly string[] = ['ls', 'search', 'quickstart', 'completion', 'show', 'continue', 'pick', 'help', '__complete', 'hooks']

/**
 * The young generation capped at 16 MB (two 8 MB semi-spaces, in every thread), the heap let
 * grow to 1.5 times what its last full collection kept (V8's default is up to 4), and hot code
 * compiled by the thread that runs it rather than on V8's shared compiler threads.
 */
const FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50', '--no-concurrent-recompilation']

/** Set in the second process's environment (and taken out of it there): it watches the first. */
const MARK = 'FERRY_RELAUNCHED'
/** Signals passed on to the second process. SIGUSR1 is Node's (it starts the inspector). */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2']

/** A flag's name as V8 reads it (`--no-` and `_` spellings are the same flag). */
const flagName = (a: string): string =>
  a
    .replace(/=.*/, '')
    .replace(/_/g, '-')
    .replace(/^--no-/, '--')

/**
 * The Node flags `args` (ferry's own arguments) should run with that this
 * process lacks: none for a short command, for help, on Windows (a signal
 * cannot be passed on there, only a forced kill), or under an inspector.
 */
export function nodeFlagsFor(args: readonly string[], execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  if (process.platform === 'win32' || process.env[MARK] !== undefined) return []
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].filter((a) => a.startsWith('--')).map(flagName)
  if (given.some((g) => g.startsWith('--inspect'))) return []
  const end = args.indexOf('--')
  const words = end < 0 ? args : args.slice(0, end)
  if (words.some((w) => w === '-h' || w === '--help' || w === '-V' || w === '--version')) return []
  // A one-process command named anywhere keeps the run here (an option's value that spells one only loses the flags), as does no word at all.
  if (words.some((w) => ONE_PROCESS_COMMANDS.includes(w)) || !words.some((w) => !w.startsWith('-'))) return []
  return FLAGS.filter((f) => !given.includes(flagName(f)))
}

/**
 * Runs `script args` in a Node process started with `flags` (and this
 * process's own Node flags after them), and ends this process as it ends.
 * False when the process could not be started: the caller runs the command
 * itself.
 */
export function relaunch(flags: readonly string[], script: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...flags, ...process.execArgv, script, ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, [MARK]: '1' },
    })
    // A terminal's Ctrl-C reaches both processes, so the second may get it twice: ferry's handlers take a repeat as the same request.
    const pass = (sig: NodeJS.Signals) => void child.kill(sig)
    for (const sig of SIGNALS) process.on(sig, pass)
    const unhook = () => {
      for (const sig of SIGNALS) process.off(sig, pass)
    }
    let started = false
    child.on('error', () => {
      if (started) return
      unhook()
      resolve(false)
    })
    child.once('spawn', () => resolve((started = true)))
    child.once('exit', (code, signal) => {
      unhook()
      if (!signal) process.exit(code ?? 1)
      // Ended by the same signal, for the shell's `$?`; one Node ignores (SIGPIPE) leaves the shell's code for it.
      process.kill(process.pid, signal)
      setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100)
    })
  })
}

/**
 * In the second process: if the first one goes away without waiting for it
 * (killed with SIGKILL), this one ends the same way. The IPC channel closes
 * when the first process dies; it does not keep this one alive.
 */
export function watchLauncher(): void {
  if (process.env[MARK] === undefined) return
  delete process.env[MARK]
  if (!process.channel) return
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'))
  process.channel.unref()
}
