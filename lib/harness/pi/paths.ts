/**
 * Where Pi keeps its sessions: `<agent dir>/sessions/--<cwd>--/<ts>_<id>.jsonl`
 * (agent dir `$PI_CODING_AGENT_DIR`, default `~/.pi/agent`), or directly in
 * `$PI_CODING_AGENT_SESSION_DIR` when that is set.
 */
import { join, resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import type { StoreSpec } from '../types.js'

export const HARNESS = 'pi' as const

/** `--pi-dir`, else `$PI_CODING_AGENT_DIR` when set and non-empty, else `~/.pi/agent`. */
export const store: StoreSpec = {
  envVars: ['PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR'],
  flag: { name: 'pi-dir', describe: 'Pi agent dir (default $PI_CODING_AGENT_DIR, else ~/.pi/agent)' },
  root: (ctx) => ctx.roots[HARNESS] ?? (ctx.env.PI_CODING_AGENT_DIR || resolve(ctx.home, '.pi', 'agent')),
}

/**
 * The sessions folder: `$PI_CODING_AGENT_SESSION_DIR` (files directly in it)
 * unless the root was given by flag, else `<root>/sessions` (a folder per cwd).
 */
export function sessionsDir(ctx: StoreContext): { dir: string; flat: boolean } {
  const env = ctx.env.PI_CODING_AGENT_SESSION_DIR
  if (env && ctx.roots[HARNESS] === undefined) return { dir: resolve(env), flat: true }
  return { dir: join(store.root(ctx), 'sessions'), flat: false }
}

/**
 * Pi's folder name for a cwd (`getDefaultSessionDir`): the leading separator
 * dropped, every `/`, `\` and `:` made `-`, wrapped in `--`. Lossy, so
 * readers take the cwd from the header, never from this name.
 */
export function projectDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`
}

/** Pi's file name: the header timestamp with `:` and `.` made `-`, `_`, the session id. */
export function sessionFileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, '-')}_${id}.jsonl`
}

/** The session id a file name carries (`<ts>_<id>.jsonl`), or the stem when it has no `_`. */
export function idFromFileName(name: string): string {
  const stem = name.endsWith('.jsonl') ? name.slice(0, -6) : name
  const i = stem.lastIndexOf('_')
  return i >= 0 ? stem.slice(i + 1) : stem
}
