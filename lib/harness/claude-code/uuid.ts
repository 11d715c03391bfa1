/** UUID helpers: validation and deterministic (name-based, v5) UUIDs for writes. */
import { createHash } from 'node:crypto'

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s)
}

/** ferry's namespace for Claude Code ids (a fixed random v4). */
export const FERRY_NS = '6f1d4c2a-8b3e-4f5a-9c7d-2e1b0a9f8c6d'

function nsBytes(ns: string): Buffer {
  return Buffer.from(ns.replace(/-/g, ''), 'hex')
}

/** RFC 4122 version 5 UUID of `name` in namespace `ns`. */
export function uuidV5(name: string, ns: string = FERRY_NS): string {
  const h = createHash('sha1').update(nsBytes(ns)).update(name, 'utf8').digest()
  h[6] = (h[6]! & 0x0f) | 0x50
  h[8] = (h[8]! & 0x3f) | 0x80
  const x = h.subarray(0, 16).toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

/** Hex digest helper for short derived ids (agent ids, message ids). */
export function shortHash(name: string, hexChars: number): string {
  return createHash('sha1').update(name, 'utf8').digest('hex').slice(0, hexChars)
}
