/**
 * Line handling Gemini CLI and Qwen Code files share: both are written by
 * Node's `JSON.stringify`, one value a line; a file an editor saved with a
 * byte order mark is still read from its first line.
 */
import { readdir } from 'node:fs/promises'
import { TEMP_PREFIX } from '../../io/atomic.js'

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** A line without a leading UTF-8 byte order mark. */
export function stripBom(buf: Buffer): Buffer {
  return buf.subarray(0, 3).equals(BOM) ? buf.subarray(3) : buf
}

/**
 * Whether a line is one complete JSON object (a byte order mark allowed). parseJsonLine also reads a
 * torn line's leading fields; this tells an emptied or cut recording from a whole one.
 */
export function wholeObject(buf: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(stripBom(buf).toString('utf8'))
    return typeof v === 'object' && v !== null && !Array.isArray(v)
  } catch {
    return false
  }
}

/** An ISO time string, normalised; undefined when it does not parse. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined
  const t = Date.parse(v)
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined
}

/** A folder's entries, ferry's temp files left out, sorted by name; none when it cannot be read. */
export async function listDir(dir: string): Promise<Array<{ name: string; dir: boolean }>> {
  try {
    const ents = await readdir(dir, { withFileTypes: true })
    return ents.filter((e) => !e.name.startsWith(TEMP_PREFIX)).map((e) => ({ name: e.name, dir: e.isDirectory() })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch {
    return []
  }
}

/** One line as a JSON value (its first line without a byte order mark); null for a blank line, an Error for one that does not parse. */
export function lineValue(buf: Buffer, no: number): { raw: string; value: unknown } | null | Error {
  const raw = (no === 0 ? stripBom(buf) : buf).toString('utf8')
  if (raw.trim() === '') return null
  try {
    return { raw, value: JSON.parse(raw) as unknown }
  } catch (err) {
    return err as Error
  }
}
