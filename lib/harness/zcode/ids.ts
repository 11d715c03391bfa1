/**
 * ZCode-shaped ids: `sess_<uuid>`, `msg_<base36 ms>_<uuid>`,
 * `part_<base36 ms>_<uuid>` (docs/formats/zcode.md §Writing). ZCode makes
 * the uuid random; ferry derives it from a hash of the source so a
 * conversion is reproducible, and keeps the millisecond prefix strictly
 * increasing within a session so ids sort in write order.
 */
import { createHash } from 'node:crypto'

/** A v4-shaped uuid from a seed. */
export function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex')
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export function sessionId(seed: string): string {
  return `sess_${uuidFrom(`sess:${seed}`)}`
}

export class IdMinter {
  private last = 0
  private n = 0

  constructor(private readonly seed: string) {}

  private next(prefix: 'msg' | 'part', ms: number): string {
    let t = Math.max(0, Math.floor(ms))
    if (t <= this.last) t = this.last + 1
    this.last = t
    return `${prefix}_${t.toString(36)}_${uuidFrom(`${prefix}:${this.seed}:${this.n++}`)}`
  }

  message(ms: number): string {
    return this.next('msg', ms)
  }

  part(ms: number): string {
    return this.next('part', ms)
  }
}

export const ID_SHAPE = /^(sess_[0-9a-f-]{36}|(msg|part)_[0-9a-z]+_[0-9a-f-]{36})$/

/** ZCode's project id for a directory: `proj_` + lowercase slug (runs outside [a-z0-9._-] → `-`, trimmed, ≤ 80). */
export function projectId(directory: string): string {
  const slug = directory.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80)
  return `proj_${slug || 'default'}`
}
