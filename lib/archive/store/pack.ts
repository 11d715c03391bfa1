/**
 * How a record is kept in the archive: its three stored parts (the record
 * as JSON without `native`, its native pass without the source line, and
 * that line as it came) packed into one run of bytes. The record's long
 * strings are nearly always the source line's own text (a message, a tool
 * output), so they are stored once: inside the record as a reference to
 * where the line holds the same JSON text, put back on reading. Before
 * schema 4 each part was a column of its own and the same text was kept two
 * or three times (see docs/performance.md, "archive storage").
 *
 * Schema 4 compressed each row alone (`packParts`: a codec byte, then the
 * row); schema 5 compresses a session's consecutive rows together
 * (`BlockBuilder`, `Block`). The first byte names the codec, so an archive
 * can mix them and any Node reads any row: zstd where Node has it (22.15+,
 * 23.8+), else Brotli (Node 20, which reads zstd with fzstd). Deflate was
 * Node 20's codec before Brotli, and is still read.
 */
import zlib from 'node:zlib'
import { decompress as fzstdDecompress } from 'fzstd'

export const CODEC_NONE = 0
export const CODEC_ZSTD = 1
export const CODEC_DEFLATE = 2
export const CODEC_BROTLI = 3

type Sync = (b: Uint8Array, o?: object) => Buffer
const z = zlib as unknown as { zstdCompressSync?: Sync; zstdDecompressSync?: Sync; constants: Record<string, number> }
const nativeZstd = typeof z.zstdCompressSync === 'function' && typeof z.zstdDecompressSync === 'function'

/** The codec this Node writes: `FERRY_ARCHIVE_CODEC=brotli|deflate|none` forces another (to compare them on one Node). */
function writeCodec(): number {
  const f = process.env.FERRY_ARCHIVE_CODEC
  if (f === 'none') return CODEC_NONE
  if (f === 'deflate') return CODEC_DEFLATE
  if (f === 'brotli' || !nativeZstd) return CODEC_BROTLI
  return CODEC_ZSTD
}
const CODEC = writeCodec()

/** Parts shorter than this are stored as they are: compressing them costs more than it saves. */
const MIN_COMPRESS = 96
/** Strings of the record shorter than this are not looked for in the source line. */
const MIN_REF = 40
/** Marks a reference in the record's JSON: JSON.stringify never writes U+0001 unescaped, so it cannot occur there. */
const MARK = '\u0001'
const REF = /\u0001([0-9a-z]+)\.([0-9a-z]+)\u0001/g

/** The stored parts of a record, as strings. */
export interface Parts {
  body: string
  native: string | null
  raw: string | null
  /** The record's JSON as stored (long strings as references into `raw`): smaller to parse for a top-level field. */
  delta?: string
}

/**
 * The record's JSON with each long string literal that the source line
 * holds verbatim (the same JSON escapes) replaced by `MARK off.len MARK`,
 * offsets in UTF-16 units of the line.
 */
export function deltaBody(body: string, raw: string): string {
  if (raw.length < MIN_REF) return body
  let out = ''
  let last = 0
  let hint = 0
  // String literals by hand, not by a regular expression: one of megabytes would exhaust its backtracking stack.
  for (let q = body.indexOf('"'); q >= 0; ) {
    let e = body.indexOf('"', q + 1)
    for (;;) {
      if (e < 0) return last === 0 ? body : out + body.slice(last)
      let bs = 0
      while (body.charCodeAt(e - 1 - bs) === 92) bs++
      if (bs % 2 === 0) break
      e = body.indexOf('"', e + 1)
    }
    const start = q + 1
    q = body.indexOf('"', e + 1)
    if (e - start < MIN_REF) continue
    const s = body.slice(start, e)
    // The record follows the line's order, so the next string is usually after the last one found.
    let at = raw.indexOf(s, hint)
    if (at < 0 && hint > 0) at = raw.indexOf(s)
    if (at < 0) continue
    hint = at + s.length
    out += body.slice(last, start) + MARK + at.toString(36) + '.' + s.length.toString(36) + MARK
    last = e
  }
  return last === 0 ? body : out + body.slice(last)
}

/** The record's JSON back from its delta and the source line. */
export function undeltaBody(delta: string, raw: string | null): string {
  if (raw === null || !delta.includes(MARK)) return delta
  return delta.replace(REF, (_, off: string, len: string) => {
    const o = parseInt(off, 36)
    return raw.slice(o, o + parseInt(len, 36))
  })
}

