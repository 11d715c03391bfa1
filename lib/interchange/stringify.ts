/**
 * Records → ferry interchange stream (JSON Lines). Small records are joined
 * into larger chunks so a pipe carries few big writes instead of many tiny
 * ones; the chunk is flushed whenever the stream asks for more or ends.
 */
import { Transform, type TransformCallback } from 'node:stream'
import { FERRY_FORMAT, type FerryRecord, type StreamRec } from '../model.js'
import { VERSION } from '../version.js'
import { randomBytes } from 'node:crypto'

/** A string this long is written out in slices, never as part of one record-sized string. */
const HUGE = 1024 * 1024
const SLICE = 32 * 1024

/**
 * Text made of parts, serialized as their concatenation. A writer that puts a
 * few words before a huge value (`prefix + text`) holds this instead: V8
 * keeps such a concatenation as a pair and makes a flat copy of it, the size
 * of the whole text, the first time it is sliced or escaped. `jsonPieces`
 * escapes the parts one after another; anything else serializing it (JSON.stringify
 * calls `toJSON`) gets the joined text.
 */
export class JoinedText {
  readonly length: number
  constructor(readonly parts: readonly string[]) {
    this.length = parts.reduce((n, p) => n + p.length, 0)
  }
  toJSON(): string {
    return this.parts.join('')
  }
  toString(): string {
    return this.parts.join('')
  }
}

/** `parts` joined: as one string when it is small, else as a JoinedText (see there). */
export function joinText(...parts: string[]): string | JoinedText {
  const t = new JoinedText(parts)
  return t.length >= HUGE ? t : parts.join('')
}

/** Any string of HUGE or more characters in the record (a bounded walk: records are small trees). */
export function holdsHugeString(v: unknown): boolean {
  if (typeof v === 'string') return v.length >= HUGE
  if (v instanceof JoinedText) return true
  if (v === null || typeof v !== 'object') return false
  if (Array.isArray(v)) {
    for (const x of v) if (holdsHugeString(x)) return true
    return false
  }
  for (const k in v) if (holdsHugeString((v as Record<string, unknown>)[k])) return true
  return false
}

/**
 * JSON.stringify(value) in pieces, lazily: the value with its huge strings
 * replaced by placeholders, and each huge string escaped a slice at a time
 * (never between the two halves of a surrogate pair, so the escaping is the
 * whole string's). The bytes are those of JSON.stringify(value), without a
 * second copy of the string (two, with the UTF-8 conversion).
 */
export function* jsonPieces(value: unknown): Generator<string> {
  const mark = `\u0000ferry-huge:${randomBytes(8).toString('hex')}:`
  const huge: Array<readonly string[]> = []
  // A copy of the (small) tree with placeholders, not a replacer: JSON.stringify calls a JoinedText's toJSON before any replacer sees it.
  const swap = (v: unknown): unknown => {
    if (v instanceof JoinedText) return mark + (huge.push(v.parts) - 1)
    if (typeof v === 'string') return v.length >= HUGE ? mark + (huge.push([v]) - 1) : v
    if (v === null || typeof v !== 'object') return v
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return v
    if (Array.isArray(v)) return v.map(swap)
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) out[k] = swap((v as Record<string, unknown>)[k])
    return out
  }
  const skeleton = JSON.stringify(swap(value))
  let at = 0
  for (let i = 0; i < huge.length; i++) {
    const token = JSON.stringify(mark + i)
    const pos = skeleton.indexOf(token, at)
    yield skeleton.slice(at, pos) + '"'
    // A high surrogate that ends a part waits for the next one: the pair is escaped as the joined text's.
    let carry = ''
    for (const s of huge[i]!) {
      for (let off = 0; off < s.length; ) {
        let end = Math.min(s.length, off + SLICE)
        const c = s.charCodeAt(end - 1)
        if (c >= 0xd800 && c <= 0xdbff) end--
        if (end === off) {
          // The part's last character, a high surrogate.
          carry += s[off]!
          off++
          continue
        }
        yield JSON.stringify(carry + s.slice(off, end)).slice(1, -1)
        carry = ''
        off = end
      }
    }
    if (carry) yield JSON.stringify(carry).slice(1, -1)
    yield '"'
    at = pos + token.length
  }
  yield skeleton.slice(at)
}

/**
 * Pushes `rec`'s pieces while the reader wants them; `later` gets the rest (to run on the next
 * read) and `done` is called once the line is out. Pushed all at once, a 100 MB string's slices
 * sat in the readable buffer together: a second copy of the string, as bytes.
 */
function pushHuge(out: Transform, pieces: Iterator<string>, later: (rest: () => void) => void, done: () => void): void {
  for (;;) {
    const r = pieces.next()
    if (r.done) {
      out.push('\n')
      return done()
    }
    if (!out.push(r.value)) return later(() => pushHuge(out, pieces, later, done))
  }
}

const CHUNK = 64 * 1024

export interface StringifyOptions {
  /** Start with a `stream` preamble record (default true). */
  preamble?: boolean
}

export function preambleRecord(): StreamRec {
  return { kind: 'stream', ferry: FERRY_FORMAT, producer: `ferry/${VERSION}`, created_at: new Date().toISOString() }
}

export function stringify(opts: StringifyOptions = {}): Transform {
  let pending = ''
  let first = opts.preamble ?? true
  /** The rest of a huge record's pieces, waiting for the reader to want more. */
  let resume: (() => void) | null = null
  const out = new Transform({
    writableObjectMode: true,
    writableHighWaterMark: 64,
    transform(rec: FerryRecord, _enc, cb: TransformCallback) {
      // A stage in a pipe (`ferry cat X | ferry redact | …`) passes the one preamble it
      // was given instead of stacking its own on top; later ones (concatenated inputs) go.
      if (rec.kind === 'stream' && (opts.preamble ?? true)) {
        if (first) {
          first = false
          pending += JSON.stringify(rec) + '\n'
        }
        return cb()
      }
      if (first) {
        first = false
        pending += JSON.stringify(preambleRecord()) + '\n'
      }
      if (holdsHugeString(rec)) {
        if (pending) this.push(pending)
        pending = ''
        return pushHuge(this, jsonPieces(rec), (rest) => (resume = rest), () => cb())
      }
      pending += JSON.stringify(rec) + '\n'
      if (pending.length >= CHUNK) {
        this.push(pending)
        pending = ''
      }
      cb()
    },
    flush(cb) {
      if (pending) this.push(pending)
      pending = ''
      cb()
    },
  })
  // The Transform's own read step releases a held transform callback; a huge record's rest goes first.
  const read = out._read.bind(out)
  out._read = (n: number) => {
    const r = resume
    if (r === null) return read(n)
    resume = null
    r()
  }
  return out
}
