/**
 * Codex thread ids: UUIDs (v7 since 0.171, v4 before). Codex refuses a
 * lookup by anything else, and ferry puts ids into file names, so every id
 * from the input is checked before it reaches a path.
 */
import { createHash } from 'node:crypto'
import { v7, validate } from 'uuid'

export function isUuid(s: string): boolean {
  return validate(s)
}

/** The largest time a v7 id holds (48 bits of milliseconds, year 10889). */
const MAX_MS = 2 ** 48 - 1

/**
 * A UUIDv7 derived from a seed: the time field is `at`, the rest comes from
 * a hash of the seed, so converting the same source session twice gives the
 * same id and Codex still sees a time-ordered v7 id.
 *
 * The bits are the ones ferry has always written (hash bytes 0–9 after the
 * 48-bit time, version and variant bits overwritten), so ids of sessions
 * written by earlier versions stay the same. uuid's v7 lays bytes 6–10 out
 * from `seq` (a 32-bit counter) and takes only bytes 10–15 of `random`,
 * so the hash bytes are handed over in those two places.
 */
export function derivedUuidV7(seed: string, at: Date): string {
  const h = createHash('sha256').update(seed).digest()
  const seq = (((h[0]! & 0x0f) << 28) | (h[1]! << 20) | ((h[2]! & 0x3f) << 14) | (h[3]! << 6) | (h[4]! >>> 2)) >>> 0
  const random = new Uint8Array(16)
  random.set(h.subarray(4, 10), 10)
  const ms = Math.min(MAX_MS, Math.max(0, Math.floor(at.getTime())))
  return v7({ msecs: Number.isNaN(ms) ? 0 : ms, seq, random })
}
