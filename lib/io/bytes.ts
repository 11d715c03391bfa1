/**
 * Opening a session file as a byte stream, decompressing zstd on the fly.
 *
 * fzstd's streaming Decompress is fed small slices so that each push yields
 * at most a few blocks of output: a multi-GiB `.jsonl.zst` never sits in
 * memory. A truncated or corrupt frame surfaces as a FerryError naming the
 * file and the compressed byte offset, after everything decoded before it
 * has been passed on.
 */
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { Transform, type Readable, type TransformCallback } from 'node:stream'
import { Decompress } from 'fzstd'
import { FerryError } from '../errors.js'

const ZSTD_MAGIC = 0xfd2fb528
/** Input slice fed to fzstd per call; bounds the output produced per call. */
const SLICE = 64 * 1024

export function isZstdPath(path: string): boolean {
  return path.endsWith('.zst')
}

/** Skippable frames (0x184D2A50–0x184D2A5F) may come first (seekable-format indexes); fzstd skips them. */
const isSkippableMagic = (m: number): boolean => (m & 0xfffffff0) >>> 0 === 0x184d2a50

/** True when the file starts with the zstd frame magic, or a skippable frame's. */
export async function hasZstdMagic(path: string): Promise<boolean> {
  const fh = await open(path, 'r')
  try {
    const b = Buffer.alloc(4)
    const { bytesRead } = await fh.read(b, 0, 4, 0)
    return bytesRead === 4 && (b.readUInt32LE(0) === ZSTD_MAGIC || isSkippableMagic(b.readUInt32LE(0)))
  } finally {
    await fh.close()
  }
}

/** A Transform that decompresses a zstd stream (one or more frames). */
export function zstdDecompress(file?: string): Transform {
  let offset = 0
  let sawInput = false
  let out: Transform
  const fail = (err: unknown): FerryError =>
    new FerryError(`zstd: ${err instanceof Error ? err.message : String(err)}`, {
      code: 'bad-zstd',
      position: { ...(file === undefined ? {} : { file }), offset },
      cause: err,
    })
  const make = () =>
    new Decompress((chunk: Uint8Array) => {
      out.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    })
  const dec = make()
  out = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      try {
        sawInput ||= chunk.length > 0
        for (let i = 0; i < chunk.length; i += SLICE) {
          const part = chunk.subarray(i, Math.min(i + SLICE, chunk.length))
          dec.push(part)
          offset += part.length
        }
        cb()
      } catch (err) {
        cb(fail(err))
      }
    },
    flush(cb) {
      try {
        // fzstd throws "unexpected EOF" here when the last frame is cut short.
        if (sawInput) dec.push(new Uint8Array(0), true)
        cb()
      } catch (err) {
        cb(fail(err))
      }
    },
  })
  return out
}

export interface OpenBytesOptions {
  /** Force or forbid decompression; default: sniff the magic number. */
  compressed?: boolean
  highWaterMark?: number
}

/** The file's (decompressed) bytes as a stream, and whether it was compressed. */
export async function openBytes(path: string, opts: OpenBytesOptions = {}): Promise<{ stream: Readable; compressed: boolean }> {
  const compressed = opts.compressed ?? (await hasZstdMagic(path))
  const raw = createReadStream(path, { highWaterMark: opts.highWaterMark ?? 256 * 1024 })
  if (!compressed) return { stream: raw, compressed }
  const dec = zstdDecompress(path)
  raw.on('error', (err) => dec.destroy(err))
  return { stream: raw.pipe(dec), compressed }
}
