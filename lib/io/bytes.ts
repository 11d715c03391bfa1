/**
 * Opening a session file as a byte stream, decompressing zstd on the fly.
 *
 * Two decoders give the same bytes: Node's own zstd (`zlib.createZstdDecompress`,
 * Node >= 22.15 / 23.8), several times faster, used whenever the running Node
 * has it; and fzstd (pure JS), the fallback for Node 20, on the calling
 * thread: its garbage is collected with the parser's (see
 * docs/performance.md, "zstd on Node 20"). fzstd's streaming
 * Decompress is fed small slices so that each push yields at most a few
 * blocks of output: a multi-GiB `.jsonl.zst` never sits in memory. Either
 * way a truncated or corrupt frame surfaces as a FerryError naming the file
 * and the compressed byte offset, after everything decoded before it has
 * been passed on.
 */
import { close, closeSync, createReadStream, fstatSync, openSync, read, readSync } from 'node:fs'
import { Readable, Transform, type TransformCallback } from 'node:stream'
import * as zlib from 'node:zlib'
import { Decompress } from 'fzstd'
import { FrameTracker, hasher, hasherReady, loadHasher, type Hasher } from './zstd-frames.js'
import { FerryError } from '../errors.js'
import { destroyWhenDrained } from './drain.js'

export type ZstdDecoder = 'native' | 'fzstd'

type NativeZstd = (opts?: object) => Transform
/** Node's zstd decompressor when this Node has one (feature-detected: @types/node 20 does not declare it). */
const createNative = (zlib as unknown as { createZstdDecompress?: NativeZstd }).createZstdDecompress

/** The decoders this Node can run, the preferred first. */
export const zstdDecoders: readonly ZstdDecoder[] = typeof createNative === 'function' ? ['native', 'fzstd'] : ['fzstd']

/**
 * The decoder used when none is asked for: native when available, else fzstd, on this thread.
 * `FERRY_ZSTD_DECODER=fzstd` forces fzstd (to compare the two on one Node).
 */
export function defaultZstdDecoder(): ZstdDecoder {
  return process.env.FERRY_ZSTD_DECODER === 'fzstd' ? 'fzstd' : zstdDecoders[0]!
}

const ZSTD_MAGIC = 0xfd2fb528
/** Input slice fed to fzstd per call; bounds the output produced per call. */
const SLICE = 64 * 1024

/** Skippable frames (0x184D2A50–0x184D2A5F) may come first (seekable-format indexes); fzstd skips them. */
const isSkippableMagic = (m: number): boolean => (m & 0xfffffff0) >>> 0 === 0x184d2a50
/** Whether a file's first four bytes open a zstd stream: a frame, or a skippable frame before one. */
export const isZstdMagic = (m: number): boolean => m === ZSTD_MAGIC || isSkippableMagic(m)

/** Damage in a zstd stream, located at the compressed byte offset reached; the same from every decoder. */
function zstdError(file: string | undefined, err: unknown, offset: number): FerryError {
  return new FerryError(`zstd: ${err instanceof Error ? err.message : String(err)}`, {
    code: 'bad-zstd',
    position: { ...(file === undefined ? {} : { file }), offset },
    cause: err,
  })
}

/** A Transform that decompresses a zstd stream (one or more frames). */
export function zstdDecompress(file?: string, decoder: ZstdDecoder = defaultZstdDecoder()): Transform {
  if (decoder === 'native') {
    if (typeof createNative !== 'function') throw new Error(`native zstd is not available on Node ${process.version}`)
    return nativeDecompress(createNative, file)
  }
  let offset = 0
  let sawInput = false
  let out: Transform
  const fail = (err: unknown): FerryError => zstdError(file, err, offset)
  // fzstd does not check a frame's content checksum: its output is hashed per frame and compared at the frame's end.
  const frames = new FrameTracker()
  let hash: Hasher | null = null
  let frameStart = 0
  const make = () =>
    new Decompress((chunk: Uint8Array) => {
      hash!.update(chunk)
      out.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    })
  const dec = make()
  const pushSlices = (chunk: Buffer) => {
    for (let i = 0; i < chunk.length; i += SLICE) {
      const part = chunk.subarray(i, Math.min(i + SLICE, chunk.length))
      dec.push(part)
      offset += part.length
    }
  }
  out = new Transform({
    async transform(chunk: Buffer, _enc, cb: TransformCallback) {
      try {
        if (!hasherReady()) await loadHasher()
        hash ??= hasher()
        sawInput ||= chunk.length > 0
        let from = 0
        for (const end of frames.feed(chunk)) {
          pushSlices(chunk.subarray(from, end.at))
          from = end.at
          const got = hash.take()
          if (end.checksum !== null && got !== end.checksum) throw new Error(`content checksum does not match in the frame at byte ${frameStart} (stored ${end.checksum.toString(16)}, got ${got.toString(16)}): the data was altered`)
          frameStart = offset
        }
        pushSlices(chunk.subarray(from))
        cb()
      } catch (err) {
        // Not cb(err): that destroys at once, dropping output a paused consumer has not taken yet.
        destroyWhenDrained(out, fail(err))
      }
    },
    flush(cb) {
      try {
        // fzstd throws "unexpected EOF" here when the last frame is cut short.
        if (sawInput) dec.push(new Uint8Array(0), true)
        cb()
      } catch (err) {
        destroyWhenDrained(out, fail(err))
      }
    },
  })
  return out
}

