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

/** Any string of HUGE or more characters in the record (a bounded walk: records are small trees). */
export function holdsHugeString(v: unknown): boolean {
  if (typeof v === 'string') return v.length >= HUGE
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
  const huge: string[] = []
  const skeleton = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'string' && v.length >= HUGE) {
      huge.push(v)
      return mark + (huge.length - 1)
    }
    return v
  })
  let at = 0
  for (let i = 0; i < huge.length; i++) {
    const token = JSON.stringify(mark + i)
    const pos = skeleton.indexOf(token, at)
    yield skeleton.slice(at, pos) + '"'
    const s = huge[i]!
    for (let off = 0; off < s.length; ) {
      let end = Math.min(s.length, off + SLICE)
      const c = s.charCodeAt(end - 1)
      if (end < s.length && c >= 0xd800 && c <= 0xdbff) end--
      yield JSON.stringify(s.slice(off, end)).slice(1, -1)
      off = end
    }
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
