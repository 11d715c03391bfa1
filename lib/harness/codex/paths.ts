/**
 * Codex store layout: the store root, where rollouts live and how their names are built.
 *
 * Names are `rollout-<local YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl[.zst]` under
 * `sessions/YYYY/MM/DD/` (local time) or flat under `archived_sessions/`.
 * Codex reads the id from the right end of the name, so we do the same.
 */
import { join, resolve } from 'node:path'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'
import { isUuid } from './ids.js'

/** `--codex-home`, else `$CODEX_HOME`, else `~/.codex`. */
export const store: StoreSpec = {
  envVars: ['CODEX_HOME'],
  flag: { name: 'codex-home', describe: 'Codex home (default $CODEX_HOME, else ~/.codex)' },
  root: (ctx) => ctx.roots.codex ?? ctx.env.CODEX_HOME ?? resolve(ctx.home, '.codex'),
}

export const SESSIONS_DIR = 'sessions'
export const ARCHIVED_DIR = 'archived_sessions'

/** The id is the 36 characters before `.jsonl`, as Codex reads it. */
const NAME_RE = /^rollout-(.*)-(.{36})\.jsonl(\.zst)?$/

export interface RolloutName {
  id: string
  /** The timestamp part as written (local time, `YYYY-MM-DDThh-mm-ss`). */
  stamp: string
  compressed: boolean
  /** The name without `.zst`: a plain and a compressed copy share it. */
  plainName: string
}

export function parseRolloutName(name: string): RolloutName | null {
  const m = NAME_RE.exec(name)
  if (!m || !isUuid(m[2]!)) return null
  return { id: m[2]!.toLowerCase(), stamp: m[1]!, compressed: m[3] !== undefined, plainName: m[3] ? name.slice(0, -4) : name }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, in the process's local time zone, as Codex does. */
export function rolloutRelPath(id: string, at: Date): string {
  if (!isUuid(id)) throw new UnsafePathError(`codex: session id ${JSON.stringify(id)} is not a UUID; refusing to use it in a path`)
  const y = pad(at.getFullYear(), 4)
  const mo = pad(at.getMonth() + 1)
  const d = pad(at.getDate())
  const stamp = `${y}-${mo}-${d}T${pad(at.getHours())}-${pad(at.getMinutes())}-${pad(at.getSeconds())}`
  return join(SESSIONS_DIR, y, mo, d, `rollout-${stamp}-${id}.jsonl`)
}