const FLAG_NATIVE = 1
const FLAG_RAW = 2
const HEAD = 1 + 1 + 4 + 4

/**
 * One row's BLOB: `codec` byte, then (compressed unless CODEC_NONE) a flags
 * byte, the byte lengths of the source line and the native pass (u32 LE),
 * the line, the native pass, and the record's JSON (delta) to the end.
 */
export function packParts(body: string, native: string | null, raw: string | null, codec = CODEC): Uint8Array {
  const delta = raw === null ? body : deltaBody(body, raw)
  const rawLen = raw === null ? 0 : Buffer.byteLength(raw)
  const natLen = native === null ? 0 : Buffer.byteLength(native)
  const bodyLen = Buffer.byteLength(delta)
  const plain = Buffer.allocUnsafe(HEAD + rawLen + natLen + bodyLen)
  plain[1] = (native === null ? 0 : FLAG_NATIVE) | (raw === null ? 0 : FLAG_RAW)
  plain.writeUInt32LE(rawLen, 2)
  plain.writeUInt32LE(natLen, 6)
  let at = HEAD
  if (raw !== null) at += plain.write(raw, at, 'utf8')
  if (native !== null) at += plain.write(native, at, 'utf8')
  plain.write(delta, at, 'utf8')
  if (plain.length - 1 < MIN_COMPRESS) codec = CODEC_NONE
  if (codec === CODEC_NONE) {
    plain[0] = CODEC_NONE
    return plain
  }
  return compressed(plain.subarray(1), codec, ROW_DEFLATE_LEVEL)
}

/** `plain` compressed with `codec` (not none), after the codec's byte: a stored BLOB. */
function compressed(plain: Uint8Array, codec: number, deflateLevel: number): Buffer {
  const c = codec === CODEC_ZSTD ? zstdCompress(plain) : codec === CODEC_BROTLI ? brotliCompress(plain) : zlib.deflateRawSync(plain, { level: deflateLevel })
  const out = Buffer.allocUnsafe(c.length + 1)
  out[0] = codec
  c.copy(out, 1)
  return out
}

/** Deflate's level for a row compressed alone (schema 4's rows, as the upgrade tests make them). */
const ROW_DEFLATE_LEVEL = 1

function zstdCompress(b: Uint8Array): Buffer {
  if (!nativeZstd) throw new Error('this Node has no zstd compressor')
  return z.zstdCompressSync!(b, { pledgedSrcSize: b.length })
}

/**
 * Brotli's quality for Node 20's blocks: 3 makes blocks nearly as small as zstd 3 does, smaller than deflate at any level
 * and for less CPU; the size hint (the block's length) spares it sizing its buffers (docs/performance.md, "Archive blocks
 * on the reader threads").
 */
const BROTLI_QUALITY = 3

