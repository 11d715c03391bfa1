/**
 * What an agent's hook runs (`ferry hooks run AGENT`): it finds the session in the agent's payload
 * and archives it in a detached process, waits for that process only as long as the agent lets a
 * hook run, and never fails the agent: errors go to ferry's own log
 * (`$XDG_STATE_HOME/ferry/hooks.log`), the exit code is always 0.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { xdgDir, type StoreContext } from '../context.js'
import { harnesses } from '../harness/registry.js'
import type { Harness } from '../harness/types.js'
import { ferryBin } from './hooks.js'

/** The log is cut over to `hooks.log.1` past this size. */
const LOG_MAX = 1 << 20

export function hookLogPath(ctx: StoreContext): string {
  return join(xdgDir(ctx, 'state'), 'ferry/hooks.log')
}

function openLog(ctx: StoreContext): number {
  const p = hookLogPath(ctx)
  mkdirSync(join(p, '..'), { recursive: true })
  try {
    if (statSync(p).size > LOG_MAX) renameSync(p, p + '.1')
  } catch {
    // no log yet
  }
  return openSync(p, 'a')
}

export interface HookRun {
  stdin: string
  args: string[]
  db?: string
  home?: string
  /** The user's own command that ferry's entry replaced (Codex's one `notify`): run it too, with the payload. */
  then?: string[]
}

/** Archives the session a hook invocation names; resolves when done or when the agent's budget is spent. */
export async function runHook(ctx: StoreContext, h: Harness, run: HookRun): Promise<{ ref: string | null; exit: number | null }> {
  const spec = h.hooks!
  let log: number | undefined
  try {
    log = openLog(ctx)
  } catch {
    log = undefined
  }
  const note = (s: string) => {
    if (log !== undefined) writeSync(log, `${new Date().toISOString()} ${h.id} ${s}\n`)
  }
  try {
    if (run.then?.length) {
      const payload = run.args[run.args.length - 1]
      const c = spawn(run.then[0]!, [...run.then.slice(1), ...(payload === undefined ? [] : [payload])], { detached: true, stdio: 'ignore' })
      c.on('error', (e) => note(`own hook ${run.then![0]} failed to start: ${e.message}`))
      c.unref()
    }
    let ref: string | null
    try {
      ref = spec.session({ stdin: run.stdin, args: run.args })
    } catch {
      ref = null
    }
    if (!ref) {
      note('no session in the hook payload; nothing archived')
      return { ref: null, exit: null }
    }
    // The archive command is named after the store it fills.
    const archive = harnesses.find((x) => x.holdsCopies)!.id
    const argv = [ferryBin(), archive, '--session', ref, '--quiet', ...(run.db ? ['--db', run.db] : []), ...(run.home ? ['--home', run.home] : [])]
    const child = spawn(process.execPath, argv, { detached: true, stdio: ['ignore', log ?? 'ignore', log ?? 'ignore'], env: process.env })
    const exit = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), spec.budgetMs)
      child.once('error', (e) => {
        clearTimeout(timer)
        note(`archive failed to start: ${e.message}`)
        resolve(-1)
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        resolve(code)
      })
    })
    child.unref()
    note(exit === null ? `${ref}: archiving in the background (pid ${child.pid})` : `${ref}: archive exited ${exit}`)
    return { ref, exit }
  } finally {
    if (log !== undefined) closeSync(log)
  }
}
