/**
 * Reading just the head of a rollout, plain or `.zst`: the first line
 * (`session_meta`, often tens of KB) plus a bounded number of following
 * lines for a title. The byte stream is destroyed as soon as we have enough,
 * so a compressed file is decompressed only that far.
 */
import { openBytes } from '../../io/bytes.js'
import { LineSplitter } from '../../io/lines.js'

export interface HeadOptions {
  /** Stop after this many lines (default 1). */
  maxLines?: number
  /** Stop after this many decompressed bytes (default 4 MiB). */
  maxBytes?: number
}

export interface Head {
  lines: string[]
  compressed: boolean
}

export async function readHead(path: string, opts: HeadOptions = {}): Promise<Head> {
  const maxLines = opts.maxLines ?? 1
  const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024
  const { stream, compressed } = await openBytes(path, { highWaterMark: 64 * 1024 })
  const lines: string[] = []
  let done = false
  let overlong = false
  const splitter = new LineSplitter({
    maxLineBytes: maxBytes,
    onLine: (buf) => {
      if (lines.length < maxLines) lines.push(buf.toString('utf8'))
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
      if (overlong || lines.length >= maxLines || splitter.bytes >= maxBytes) stop()
    })
    // A torn or corrupt file still gives whatever complete lines came before.
    stream.on('error', () => stop())
    stream.on('end', () => {
      if (lines.length < maxLines) splitter.end()
      stop()
    })
    stream.on('close', () => stop())
  })
  return { lines, compressed }
}
