/**
 * Small helpers shared by the transforms: an object-mode Transform from a
 * per-record function with session state, and copy-on-write walks.
 */
import { Transform, type TransformCallback } from 'node:stream'
import { parseSessionKey, type FerryRecord, type MessageRec } from '../lib/model.js'

/** Object-mode Transform; `fn` pushes through `push` (zero, one or many records). */
export function recordTransform(
  fn: (rec: FerryRecord, push: (r: FerryRecord) => void) => void,
  flush?: (push: (r: FerryRecord) => void) => void,
): Transform {
  return new Transform({
    objectMode: true,
    highWaterMark: 64,
    transform(rec: FerryRecord, _enc, cb: TransformCallback) {
      try {
        fn(rec, (r) => this.push(r))
        cb()
      } catch (err) {
        cb(err as Error)
      }
    },
    flush(cb) {
      try {
        flush?.((r) => this.push(r))
        cb()
      } catch (err) {
        cb(err as Error)
      }
    },
  })
}

/** The harness a record was read from, from its session key. */
export function harnessOf(rec: { sid: string }): string {
  return parseSessionKey(rec.sid).harness
}

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

/** Splits a comma list option (`a,b` or repeated flags). */
export function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const arr = Array.isArray(v) ? v : [v]
  const out = arr.flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean)
  return out.length ? out : undefined
}
