/**
 * A cheap reader of a JSONL line's top-level scalar fields.
 *
 * The chain pass, discovery and the sink only need a handful of top-level
 * fields (`type`, `uuid`, `parentUuid`, `leafUuid`, …) from lines that may be
 * hundreds of KB (`api-request-*`, big tool outputs). JSON.parse would build
 * the whole object; this walks the top-level object, jumps over nested values
 * with `Buffer.indexOf` for string bodies, and decodes only the wanted scalars.
 * Anything it cannot follow makes it return null; callers then treat the line
 * as unreadable (or fall back to JSON.parse).
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const LBRACE = 0x7b
const RBRACE = 0x7d
const LBRACKET = 0x5b
const RBRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a

export type Scalar = string | number | boolean | null

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
}

function skipWs(b: Buffer, i: number): number {
  while (i < b.length && isWs(b[i]!)) i++
  return i
}

/** Index just after the string that opens at `i` (a quote), or -1. */
function stringEnd(b: Buffer, i: number): number {
  let from = i + 1
  for (;;) {
    const q = b.indexOf(QUOTE, from)
    if (q < 0) return -1
    let k = q - 1
    let n = 0
    while (k > i && b[k] === BACKSLASH) {
      n++
      k--
    }
    if (n % 2 === 0) return q + 1
    from = q + 1
  }
}

/** Index just after the value that starts at `i`, or -1. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i]
  if (c === QUOTE) return stringEnd(b, i)
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0
    while (i < b.length) {
      const d = b[i]!
      if (d === QUOTE) {
        i = stringEnd(b, i)
        if (i < 0) return -1
        continue
      }
      if (d === LBRACE || d === LBRACKET) depth++
      else if (d === RBRACE || d === RBRACKET) {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
    return -1
  }
  while (i < b.length) {
    const d = b[i]!
    if (d === COMMA || d === RBRACE || d === RBRACKET || isWs(d)) return i
    i++
  }
  return i
}

function decodeString(b: Buffer, start: number, end: number): string {
  // start/end include the quotes.
  if (b.indexOf(BACKSLASH, start) < 0 || b.indexOf(BACKSLASH, start) >= end) return b.toString('utf8', start + 1, end - 1)
  return JSON.parse(b.toString('utf8', start, end)) as string
}

function decodeScalar(b: Buffer, start: number, end: number): Scalar | undefined {
  const c = b[start]
  if (c === QUOTE) return decodeString(b, start, end)
  if (c === LBRACE || c === LBRACKET) return undefined
  const s = b.toString('latin1', start, end)
  if (s === 'true') return true
  if (s === 'false') return false
  if (s === 'null') return null
  const n = Number(s)
  return Number.isFinite(n) ? n : undefined
}

/** Offset of the first byte after leading NULs, BOM and whitespace. */
export function lineStart(b: Buffer): number {
  let i = 0
  while (i < b.length && b[i] === 0) i++
  if (b[i] === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf) i += 3
  return skipWs(b, i)
}

/**
 * The wanted top-level scalar fields of the JSON object in `b` (objects and
 * arrays are skipped, not returned). Null when `b` is not a well-formed
 * top-level object as far as the walk can tell.
 */
export function scanTop(b: Buffer, wanted: ReadonlySet<string>): Record<string, Scalar> | null {
  const out: Record<string, Scalar> = {}
  let i = lineStart(b)
  if (b[i] !== LBRACE) return null
  i = skipWs(b, i + 1)
  if (b[i] === RBRACE) return out
  for (;;) {
    if (b[i] !== QUOTE) return null
    const kEnd = stringEnd(b, i)
    if (kEnd < 0) return null
    const key = decodeString(b, i, kEnd)
    i = skipWs(b, kEnd)
    if (b[i] !== COLON) return null
    i = skipWs(b, i + 1)
    const vEnd = valueEnd(b, i)
    if (vEnd < 0 || vEnd === i) return null
    if (wanted.has(key)) {
      const v = decodeScalar(b, i, vEnd)
      if (v !== undefined) out[key] = v
    }
    i = skipWs(b, vEnd)
    if (b[i] === COMMA) {
      i = skipWs(b, i + 1)
      continue
    }
    if (b[i] === RBRACE) return skipWs(b, i + 1) === b.length ? out : null
    return null
  }
}

export function str(v: Scalar | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined
}