function brotliCompress(b: Uint8Array): Buffer {
  const k = zlib.constants
  return zlib.brotliCompressSync(b, { params: { [k.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [k.BROTLI_PARAM_SIZE_HINT]: b.length } })
}

/** Whether this Node writes zstd rows (else Brotli). */
export const writesZstd = nativeZstd

/** A BLOB's payload, uncompressed (its first byte names the codec). */
function inflate(data: Uint8Array): Uint8Array {
  const codec = data[0]
  const rest = data.subarray(1)
  if (codec === CODEC_NONE) return rest
  if (codec === CODEC_DEFLATE) return zlib.inflateRawSync(rest)
  if (codec === CODEC_BROTLI) return zlib.brotliDecompressSync(rest)
  if (codec === CODEC_ZSTD) return nativeZstd ? z.zstdDecompressSync!(rest) : fzstdDecompress(rest)
  throw new Error(`unknown archive codec ${String(codec)}`)
}

/** The stored parts back from a row's BLOB. */
export function unpackParts(data: Uint8Array): Parts {
  return unpackPlain(inflate(data))
}

/** The stored parts back from a row's uncompressed bytes (a BLOB without its codec byte, or a block's slot). */
export function unpackPlain(p: Uint8Array): Parts {
  const b = Buffer.from(p.buffer, p.byteOffset, p.byteLength)
  const flags = b[0]!
  const rawLen = b.readUInt32LE(1)
  const natLen = b.readUInt32LE(5)
  let at = HEAD - 1
  const raw = flags & FLAG_RAW ? b.toString('utf8', at, at + rawLen) : null
  at += rawLen
  const native = flags & FLAG_NATIVE ? b.toString('utf8', at, at + natLen) : null
  at += natLen
  const delta = b.toString('utf8', at)
  return { body: undeltaBody(delta, raw), native, raw, delta }
}

/** A top-level string field of the record, read from its delta (a tenth of its JSON to parse, as a rule). */
export function recordField(p: Parts, key: string): string | null {
  // A reference's marks are bare control characters, which JSON.parse refuses: escaped for it here.
  let v = p.delta === undefined ? undefined : (JSON.parse(p.delta.replaceAll(MARK, '\\u0001')) as Record<string, unknown>)[key]
  // A field that was itself a reference (or held the mark's character): read from the whole record.
  if (p.delta === undefined || (typeof v === 'string' && v.includes(MARK))) v = (JSON.parse(p.body) as Record<string, unknown>)[key]
  return typeof v === 'string' ? v : null
}

/**
 * Schema 5 keeps a session's consecutive rows together: a block is the
 * uncompressed rows (each a BLOB above without its codec byte) after a
 * count and their end offsets (u32 LE), compressed as one, so a session
 * costs one compression context per block instead of one per row, and
 * what rows share (keys, paths, the same tool names) is compressed once
 * (docs/performance.md, "Size: blocks of rows").
 */
export const BLOCK_BYTES = 64 * 1024

/** Rows gathered into one block; `seal` gives its BLOB, with the codec byte first as a row's. */
export class BlockBuilder {
  readonly rows: Uint8Array[] = []
  bytes = 0

  /**
   * Adds a row (its uncompressed bytes) and returns its index in the block. Copied unless `own`: the writer's rows are views of
   * a reader thread's batch buffer, handed back once written.
   */
  add(plain: Uint8Array, own = false): number {
    this.rows.push(own ? plain : Buffer.from(plain))
    this.bytes += plain.length
    return this.rows.length - 1
  }

  get full(): boolean {
    return this.bytes >= BLOCK_BYTES
  }

  seal(codec = CODEC): Uint8Array {
    const n = this.rows.length
    const plain = Buffer.allocUnsafe(4 + 4 * n + this.bytes)
    plain.writeUInt32LE(n, 0)
    let at = 4 + 4 * n
    for (let i = 0; i < n; i++) {
      const r = this.rows[i]!
      plain.set(r, at)
      at += r.length
      plain.writeUInt32LE(at - 4 - 4 * n, 4 + 4 * i)
    }
    if (plain.length < MIN_COMPRESS) codec = CODEC_NONE
    if (codec === CODEC_NONE) return Buffer.concat([Buffer.from([CODEC_NONE]), plain])
    return compressed(plain, codec, BLOCK_DEFLATE_LEVEL)
  }
}

/** Deflate's level for blocks (Node 20's codec before Brotli; still asked for with FERRY_ARCHIVE_CODEC=deflate). */
const BLOCK_DEFLATE_LEVEL = 5

/** A block's rows, uncompressed: `row(i)` is the i-th row's bytes (for `unpackPlain`). */
export class Block {
  private readonly b: Buffer
  private readonly n: number

  constructor(data: Uint8Array) {
    const p = inflate(data)
    this.b = Buffer.from(p.buffer, p.byteOffset, p.byteLength)
    this.n = this.b.readUInt32LE(0)
  }

  get length(): number {
    return this.n
  }

  /** Its uncompressed size, offsets included. */
  get bytes(): number {
    return this.b.length
  }

  row(i: number): Uint8Array {
    if (!(i >= 0 && i < this.n)) throw new Error(`row ${i} is not in its block (${this.n} rows)`)
    const base = 4 + 4 * this.n
    const start = i === 0 ? 0 : this.b.readUInt32LE(4 + 4 * (i - 1))
    const end = this.b.readUInt32LE(4 + 4 * i)
    return this.b.subarray(base + start, base + end)
  }
}

/** A row's uncompressed bytes from its BLOB (an uncompressed one, CODEC_NONE, as the row makers hand them on, costs nothing). */
export function plainOf(data: Uint8Array): Uint8Array {
  return inflate(data)
}

/** Whether two rows' uncompressed bytes hold the same parts (equal bytes, or equal once unpacked). */
export function samePlain(a: Uint8Array, b: Uint8Array): boolean {
  if (Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)) return true
  const x = unpackPlain(a)
  const y = unpackPlain(b)
  return x.body === y.body && x.native === y.native && x.raw === y.raw
}

