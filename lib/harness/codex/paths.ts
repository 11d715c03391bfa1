/**
 * Codex store layout: where rollouts live and how their names are built.
 *
 * Names are `rollout-<local YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl[.zst]` under
 * `sessions/YYYY/MM/DD/` (local time) or flat under `archived_sessions/`.
 * Codex reads the id from the right end of the name, so we do the same.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'

export const SESSIONS_DIR = 'sessions'
export const ARCHIVED_DIR = 'archived_sessions'

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const NAME_RE = /^rollout-(.*)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$/i

/** Codex refuses ids that are not UUIDs; so do we before using one in a path. */
export function isUuid(s: string): boolean {
  return UUID_RE.test(s)
}

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
  if (!m) return null
  return { id: m[2]!.toLowerCase(), stamp: m[1]!, compressed: m[3] !== undefined, plainName: m[3] ? name.slice(0, -4) : name }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, in the process's local time zone, as Codex does. */
export function rolloutRelPath(id: string, at: Date): string {
  if (!isUuid(id)) throw new Error(`not a UUID: ${JSON.stringify(id)}`)
  const y = pad(at.getFullYear(), 4)
  const mo = pad(at.getMonth() + 1)
  const d = pad(at.getDate())
  const stamp = `${y}-${mo}-${d}T${pad(at.getHours())}-${pad(at.getMinutes())}-${pad(at.getSeconds())}`
  return join(SESSIONS_DIR, y, mo, d, `rollout-${stamp}-${id}.jsonl`)
}

/**
 * A UUIDv7-shaped id derived from a seed: the time field is `at`, the rest
 * comes from a hash, so converting the same source session twice gives the
 * same id (reproducible) and Codex still sees a time-ordered v7 id.
 */
export function derivedUuidV7(seed: string, at: Date): string {
  const h = createHash('sha256').update(seed).digest()
  const b = Buffer.alloc(16)
  const ms = Math.max(0, Math.floor(at.getTime()))
  b.writeUIntBE(ms, 0, 6)
  h.copy(b, 6, 0, 10)
  b[6] = 0x70 | (b[6]! & 0x0f)
  b[8] = 0x80 | (b[8]! & 0x3f)
  const x = b.toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}
