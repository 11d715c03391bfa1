/**
 * A bounded read from the end of a file: what discovery uses for facts that
 * live at the end of a session (Claude titles, the last timestamp) without
 * reading the whole file.
 */
import { open } from 'node:fs/promises'

/** Complete lines within the last `maxBytes` of the file (the first, partial one dropped), in file order. */
export async function tailLines(path: string, size: number, maxBytes: number): Promise<Buffer[]> {
  if (size === 0) return []
  const fh = await open(path, 'r')
  try {
    const len = Math.min(size, maxBytes)
    const buf = Buffer.alloc(len)
    const { bytesRead } = await fh.read(buf, 0, len, size - len)
    const data = buf.subarray(0, bytesRead)
    let start = 0
    if (len < size) {
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
  } finally {
    await fh.close()
  }
}