/**
 * Node's decoder behind the same contract as the fzstd path: output passed on
 * as each input chunk is decoded, errors as a located `bad-zstd` (the offset
 * is the end of the compressed chunk being decoded, as fzstd's).
 */
function nativeDecompress(create: NativeZstd, file: string | undefined): Transform {
  // Compressed bytes z has finished, and the lengths of the chunks it holds, in order: damage is
  // in the first of those, so the offset reached is the end of that one, however many wait behind it.
  let done = 0
  const held: number[] = []
  let waiting: TransformCallback | null = null
  let sawInput = false
  let failed = false
  // 16 KiB (zlib's default) outputs cost a callback, a push and often a line carried over each: match the read size.
  const z = create({ chunkSize: 256 * 1024 })
  const fail = (err: unknown): FerryError => zstdError(file, err, done + (held[0] ?? 0))
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      sawInput ||= chunk.length > 0
      held.push(chunk.length)
      z.write(chunk, () => {
        done += held.shift()!
        const w = waiting
        waiting = null
        w?.()
      })
      // One chunk may wait in z while it decodes another (in the thread pool), so the main thread
      // always has output to parse (see docs/performance.md, "native zstd one chunk ahead").
      // Beyond that the callback waits for z; and the Transform itself holds it while its output
      // is unread, so a consumer that stops reading still stops the file.
      if (held.length < 2) cb()
      else waiting = cb
    },
    flush(cb) {
      if (!sawInput) return cb()
      z.once('end', () => cb())
      z.end()
    },
    destroy(err, cb) {
      z.destroy()
      cb(err)
    },
  })
  // z itself is never paused: bytes left in its buffer would be lost when it errors.
  z.on('data', (b: Buffer) => out.push(b))
  z.on('error', (err) => {
    if (failed) return
    failed = true
    destroyWhenDrained(out, fail(err))
  })
  return out
}

export interface OpenBytesOptions {
  /** Force or forbid decompression; default: sniff the magic number. */
  compressed?: boolean
  highWaterMark?: number
  /** Which zstd decoder (default: native when this Node has it, else fzstd). */
  decoder?: ZstdDecoder
  /** Read a plain file only up to this byte offset (exclusive); a compressed file is read whole. */
  endByte?: number
}

/** The file's (decompressed) bytes as a stream, and whether it was compressed. */
export async function openBytes(path: string, opts: OpenBytesOptions = {}): Promise<{ stream: Readable; compressed: boolean }> {
  // One descriptor for the sniff and the stream: for thousands of small
  // sessions, opens were a good part of the per-session cost.
  const fd = openSync(path, 'r')
  let compressed: boolean
  try {
    const small = smallPlainFile(fd, opts)
    if (small) return { stream: small, compressed: false }
    compressed = opts.compressed ?? (await sniffZstd(fd))
  } catch (err) {
    close(fd, () => {})
    throw err
  }
  const end = !compressed && opts.endByte !== undefined ? { end: opts.endByte - 1 } : {}
  const raw = createReadStream(path, { fd, start: 0, ...end, highWaterMark: opts.highWaterMark ?? 256 * 1024 })
  if (!compressed) return { stream: raw, compressed }
  const dec = zstdDecompress(path, opts.decoder ?? defaultZstdDecoder())
  raw.on('error', (err) => dec.destroy(err))
  // A consumer that stops early destroys the decoder; the file must close with it.
  dec.on('close', () => raw.destroy())
  return { stream: raw.pipe(dec), compressed }
}

/** What `openChunks` gives: the chunks, and whether the file was compressed. */
export interface Chunks {
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>
  compressed: boolean
}

/** Size of the one buffer a plain file is read through by `openChunks`. */
const CHUNK = 256 * 1024

/**
 * The file's (decompressed) bytes like `openBytes`, as chunks that are valid
 * only until the next one is asked for: a plain file is read through one
 * buffer, reused. For a caller that is done with each chunk's bytes before
 * it asks for more (decoding them to strings): a fresh 256 KiB buffer per
 * read counts against V8's external memory, which forces full collections
 * and keeps old chunks resident between them (see docs/performance.md,
 * "reused read buffer"). The descriptor closes when the iteration ends,
 * early or not.
 */
export async function openChunks(path: string, opts: OpenBytesOptions = {}): Promise<Chunks> {
  const fd = openSync(path, 'r')
  let compressed: boolean
  try {
    const small = opts.compressed === true ? null : smallBytes(fd, opts.endByte, opts.compressed === undefined)
    if (small) {
      closeSync(fd)
      return { chunks: [small], compressed: false }
    }
    compressed = opts.compressed ?? (await sniffZstd(fd))
  } catch (err) {
    close(fd, () => {})
    throw err
  }
  if (compressed) {
    closeSync(fd)
    const { stream } = await openBytes(path, { ...opts, compressed: true })
    return { chunks: streamChunks(stream), compressed }
  }
  return { chunks: reusedReads(fd, opts.endByte, opts.highWaterMark ?? CHUNK), compressed }
}

