/**
 * Lines of a Grok JSONL file with their byte offsets, streamed through the
 * project's capped line splitter. Offsets let the updates index remember
 * where an image chunk is instead of holding its base64 payload.
 */
import { openBytes } from '../../io/bytes.js'
import { LineSplitter } from '../../io/lines.js'

export interface FileLine {
  /** 0-based physical line index. */
  no: number
  buf: Buffer
  /** Byte offset of the line start (in the decompressed stream). */
  offset: number
}

export interface LineFileOptions {
  onOverlong?: (no: number, bytes: number) => void
  maxLineBytes?: number
}

/** Yields every line (blank ones too, so indexes are physical). Sets `compressed` on the returned holder. */
export async function* fileLines(path: string, opts: LineFileOptions = {}, info: { compressed?: boolean } = {}): AsyncGenerator<FileLine> {
  const { stream, compressed } = await openBytes(path)
  info.compressed = compressed
  let pending: FileLine[] = []
  let pos = 0
  const splitter = new LineSplitter({
    ...(opts.maxLineBytes === undefined ? {} : { maxLineBytes: opts.maxLineBytes }),
    onLine: (buf, no) => {
      pending.push({ no, buf, offset: pos })
      pos += buf.length + 1
    },
    onOverlong: (no, bytes) => {
      pos += bytes + 1
      opts.onOverlong?.(no, bytes)
    },
  })
  try {
    for await (const chunk of stream) {
      splitter.push(chunk as Buffer)
      if (pending.length) {
        const out = pending
        pending = []
        yield* out
      }
    }
    splitter.end()
    yield* pending
  } finally {
    stream.destroy()
  }
}

/** JSON.parse of a line, or an Error saying why not. */
export function parseLine(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'))
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Error)
}
