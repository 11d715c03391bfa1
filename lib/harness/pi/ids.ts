/**
 * Ids as Pi makes them: a session id is a UUID v7 (Pi 0.73), an entry id the
 * first 8 hex digits of a random UUID, unique within the file. ferry derives
 * both from the source's stable ids (SHA-256), so writing the same session
 * twice gives the same file; the names hashed are part of what ferry writes.
 */
import { createHash } from 'node:crypto'

const hash = (s: string): Buffer => createHash('sha256').update(s).digest()

/** A UUID v7 whose time is `ms` and whose random bits come from `name`. */
export function uuidV7For(name: string, ms: number): string {
  const b = hash(`pi-session:${name}`).subarray(0, 16)
  const t = Math.max(0, Math.min(Math.floor(ms), 2 ** 48 - 1))
  b.writeUIntBE(t, 0, 6)
  b[6] = (b[6]! & 0x0f) | 0x70
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** An 8-hex entry id for `name`, not in `taken` (re-hashed on collision, as Pi regenerates). */
export function entryIdFor(name: string, taken: Set<string>): string {
  for (let i = 0; ; i++) {
    const id = hash(i ? `${name}#${i}` : name).toString('hex').slice(0, 8)
    if (!taken.has(id)) return id
  }
}

/** A session id that is safe as part of a file name. */
export const isSafeSessionId = (id: string): boolean => /^[A-Za-z0-9][A-Za-z0-9-]{0,79}$/.test(id)
