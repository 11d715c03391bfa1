/**
 * Just enough protobuf for Cursor's store.db graph blobs: a tolerant
 * decoder (returns null on anything that is not well-formed wire format) and
 * an encoder for the root blob ferry writes. The schema is unpublished; field
 * numbers follow codeburn's parser (root: 1 = message blob ids in order,
 * 9 = workspace URI, 26 = ms timestamp).
 */

export type Field = { no: number; wire: number; value: bigint | Buffer }

export function decode(buf: Buffer): Field[] | null {
  const out: Field[] = []
  let i = 0
  const varint = (): bigint | null => {
    let shift = 0n
    let v = 0n
    for (;;) {
      if (i >= buf.length || shift > 63n) return null
      const b = buf[i++]!
      v |= BigInt(b & 0x7f) << shift
      if (!(b & 0x80)) return v
      shift += 7n
    }
  }
  while (i < buf.length) {
    const key = varint()
    if (key === null) return null
    const no = Number(key >> 3n)
    const wire = Number(key & 7n)
    if (no === 0) return null
    if (wire === 0) {
      const v = varint()
      if (v === null) return null
      out.push({ no, wire, value: v })
    } else if (wire === 2) {
      const len = varint()
      if (len === null || i + Number(len) > buf.length) return null
      out.push({ no, wire, value: buf.subarray(i, i + Number(len)) })
      i += Number(len)
    } else if (wire === 1) {
      if (i + 8 > buf.length) return null
      out.push({ no, wire, value: buf.subarray(i, i + 8) })
      i += 8
    } else if (wire === 5) {
      if (i + 4 > buf.length) return null
      out.push({ no, wire, value: buf.subarray(i, i + 4) })
      i += 4
    } else return null
  }
  return out
}

/** Blob ids a root lists in field 1 (raw 32-byte hashes or 64-hex strings), or null when it is no root. */
export function rootBlobIds(buf: Buffer): string[] | null {
  const f = decode(buf)
  if (!f || f.length === 0) return null
  const ids: string[] = []
  for (const x of f) {
    if (x.no !== 1 || !Buffer.isBuffer(x.value)) continue
    if (x.value.length === 32) ids.push(x.value.toString('hex'))
    else if (x.value.length === 64 && /^[0-9a-f]{64}$/.test(x.value.toString('latin1'))) ids.push(x.value.toString('latin1'))
  }
  return ids.length ? ids : null
}

function varintBytes(v: bigint): number[] {
  const out: number[] = []
  do {
    let b = Number(v & 0x7fn)
    v >>= 7n
    if (v > 0n) b |= 0x80
    out.push(b)
  } while (v > 0n)
  return out
}

function lenField(no: number, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...varintBytes(BigInt((no << 3) | 2)), ...varintBytes(BigInt(data.length))]), data])
}

/** The root blob: field 1 = each message blob id (raw 32 bytes), 9 = workspace URI, 26 = ms time. */
export function encodeRoot(blobIds: string[], workspaceUri: string, ms: number): Buffer {
  return Buffer.concat([
    ...blobIds.map((id) => lenField(1, Buffer.from(id, 'hex'))),
    lenField(9, Buffer.from(workspaceUri, 'utf8')),
    Buffer.from([...varintBytes(BigInt((26 << 3) | 0)), ...varintBytes(BigInt(Math.max(0, Math.floor(ms))))]),
  ])
}
