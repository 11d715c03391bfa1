/**
 * The one line reader every line-based harness uses: a whole file (plain or
 * zstd, sniffed), a bounded head, a bounded tail, with the run's line cap
 * from the StoreContext. Over-long lines are reported here, once, with their
 * file and line; a last line without its newline is flagged so the caller
 * can tell a torn line from a bad one (`LineReporter.bad`).
 */
import { randomBytes } from 'node:crypto'
import { open } from 'node:fs/promises'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { Readable } from 'node:stream'
import type { Code } from '../codes.js'
import type { Diagnostics } from '../diagnostics.js'
import { openBytes } from './bytes.js'
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines.js'

/** What the reader needs of a StoreContext (kept structural so lib/io imports no context). */
export interface LineContext {
  diagnostics: Diagnostics
  maxLineBytes: number
}

export interface FileLine {
  /** 0-based physical line index (blank lines count). */
  no: number
  buf: Buffer
  /** Byte offset of the line start in the (decompressed) file. */
  offset: number
  /** The last line of the file, which had no trailing newline. */
  unterminated?: boolean
}

export interface ReadLinesOptions {
  /** Harness or layer named in reports (`codex`). */
  source: string
  /** Stop after this many bytes of a plain file: a file being appended to is read as it was. */
  endByte?: number
  /** Set by the reader once it knows: the file was zstd-compressed. */
  info?: { compressed?: boolean }
  highWaterMark?: number
}

/** Reports bad lines with the right code: a torn last line is `torn-line`, anything else `bad-line`. */
export class LineReporter {
  constructor(
    private readonly ctx: LineContext,
    private readonly source: string,
    readonly file: string,
  ) {}

  bad(line: Pick<FileLine, 'no' | 'unterminated'>, reason: string, code: Code = 'bad-line'): void {
    const torn = line.unterminated === true && code === 'bad-line'
    this.ctx.diagnostics.error(torn ? 'torn-line' : code, torn ? `last line has no newline and does not parse (cut short?): ${reason}` : reason, { file: this.file, line: line.no + 1 }, this.source)
  }

  overlong(no: number, bytes: number): void {
    this.ctx.diagnostics.error('line-too-long', `line of ${bytes} bytes is over the ${this.ctx.maxLineBytes}-byte cap (--max-line-bytes); skipped`, { file: this.file, line: no + 1 }, this.source)
  }
}

/** A byte splitter with the context's cap whose over-long lines are reported; for synchronous fast paths. */
export function cappedSplitter(ctx: LineContext, reporter: LineReporter, onLine: (buf: Buffer, no: number) => void): LineSplitter {
  return new LineSplitter({ maxLineBytes: ctx.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, onLine, onOverlong: (no, bytes) => reporter.overlong(no, bytes) })
}

/** Every line of the file, in order, with the cap honoured and over-long lines reported. */
export async function* readLines(ctx: LineContext, path: string, opts: ReadLinesOptions): AsyncGenerator<FileLine> {
  const reporter = new LineReporter(ctx, opts.source, path)
  let batch: FileLine[] = []
  let pos = 0
  const splitter = new LineSplitter({
    maxLineBytes: ctx.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    onLine: (buf, no) => {
      batch.push({ no, buf, offset: pos })
      pos += buf.length + 1
    },
    onOverlong: (no, bytes) => {
      pos += bytes + 1
      reporter.overlong(no, bytes)
    },
  })
  let stream: Readable
  const hwm = opts.highWaterMark ?? 256 * 1024
  if (opts.endByte === 0) return
  const opened = await openBytes(path, { highWaterMark: hwm, ...(opts.endByte !== undefined ? { endByte: opts.endByte } : {}) })
  if (opts.info) opts.info.compressed = opened.compressed
  stream = opened.stream
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      splitter.push(chunk)
      if (batch.length) {
        const out = batch
        batch = []
        yield* out
      }
    }
    const before = batch.length
    if (splitter.end() && batch.length > before) batch[batch.length - 1]!.unterminated = true
    yield* batch
  } finally {
    stream.destroy()
  }
}

export interface HeadOptions {
  /** Stop after this many complete lines. */
  maxLines: number
  /** Read at most this many (decompressed) bytes; a line that does not fit ends the head. */
  maxBytes: number
}

export interface Head {
  lines: Buffer[]
  compressed: boolean
  /** The file ended within the budget (every line of it is in `lines`, up to maxLines). */
  whole: boolean
}

/**
 * Up to `maxLines` complete lines from the start (plain or zstd), reading at
 * most `maxBytes`. The byte stream is destroyed as soon as there is enough,
 * so a compressed file is decompressed only that far; a torn or corrupt file
 * still gives the complete lines before the damage.
 */
export async function readHead(path: string, opts: HeadOptions): Promise<Head> {
  const { stream, compressed } = await openBytes(path, { highWaterMark: 64 * 1024 })
  const lines: Buffer[] = []
  let done = false
  let overlong = false
  let ended = false
  const splitter = new LineSplitter({
    maxLineBytes: opts.maxBytes,
    onLine: (buf) => {
      if (lines.length < opts.maxLines) lines.push(Buffer.from(buf))
    },
    onOverlong: () => {
      overlong = true
    },
  })
  await new Promise<void>((resolve) => {
    const stop = () => {
      if (done) return
      done = true
      stream.destroy()
      resolve()
    }
    stream.on('data', (chunk: Buffer) => {
      if (done) return
      splitter.push(chunk)
      if (overlong || lines.length >= opts.maxLines || splitter.bytes >= opts.maxBytes) stop()
    })
    stream.on('error', () => stop())
    stream.on('end', () => {
      ended = true
      if (lines.length < opts.maxLines) splitter.end()
      stop()
    })
    stream.on('close', () => stop())
  })
  return { lines, compressed, whole: ended && !overlong }
}

