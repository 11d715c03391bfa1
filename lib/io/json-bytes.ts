/**
 * JSON read straight from a line's bytes: `scanTop` picks a few top-level
 * scalars without parsing the rest, `parseJsonBytes` is JSON.parse of a huge
 * line without the whole-line string. Both walk strings the same way, from
 * quote to unescaped quote (`stringEnd`).
 */
import { randomBytes } from 'node:crypto'
import { parseJsonLine } from './line-file.js'

// Top-level scalars of a line. A reader that needs only a handful of fields
// (`type`, `uuid`, …) from lines that may be hundreds of KB walks the top-level
// object, jumps over nested values with `Buffer.indexOf` for string bodies, and
// decodes only the wanted scalars; anything the walk cannot follow gives null.

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
  // A short string is looked through here, a long one by one search: a search runs on to the line's end when the
  // string has no backslash, and every key of a line is decoded here (it was searched twice).
  let plain = true
  if (end - start < 256) {
    for (let i = start + 1; i < end - 1 && plain; i++) plain = b[i] !== BACKSLASH
  } else {
    const bs = b.indexOf(BACKSLASH, start)
    plain = bs < 0 || bs >= end
  }
  if (plain) return b.toString('utf8', start + 1, end - 1)
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

/** A scanned scalar when it is a string. */
export function str(v: Scalar | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined
}

// JSON.parse for huge lines: readers use it for lines of LEAN_LINE_BYTES or more.

/**
 * Lines worth `parseJsonBytes`: it saves memory, not time (on escape-dense
 * text it is slower than JSON.parse), and below this the saving is small.
 */
export const LEAN_LINE_BYTES = 16 * 1024 * 1024
/** Strings at least this long (in bytes, escaped) are decoded straight from the line's bytes. */
const HOLE_BYTES = 64 * 1024

/**
 * JSON.parse of a line that may be huge (a 100 MB tool output or base64
 * image), without the whole-line string: `buf.toString()` of such a line is
 * a second copy (two bytes a character once one character is outside
 * Latin-1) and JSON.parse then makes a third. Here the line's big string
 * values are cut out, the small rest is parsed as usual, and each big value
 * is unescaped in place in `buf` and decoded once, so the peak is the bytes
 * plus the values. The result is what `parseJsonLine` gives (same values,
 * same invalid lines), except that `buf` is overwritten: the caller gives
 * the line up.
 */
export function parseJsonBytes(buf: Buffer): unknown {
  const holes = findHoles(buf)
  if (holes === null) return new Error('not JSON')
  if (holes.length === 0) return parseJsonLine(buf)
  // A nonce no line can know makes the placeholders unambiguous.
  const mark = `\u0000ferry-hole:${randomBytes(8).toString('hex')}:`
  const parts: string[] = []
  let at = 0
  for (let i = 0; i < holes.length; i += 2) {
    parts.push(buf.toString('utf8', at, holes[i]!), JSON.stringify(mark + i / 2))
    at = holes[i + 1]! + 1
  }
  parts.push(buf.toString('utf8', at, buf.length))
  let root: unknown
  try {
    root = JSON.parse(parts.join(''))
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
  // Where each placeholder landed; a duplicate key may have dropped one, which then only needs to be valid.
  const slots: Array<[Record<string | number, unknown>, string | number] | undefined> = new Array(holes.length / 2)
  const box = { root }
  if (!findSlots(box, 'root', mark, slots)) return parseJsonLine(buf)
  for (let i = 0; i < holes.length; i += 2) {
    const value = decodeStringInPlace(buf, holes[i]! + 1, holes[i + 1]!)
    if (value === null) return new Error('bad string in JSON')
    const slot = slots[i / 2]
    if (slot) slot[0][slot[1]] = value
  }
  return box.root
}

/**
 * Byte offsets of the opening and closing quotes of every string value of
 * at least HOLE_BYTES, in pairs. Quotes outside strings only ever open one,
 * so a jump from quote to unescaped quote walks the strings without looking
 * at the bytes between. null: a string never ends (not JSON). Object keys
 * are never cut (a huge key is left to the usual parse).
 */
function findHoles(buf: Buffer): number[] | null {
  const out: number[] = []
  let p = 0
  for (;;) {
    const q = buf.indexOf(QUOTE, p)
    if (q < 0) return out
    const after = stringEnd(buf, q)
    if (after < 0) return null
    const e = after - 1
    if (e - q - 1 >= HOLE_BYTES && buf[skipWs(buf, after)] !== COLON) out.push(q, e)
    p = after
  }
}

/** Records the holder and key of each placeholder; false when one shows up twice (the line held a placeholder itself). */
function findSlots(holder: any, key: string | number, mark: string, slots: Array<[any, string | number] | undefined>): boolean {
  const v = holder[key]
  if (typeof v === 'string') {
    if (v.startsWith(mark)) {
      const i = Number(v.slice(mark.length))
      if (!Number.isInteger(i) || i < 0 || i >= slots.length || slots[i]) return false
      slots[i] = [holder, key]
    }
    return true
  }
  if (v === null || typeof v !== 'object') return true
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!findSlots(v, i, mark, slots)) return false
    return true
  }
  for (const k of Object.keys(v)) if (!findSlots(v, k, mark, slots)) return false
  return true
}

