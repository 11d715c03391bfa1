/**
 * The one line reader every line-based harness uses: a whole file (plain or
 * zstd, sniffed), a bounded head, a bounded tail, with the run's line cap
 * from the StoreContext. Over-long lines are reported here, once, with their
 * file and line; a last line without its newline is flagged so the caller
 * can tell a torn line from a bad one (`LineReporter.bad`).
 */
import { open } from 'node:fs/promises'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { Readable } from 'node:stream'
import type { Code } from '../codes.js'
import type { Diagnostics } from '../diagnostics.js'
import { isZstdMagic, openBytes, openChunks } from './bytes.js'
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
  /**
   * Each line's `buf` is valid only until the next line is asked for (the
   * file is read through one reused buffer, `openChunks`): for a caller that
   * decodes each line before it takes the next.
   */
  transient?: boolean
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
export function cappedSplitter(ctx: LineContext, reporter: LineReporter, onLine: (buf: Buffer, no: number) => void, reusedChunks = false): LineSplitter {
  return new LineSplitter({ maxLineBytes: ctx.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, onLine, onOverlong: (no, bytes) => reporter.overlong(no, bytes), reusedChunks })
}

/** Every line of the file, in order, with the cap honoured and over-long lines reported. */
export async function* readLines(ctx: LineContext, path: string, opts: ReadLinesOptions): AsyncGenerator<FileLine> {
  const reporter = new LineReporter(ctx, opts.source, path)
  let batch: FileLine[] = []
  let pos = 0
  const splitter = new LineSplitter({
    maxLineBytes: ctx.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    reusedChunks: opts.transient === true,
    onLine: (buf, no) => {
      batch.push({ no, buf, offset: pos })
      pos += buf.length + 1
    },
    onOverlong: (no, bytes) => {
      pos += bytes + 1
      reporter.overlong(no, bytes)
    },
  })
  const hwm = opts.highWaterMark ?? 256 * 1024
  if (opts.endByte === 0) return
  const range = { highWaterMark: hwm, ...(opts.endByte !== undefined ? { endByte: opts.endByte } : {}) }
  const opened = opts.transient ? await openChunks(path, range) : await openBytes(path, range)
  if (opts.info) opts.info.compressed = opened.compressed
  const stream: Readable | undefined = 'stream' in opened ? opened.stream : undefined
  const chunks = stream ? (stream as AsyncIterable<Buffer>) : (opened as { chunks: Iterable<Buffer> | AsyncIterable<Buffer> }).chunks
  try {
    for await (const chunk of chunks) {
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
    stream?.destroy()
  }
}

export interface HeadOptions {
  /** Stop after this many complete lines. */
  maxLines: number
  /** Read at most this many (decompressed) bytes; a line that does not fit ends the head. */
  maxBytes: number
  /**
   * A line longer than `maxBytes` is passed over and reading goes on to the
   * lines after it (then only `maxLines` ends the head, or the file's end), so
   * that a sniff does not depend on the first line fitting its buffer.
   */
  skipOverlong?: boolean
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
      if (opts.skipOverlong ? lines.length >= opts.maxLines : overlong || lines.length >= opts.maxLines || splitter.bytes >= opts.maxBytes) stop()
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
 *
 * `scratch`, when given and at least `head.maxBytes` long, receives the head
 * instead of a fresh buffer (the lines returned are then views of it, valid
 * until the caller reuses it): a fresh buffer per file is memory for the
 * kernel to fault in and for the collector to account (a cold listing of
 * 10,000 sessions: 196 ms allocating and 618 collecting of 4,991 sampled,
 * 460 collecting after; docs/performance.md, "Start-up and `ls`, second
 * round (issue #49)").
 */
export async function readEnds(path: string, head: HeadOptions, tailBytes: number, scratch?: Buffer): Promise<Ends> {
  const fd = openSync(path, 'r')
  let zstd: { size: number; mtime: Date } | undefined
  try {
    const st = fstatSync(fd)
    const size = st.size
    const len = Math.min(size, head.maxBytes)
    // Read in steps, stopping once maxLines lines are in: a big file's head costs what it needs.
    const buf = scratch && scratch.length >= head.maxBytes ? scratch : Buffer.allocUnsafe(len)
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
    // A skippable frame may come first (valid zstd: `zstd -d` reads it).
    if (got < 4 || !isZstdMagic(data.readUInt32LE(0))) {
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

/**
 * The deepest nesting a record may have. JSON.parse takes any depth, but JSON.stringify and every
 * recursive walk of a record overflow the stack on a 100,000-deep value: such a line is a bad line.
 */
export const MAX_NESTING = 1000

/**
 * Whether the JSON in `buf` nests deeper than `limit`: brackets counted outside strings (string
 * bodies skipped with indexOf). Only a line of 2 × limit bytes or more can, so short lines cost nothing.
 */
export function nestsDeeper(buf: Buffer | string, limit = MAX_NESTING): boolean {
  if (buf.length < 2 * limit) return false
  if (typeof buf === 'string') return stringNestsDeeper(buf, limit)
  const b = buf
  let depth = 0
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!
    if (c === 0x22) {
      // To the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const q = b.indexOf(0x22, i + 1)
        if (q < 0) return false
        let k = q - 1
        while (b[k] === 0x5c) k--
        i = q
        if ((q - 1 - k) % 2 === 0) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** nestsDeeper on a string, read in place: a ZCode or Cursor value is text already, and a copy to bytes would cost its size again. */
function stringNestsDeeper(s: string, limit: number): boolean {
  let depth = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22) {
      for (;;) {
        const q = s.indexOf('"', i + 1)
        if (q < 0) return false
        let k = q - 1
        while (s.charCodeAt(k) === 0x5c) k--
        i = q
        if ((q - 1 - k) % 2 === 0) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** JSON.parse of a line, or the Error saying why not (also for a line nested deeper than MAX_NESTING). */
export function parseJsonLine(buf: Buffer): unknown {
  try {
    const v = JSON.parse(buf.toString('utf8')) as unknown
    if (v !== null && typeof v === 'object' && nestsDeeper(buf)) return new Error(`nested deeper than ${MAX_NESTING} levels`)
    return v
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}