async function* streamChunks(stream: Readable): AsyncGenerator<Buffer> {
  try {
    yield* stream as AsyncIterable<Buffer>
  } finally {
    stream.destroy()
  }
}

async function* reusedReads(fd: number, end: number | undefined, size: number): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafe(size)
  let pos = 0
  try {
    for (;;) {
      const want = end === undefined ? size : Math.min(size, end - pos)
      if (want <= 0) return
      const n = await new Promise<number>((res, rej) => read(fd, buf, 0, want, pos, (err, got) => (err ? rej(err) : res(got))))
      if (n === 0) return
      pos += n
      yield buf.subarray(0, n)
    }
  } finally {
    close(fd, () => {})
  }
}

/**
 * The first `n` bytes of the file's content, decompressed when it is zstd (only that far), or
 * fewer when it is shorter; damage after the bytes it gives does not matter here.
 */
export async function headBytes(path: string, n: number): Promise<Buffer> {
  const { stream } = await openBytes(path, { highWaterMark: Math.max(n, 16 * 1024) })
  const parts: Buffer[] = []
  let got = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parts.push(chunk)
      got += chunk.length
      if (got >= n) break
    }
  } catch (err) {
    if (!got) throw err
  } finally {
    stream.destroy()
  }
  return Buffer.concat(parts).subarray(0, n)
}

/** Plain files up to this size are read whole, synchronously, in one read. */
export const SMALL_FILE = 1024 * 1024

/**
 * The bytes of a file of at most SMALL_FILE bytes (up to `endByte`) through an
 * open descriptor, which stays open; null when it is bigger, or starts with the
 * zstd magic and `sniff` is set. The read is bounded, so the event loop is held briefly.
 */
function smallBytes(fd: number, endByte: number | undefined, sniff: boolean, into?: Buffer): Buffer | null {
  const size = fstatSync(fd).size
  if (size > SMALL_FILE) return null
  const len = endByte === undefined ? size : Math.min(size, endByte)
  const buf = into ?? Buffer.allocUnsafe(len)
  let got = 0
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, got)
    if (n === 0) break
    got += n
  }
  const data = buf.subarray(0, got)
  return sniff && got >= 4 && isZstdMagic(data.readUInt32LE(0)) ? null : data
}

/**
 * Whole small files are read into buffers borrowed from here and handed back
 * when their reader is done: a fresh buffer per file is fresh memory for
 * the kernel to map and fault in while it copies, which cost an archive
 * reader most of its time in read() (see docs/performance.md,
 * "lent buffers for small files").
 */
const spares: Buffer[] = []
const MAX_SPARES = 2

/**
 * A plain (not zstd) file of at most SMALL_FILE bytes, whole, in one open and one read; else null.
 * The bytes are borrowed: give them back with `returnSmallFile` once nothing refers to them.
 */
export function readSmallPlainFile(path: string): Buffer | null {
  const fd = openSync(path, 'r')
  const into = spares.pop() ?? Buffer.allocUnsafeSlow(SMALL_FILE)
  try {
    const data = smallBytes(fd, undefined, true, into)
    if (!data) returnSmallFile(into)
    return data
  } catch (err) {
    returnSmallFile(into)
    throw err
  } finally {
    closeSync(fd)
  }
}

/** Hands back what `readSmallPlainFile` lent (any view of it); it must not be read afterwards. */
export function returnSmallFile(data: Buffer): void {
  if (data.buffer.byteLength !== SMALL_FILE || spares.length >= MAX_SPARES) return
  const whole = Buffer.from(data.buffer, 0, SMALL_FILE)
  if (!spares.some((b) => b.buffer === whole.buffer)) spares.push(whole)
}

/**
 * A plain file of at most SMALL_FILE bytes as a one-chunk stream, read at
 * once through the already open descriptor (which is closed), or null (the
 * descriptor is then left open). Most sessions are small: for them the open,
 * the sniff, the reads and the close of a file stream were four or more
 * thread-pool round trips each, more than the bytes cost (profiled over
 * 10,000 sessions).
 */
function smallPlainFile(fd: number, opts: OpenBytesOptions): Readable | null {
  if (opts.compressed === true) return null
  const data = smallBytes(fd, opts.endByte, opts.compressed === undefined)
  if (!data) return null
  closeSync(fd)
  let sent = false
  return new Readable({
    read() {
      if (!sent && data.length) this.push(data)
      sent = true
      this.push(null)
    },
  })
}

function sniffZstd(fd: number): Promise<boolean> {
  const b = Buffer.alloc(4)
  return new Promise((res, rej) => read(fd, b, 0, 4, 0, (err, n) => (err ? rej(err) : res(n === 4 && isZstdMagic(b.readUInt32LE(0))))))
}
