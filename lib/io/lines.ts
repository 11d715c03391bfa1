/**
 * Buffer-based line splitting with a cost linear in line length.
 *
 * split2 re-splits its growing string tail on every chunk, which is quadratic
 * in line length (a 100 MB line took 189 s and 2 GB here). Agent sessions do
 * hold multi-MB lines (base64 images, compaction records), so this splitter
 * keeps the tail as a list of Buffers and joins it once, when the newline
 * arrives. Lines over `maxLineBytes` are skipped without being buffered and
 * reported through `onOverlong`, never silently.
 *
 * A tail past BIG_TAIL (16 MiB) is copied into one buffer instead, reserved at the
 * default cap and doubled past it: joining a list at the newline holds the
 * line twice (the chunks, old by then and freed only by a full GC, and the
 * joined copy), and so would the old buffers of a small-step growth. The
 * buffer is allocated uninitialised, so the unused part of the reservation
 * is address space, not resident memory.
 */
import { Transform, type TransformCallback } from 'node:stream'

/** Default cap on one line: 256 MiB. Larger lines are reported and skipped. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024

const NL = 0x0a
/**
 * Tail length from which it is kept in one buffer. Below it a line is
 * joined as before: the second copy is small, and each reservation counts
 * in full towards V8's external memory (a full GC each), which a file of
 * many 5 MB lines would pay per line.
 */
const BIG_TAIL = 16 * 1024 * 1024
/** What the big buffer first reserves (up to the cap): a line up to the default cap is never copied twice. */
const BIG_RESERVE = 256 * 1024 * 1024

export interface LineSplitterOptions {
  /** Called for every complete line, without its `\n`. `no` is 0-based. */
  onLine: (line: Buffer, no: number) => void
  /** Called for a line longer than the cap; its bytes were not kept. */
  onOverlong?: (no: number, bytes: number) => void
  maxLineBytes?: number
  /**
   * The caller reuses the buffers it pushes (`openChunks`): a line's start
   * kept for the next chunk is copied. Complete lines are still views of the
   * chunk, valid during `onLine` only.
   */
  reusedChunks?: boolean
}

export class LineSplitter {
  /** Index of the next line to be emitted (0-based). */
  lineNo = 0
  /** Bytes seen so far. */
  bytes = 0
  private tail: Buffer[] = []
  private tailLen = 0
  /** The tail once past BIG_TAIL (then `tail` is empty); its first `tailLen` bytes are the line so far. */
  private big: Buffer | null = null
  private skipping = false
  private readonly max: number
  private readonly copy: boolean
  private readonly onLine: LineSplitterOptions['onLine']
  private readonly onOverlong: NonNullable<LineSplitterOptions['onOverlong']>

  constructor(opts: LineSplitterOptions) {
    this.onLine = opts.onLine
    this.onOverlong = opts.onOverlong ?? (() => {})
    this.max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
    this.copy = opts.reusedChunks === true
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(NL, start)
      if (nl < 0) break
      this.emit(chunk, start, nl)
      start = nl + 1
    }
    if (start < chunk.length) this.keep(chunk.subarray(start))
  }

  /** Flushes an unterminated last line; returns true when there was one. */
  end(): boolean {
    if (this.tailLen === 0 && !this.skipping) return false
    this.emit(Buffer.alloc(0), 0, 0)
    return true
  }

  private keep(part: Buffer): void {
    if (this.skipping) {
      this.tailLen += part.length
      return
    }
    if (this.tailLen + part.length > this.max) {
      this.skipping = true
      this.tail = []
      this.big = null
      this.tailLen += part.length
      return
    }
    if (this.big === null && this.tailLen + part.length <= BIG_TAIL) this.tail.push(this.copy ? Buffer.from(part) : part)
    else this.append(part)
    this.tailLen += part.length
  }

  /** Copies `part` after the tail in the big buffer, moving the tail there first; `tailLen` is not advanced. */
  private append(part: Buffer): void {
    const need = this.tailLen + part.length
    if (this.big === null || need > this.big.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(this.max, this.big ? this.big.length * 2 : BIG_RESERVE)))
      if (this.big) this.big.copy(grown, 0, 0, this.tailLen)
      else {
        let at = 0
        for (const t of this.tail) at += t.copy(grown, at)
        this.tail = []
      }
      this.big = grown
    }
    part.copy(this.big, this.tailLen)
  }

  private emit(chunk: Buffer, start: number, end: number): void {
    const no = this.lineNo++
    if (this.skipping || this.tailLen + (end - start) > this.max) {
      const bytes = this.tailLen + (end - start)
      this.skipping = false
      this.tail = []
      this.big = null
      this.tailLen = 0
      this.onOverlong(no, bytes)
      return
    }
    let line: Buffer
    if (this.tailLen === 0) line = chunk.subarray(start, end)
    else if (this.big !== null) {
      this.append(chunk.subarray(start, end))
      line = this.big.subarray(0, this.tailLen + (end - start))
      this.big = null
      this.tailLen = 0
    } else {
      this.tail.push(chunk.subarray(start, end))
      line = Buffer.concat(this.tail, this.tailLen + (end - start))
      this.tail = []
      this.tailLen = 0
    }
    this.onLine(line, no)
  }
}

export interface Line {
  /** 0-based physical line index. */
  no: number
  buf: Buffer
}

/** A Transform from bytes to `Line` objects, for callers that prefer streams. */
export function lines(opts: { maxLineBytes?: number; onOverlong?: (no: number, bytes: number) => void } = {}): Transform {
  let out: Transform
  const splitter = new LineSplitter({
    ...opts,
    onLine: (buf, no) => {
      out.push({ no, buf } satisfies Line)
    },
  })
  out = new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      splitter.push(chunk)
      cb()
    },
    flush(cb) {
      splitter.end()
      cb()
    },
  })
  return out
}
