/**
 * Line handling Gemini CLI and Qwen Code files share: both are written by
 * Node's `JSON.stringify`, one value a line; a file an editor saved with a
 * byte order mark is still read from its first line.
 */
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** A line without a leading UTF-8 byte order mark. */
export function stripBom(buf: Buffer): Buffer {
  return buf.subarray(0, 3).equals(BOM) ? buf.subarray(3) : buf
}