/** Complete lines within the last `maxBytes` of a plain file (the first, partial one dropped), in file order. */
export async function readTail(path: string, size: number, maxBytes: number): Promise<Buffer[]> {
  if (size === 0) return []
  const fh = await open(path, 'r')
  try {
    const len = Math.min(size, maxBytes)
    const buf = Buffer.alloc(len)
    const { bytesRead } = await fh.read(buf, 0, len, size - len)
    return splitTail(buf.subarray(0, bytesRead), len < size)
  } finally {
    await fh.close()
  }
}

export interface Ends {
  size: number
  mtime: Date
  head: Head
  /** Complete lines of the last `tailBytes` (as readTail); undefined for a compressed file. */
  tail: Buffer[] | undefined
}

/**
 * The head and the tail of a file through one open: one fstat, one read when
 * the file fits in the head budget (the tail is then cut from the same
 * bytes), two otherwise. This is discovery's per-session cost, so it matters
 * for stores of thousands of small sessions. A zstd file gets its head
 * decompressed (as readHead) and no tail.
 *
 * The open, fstat, reads and close of a plain file are synchronous: each is a
 * bounded read (the head and tail budgets) of a file that is usually in the
 * page cache, and four thread-pool round trips per session cost far more than
 * the syscalls themselves (profiled: `ls` over 10,000 sessions spent most of
 * its time in futex handoffs). Callers still await it, a few at a time
 * (mapAhead), so a consumer that stops early stops the reading.
 */
export async function readEnds(path: string, head: HeadOptions, tailBytes: number): Promise<Ends> {
  const fd = openSync(path, 'r')
  let zstd: { size: number; mtime: Date } | undefined
  try {
    const st = fstatSync(fd)
    const size = st.size
    const len = Math.min(size, head.maxBytes)
    // Read in steps, stopping once maxLines lines are in: a big file's head costs what it needs.
    const buf = Buffer.allocUnsafe(len)
    let got = 0
    let lineCount = 0
    while (got < len && lineCount < head.maxLines) {
      const want = Math.min(len - got, Math.max(HEAD_STEP, got))
      const bytesRead = readSync(fd, buf, got, want, got)
      if (bytesRead === 0) break
      const part = buf.subarray(got, got + bytesRead)
      for (let i = part.indexOf(0x0a); i >= 0; i = part.indexOf(0x0a, i + 1)) lineCount++
      got += bytesRead
    }
    const data = buf.subarray(0, got)
    if (got < 4 || data.readUInt32LE(0) !== ZSTD_MAGIC) {
      const whole = got === size
      const lines: Buffer[] = []
      let start = 0
      while (start < data.length && lines.length < head.maxLines) {
        const nl = data.indexOf(0x0a, start)
        if (nl < 0) {
          if (whole) lines.push(data.subarray(start))
          break
        }
        lines.push(data.subarray(start, nl))
        start = nl + 1
      }
      let tail: Buffer[]
      if (whole) tail = splitTail(data.subarray(Math.max(0, got - tailBytes)), got > tailBytes)
      else {
        const tlen = Math.min(size, tailBytes)
        const tb = Buffer.allocUnsafe(tlen)
        const bytesRead = readSync(fd, tb, 0, tlen, size - tlen)
        tail = splitTail(tb.subarray(0, bytesRead), tlen < size)
      }
      return { size, mtime: st.mtime, head: { lines, compressed: false, whole: whole && start >= data.length }, tail }
    }
    zstd = { size, mtime: st.mtime }
  } finally {
    closeSync(fd)
  }
  return { ...zstd, head: await readHead(path, head), tail: undefined }
}

const ZSTD_MAGIC = 0xfd2fb528
const HEAD_STEP = 128 * 1024

/** The complete lines of a tail window; the first, partial one dropped when the window starts inside the file. */
function splitTail(data: Buffer, cut: boolean): Buffer[] {
  let start = 0
  if (cut) {
    const nl = data.indexOf(0x0a)
    if (nl < 0) return []
    start = nl + 1
  }
  const out: Buffer[] = []
  while (start < data.length) {
    let nl = data.indexOf(0x0a, start)
    if (nl < 0) nl = data.length
    if (nl > start) out.push(data.subarray(start, nl))
    start = nl + 1
  }
  return out
}

/** JSON.parse of a line, or the Error saying why not. */
export function parseJsonLine(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'))
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

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
    const q = buf.indexOf(0x22, p)
    if (q < 0) return out
    let e = q + 1
    for (;;) {
      e = buf.indexOf(0x22, e)
      if (e < 0) return null
      let k = e - 1
      while (buf[k] === 0x5c) k--
      if ((e - 1 - k) % 2 === 0) break
      e++
    }
    if (e - q - 1 >= HOLE_BYTES) {
      let n = e + 1
      while (buf[n] === 0x20 || buf[n] === 0x09 || buf[n] === 0x0a || buf[n] === 0x0d) n++
      if (buf[n] !== 0x3a) out.push(q, e)
    }
    p = e + 1
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
