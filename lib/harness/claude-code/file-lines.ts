/**
 * Line access to a transcript file: all lines as an async iterable (bounded
 * memory, cap per line), a bounded head, and a bounded tail read from the end.
 */
import { open } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { LineSplitter, DEFAULT_MAX_LINE_BYTES } from '../../io/lines.js'
import { openBytes } from '../../io/bytes.js'

export interface FileLine {
  /** 0-based physical line index. */
  no: number
  buf: Buffer
  /** The line was longer than the cap; `buf` is empty. */
  overlong?: number
  /** Last line of the file had no trailing newline. */
  unterminated?: boolean
}

export interface LinesOptions {
  maxLineBytes?: number
  /** Stop after this many bytes of the (uncompressed) file: a file being appended to is read as it was. */
  endByte?: number
}

/** Every line of the file, in order; zstd is sniffed. */
export async function* fileLines(path: string, opts: LinesOptions = {}): AsyncGenerator<FileLine> {
  const batch: FileLine[] = []
  const splitter = new LineSplitter({
    maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    onLine: (buf, no) => batch.push({ no, buf }),
    onOverlong: (no, bytes) => batch.push({ no, buf: Buffer.alloc(0), overlong: bytes }),
  })
  let stream: NodeJS.ReadableStream
  if (opts.endByte !== undefined) {
    if (opts.endByte === 0) return
    const { compressed, stream: s } = await openBytes(path)
    if (compressed) stream = s
    else {
      s.destroy()
      stream = createReadStream(path, { start: 0, end: opts.endByte - 1, highWaterMark: 256 * 1024 })
    }
  } else stream = (await openBytes(path)).stream
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    splitter.push(chunk)
    if (batch.length) yield* batch.splice(0)
  }
  const before = batch.length
  if (splitter.end() && batch.length > before) batch[batch.length - 1]!.unterminated = true
  yield* batch.splice(0)
}

/**
 * Up to `maxLines` complete lines from the start, reading at most `maxBytes`;
 * a line that does not fit the budget ends the head.
 */
export async function headLines(path: string, maxBytes: number, maxLines: number): Promise<Buffer[]> {
  const fh = await open(path, 'r')
  try {
    const buf = Buffer.alloc(maxBytes)
    const { bytesRead } = await fh.read(buf, 0, maxBytes, 0)
    const out: Buffer[] = []
    let start = 0
    while (out.length < maxLines) {
      const nl = buf.indexOf(0x0a, start)
      if (nl < 0 || nl >= bytesRead) {
        // A file shorter than the budget may end without a newline.
        if (bytesRead < maxBytes && start < bytesRead) out.push(buf.subarray(start, bytesRead))
        break
      }
      out.push(buf.subarray(start, nl))
      start = nl + 1
    }
    return out
  } finally {
    await fh.close()
  }
}

export { readTail as tailLines } from '../../io/line-file.js'
