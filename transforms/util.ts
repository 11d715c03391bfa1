/** Copy-on-write helpers shared by the transforms. */
import type { MessageRec } from '../lib/model.js'

/**
 * Maps every string inside a JSON value; returns the same reference when
 * nothing changed, so callers can tell whether anything did.
 */
export function mapStrings(v: unknown, fn: (s: string) => string): unknown {
  if (typeof v === 'string') return fn(v)
  if (Array.isArray(v)) {
    let out: unknown[] | null = null
    for (let i = 0; i < v.length; i++) {
      const n = mapStrings(v[i], fn)
      if (n !== v[i]) {
        out ??= v.slice()
        out[i] = n
      }
    }
    return out ?? v
  }
  if (v && typeof v === 'object') {
    let out: Record<string, unknown> | null = null
    for (const [k, val] of Object.entries(v)) {
      const n = mapStrings(val, fn)
      if (n !== val) {
        out ??= { ...(v as Record<string, unknown>) }
        out[k] = n
      }
    }
    return out ?? v
  }
  return v
}

/** A shallow copy of a message with new blocks and without native bytes (its content changed). */
export function withBlocks(m: MessageRec, blocks: MessageRec['blocks']): MessageRec {
  const { native: _n, ...rest } = m
  return { ...rest, blocks }
}
