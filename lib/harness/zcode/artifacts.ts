/**
 * ZCode's artifact store: attachments and tool-result media that a `file` part
 * names as `zcode-artifact://<session id>/<artifact id>` instead of holding
 * them. ZCode keeps each one at `<storage dir>/cli/artifacts/<session
 * id>/file-<artifact id>.txt` (its content a `data:` URL) and reads it back
 * when it resumes a session; ferry does the same, so the image reaches the
 * target agent (docs/formats/zcode.md §Side stores).
 *
 * Never outside the artifacts root: ids are single path segments, and the
 * file's real path (symlinks resolved) must stay under the root's real path.
 */
import { closeSync, fstatSync, openSync, readSync, readdirSync, realpathSync } from 'node:fs'
import { join, sep } from 'node:path'
import type { StoreContext } from '../../context.js'
import { userRoot } from './paths.js'
import { reason } from '../../errors.js'

/** Bigger artifacts stay references (ZCode's own attachment reads are bounded too). */
export const ARTIFACT_CAP = 32 * 1024 * 1024

const URI = /^zcode-artifact:\/\/([^/]+)\/([^/]+)$/
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

export interface Inlined {
  mime: string
  data: string
}

/** `<storage dir>/cli/artifacts`: `$ZCODE_STORAGE_DIR` moves it (not the database), else the user root. */
export function artifactsRoot(ctx: StoreContext): string {
  const moved = ctx.roots.zcode ? undefined : ctx.env.ZCODE_STORAGE_DIR?.trim()
  return join(moved || userRoot(ctx), 'cli', 'artifacts')
}

export function isArtifactUri(url: string): boolean {
  return url.startsWith('zcode-artifact://')
}

/** The file of an artifact: ZCode's `file-<id>.txt`, else the one entry named for the id. */
function locate(dir: string, aid: string): string | undefined {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return undefined
  }
  if (names.includes(`file-${aid}.txt`)) return join(dir, `file-${aid}.txt`)
  const own = names.filter((n) => n === aid || n.startsWith(`${aid}.`) || n.endsWith(`-${aid}.txt`))
  return own.length === 1 ? join(dir, own[0]!) : undefined
}

function readCapped(file: string): Buffer | string {
  const fd = openSync(file, 'r')
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return 'not a regular file'
    if (st.size > ARTIFACT_CAP) return `${st.size} bytes, over the ${ARTIFACT_CAP}-byte cap`
    const buf = Buffer.alloc(st.size)
    let off = 0
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off)
      if (n === 0) break
      off += n
    }
    return buf.subarray(0, off)
  } finally {
    closeSync(fd)
  }
}

/**
 * The bytes an artifact URL stands for, as base64 with its MIME type, or a
 * reason it cannot be had (missing, too big, outside the root).
 */
export function readArtifact(root: string, url: string, mime: string): Inlined | { reason: string } {
  const m = URI.exec(url)
  if (!m || !SEGMENT.test(m[1]!) || !SEGMENT.test(m[2]!) || m[1]!.includes('..') || m[2]!.includes('..')) return { reason: 'not an artifact URL ferry can resolve' }
  const file = locate(join(root, m[1]!), m[2]!)
  if (!file) return { reason: `no file for it under ${join(root, m[1]!)}` }
  let real: string
  let rootReal: string
  try {
    real = realpathSync(file)
    rootReal = realpathSync(root)
  } catch (err) {
    return { reason: reason(err) }
  }
  if (!real.startsWith(rootReal + sep)) return { reason: `${file} leads outside the artifacts directory` }
  const got = readCapped(real)
  if (typeof got === 'string') return { reason: `${file}: ${got}` }
  const text = got.toString('latin1', 0, Math.min(got.length, 256))
  const d = /^data:([^;,]+)?(;base64)?,/.exec(text)
  if (d) {
    const body = got.toString('utf8', d[0].length)
    return { mime: d[1] ?? mime, data: d[2] ? body.trim() : Buffer.from(decodeURIComponent(body)).toString('base64') }
  }
  return { mime, data: got.toString('base64') }
}