/**
 * The JSON string body `buf[s..e)` decoded, unescaping in place (an escape
 * is never shorter than what it stands for in UTF-8) so that one
 * `toString` makes the value. null when JSON.parse would reject it (a raw
 * control character, a bad escape). A lone surrogate has no UTF-8 form:
 * the value is then joined from the runs around it.
 */
function decodeStringInPlace(buf: Buffer, s: number, e: number): string | null {
  let w = s
  let run = s
  let r = s
  let seg = s
  let pieces: string[] | undefined
  // Runs of plain bytes are skipped a 32-bit word at a time (a 100 MB value is mostly such runs).
  const off = buf.byteOffset
  const a0 = Math.ceil((off + s) / 4) * 4
  const words = Math.max(0, Math.floor((off + e - a0) / 4))
  const u = words > 0 ? new Uint32Array(buf.buffer, a0, words) : null
  while (r < e) {
    if (u !== null && (off + r - a0) % 4 === 0 && off + r >= a0) {
      let wi = (off + r - a0) / 4
      while (wi < words) {
        const x = u[wi]!
        const y = x ^ 0x5c5c5c5c
        // A byte below 0x20, or a byte 0x5c (a zero byte of y): the classic has-less-than test.
        if ((((x - 0x20202020) & ~x) | ((y - 0x01010101) & ~y)) & 0x80808080) break
        wi++
      }
      r = a0 - off + wi * 4
      if (r >= e) break
    }
    const c = buf[r]!
    if (c >= 0x20 && c !== 0x5c) {
      r++
      continue
    }
    if (c !== 0x5c) return null
    if (w !== run) {
      // Escapes come every few dozen bytes in tool output: a native call per short run costs more than the copy.
      if (r - run < 64) for (let i = run; i < r; i++) buf[w + i - run] = buf[i]!
      else buf.copyWithin(w, run, r)
    }
    w += r - run
    const n = buf[r + 1]
    r += 2
    switch (n) {
      case 0x22: buf[w++] = 0x22; break
      case 0x5c: buf[w++] = 0x5c; break
      case 0x2f: buf[w++] = 0x2f; break
      case 0x62: buf[w++] = 0x08; break
      case 0x66: buf[w++] = 0x0c; break
      case 0x6e: buf[w++] = 0x0a; break
      case 0x72: buf[w++] = 0x0d; break
      case 0x74: buf[w++] = 0x09; break
      case 0x75: {
        const u = hex4(buf, r, e)
        if (u < 0) return null
        r += 4
        let cp = u
        if (u >= 0xd800 && u <= 0xdfff) {
          const lo = u <= 0xdbff && buf[r] === 0x5c && buf[r + 1] === 0x75 ? hex4(buf, r + 2, e) : -1
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00)
            r += 6
          } else {
            ;(pieces ??= []).push(buf.toString('utf8', seg, w), String.fromCharCode(u))
            seg = w
            run = r
            continue
          }
        }
        if (cp < 0x80) buf[w++] = cp
        else if (cp < 0x800) {
          buf[w++] = 0xc0 | (cp >> 6)
          buf[w++] = 0x80 | (cp & 0x3f)
        } else if (cp < 0x10000) {
          buf[w++] = 0xe0 | (cp >> 12)
          buf[w++] = 0x80 | ((cp >> 6) & 0x3f)
          buf[w++] = 0x80 | (cp & 0x3f)
        } else {
          buf[w++] = 0xf0 | (cp >> 18)
          buf[w++] = 0x80 | ((cp >> 12) & 0x3f)
          buf[w++] = 0x80 | ((cp >> 6) & 0x3f)
          buf[w++] = 0x80 | (cp & 0x3f)
        }
        break
      }
      default:
        return null
    }
    run = r
  }
  if (w !== run) buf.copyWithin(w, run, e)
  w += e - run
  const last = buf.toString('utf8', seg, w)
  return pieces ? pieces.join('') + last : last
}

function hex4(buf: Buffer, at: number, end: number): number {
  if (at + 4 > end) return -1
  let v = 0
  for (let i = at; i < at + 4; i++) {
    const c = buf[i]!
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1
    if (d < 0) return -1
    v = v * 16 + d
  }
  return v
}
