/**
 * Finding Pi sessions: `<sessions>/--<cwd>--/*.jsonl` (or `*.jsonl` directly
 * in `$PI_CODING_AGENT_SESSION_DIR`). As in Pi's own list, a file is a
 * session when its first line is a `session` header; the header names the
 * id and cwd, the head the first prompt, the tail the newest name, model
 * and time. Nothing here parses a whole file.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AmbiguousError, reason } from '../../errors.js'
import { isObj, sessionKey, type JsonObject } from '../../model.js'
import { TEMP_PREFIX } from '../../io/atomic.js'
import { lineStart } from '../../io/json-bytes.js'
import { parseJsonLine, readEnds, readHead } from '../../io/line-file.js'
import { cachedInfos } from '../discovery-cache.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { HARNESS, idFromFileName, sessionsDir } from './paths.js'
import { promptTitle } from './text.js'

const HEAD = { maxLines: 8, maxBytes: 256 * 1024 }
const TAIL_BYTES = 64 * 1024

async function dirents(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

const isSessionFile = (name: string): boolean => name.endsWith('.jsonl') && name.length > 6 && !name.startsWith('.') && !name.startsWith(TEMP_PREFIX)

/** Session files, project folder by project folder, sorted so listings are stable. */
export async function* sessionFiles(ctx: StoreContext): AsyncGenerator<string> {
  const { dir, flat } = sessionsDir(ctx)
  const ents = await dirents(dir)
  if (flat) {
    for (const f of ents.filter((d) => d.isFile() && isSessionFile(d.name)).map((d) => d.name).sort()) yield join(dir, f)
    return
  }
  for (const p of ents.filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort()) {
    const files = (await dirents(join(dir, p))).filter((d) => d.isFile() && isSessionFile(d.name)).map((d) => d.name).sort()
    for (const f of files) yield join(dir, p, f)
  }
}

/** The header of a line, when it is one: `{type:"session", id:<string>}` (what Pi checks). */
export function headerOf(v: unknown): JsonObject | null {
  return isObj(v) && v.type === 'session' && typeof v.id === 'string' && v.id !== '' ? v : null
}

const parse = (b: Buffer): unknown => parseJsonLine(b.subarray(lineStart(b)))

/** Pi's file name, `<ISO time with - for : and .>_<id>.jsonl`: a session even when its header is damaged. */
const PI_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_([A-Za-z0-9-]+)\.jsonl$/

/** Cheap metadata of one file; null when its first line is not a Pi header. */
export async function infoFor(ctx: StoreContext, path: string): Promise<SessionInfo | null> {
  let ends
  try {
    ends = await readEnds(path, HEAD, TAIL_BYTES)
  } catch (err) {
    ctx.diagnostics.warn('unreadable', `cannot read session metadata: ${reason(err)}`, { file: path }, HARNESS)
    return null
  }
  const first = ends.head.lines[0]
  const h = first && first.length <= ctx.maxLineBytes ? headerOf(parse(first)) : null
  // A damaged header in a file Pi named is still that session (reading it reports the header); any other file is not Pi's.
  const named = PI_NAME.exec(basename(path))?.[1]
  if (!h && !named) return null
  const id: string = h ? h.id : named!
  const info: SessionInfo = { harness: HARNESS, id, sid: sessionKey(HARNESS, id), path, locator: { path }, bytes: ends.size }
  if (typeof h?.cwd === 'string' && h.cwd) info.cwd = h.cwd
  if (typeof h?.timestamp === 'string') info.created_at = h.timestamp
  for (const b of ends.head.lines.slice(h ? 1 : 0)) {
    if (b.length > ctx.maxLineBytes) continue
    const e = parse(b)
    if (isObj(e) && e.type === 'message' && isObj(e.message) && e.message.role === 'user') {
      const t = promptTitle(e.message.content)
      if (t) [info.title, info.title_source] = [t, 'first_prompt']
      break
    }
  }
  let hasName = false
  const tail = ends.tail ?? []
  for (let i = tail.length - 1; i >= 0; i--) {
    const e = parse(tail[i]!)
    if (!isObj(e)) continue
    if (!info.updated_at && typeof e.timestamp === 'string' && e.type !== 'session') info.updated_at = e.timestamp
    if (!info.model && e.type === 'message' && isObj(e.message) && e.message.role === 'assistant' && typeof e.message.model === 'string') info.model = e.message.model
    if (!info.model && e.type === 'model_change' && typeof e.modelId === 'string') info.model = e.modelId
    if (!hasName && e.type === 'session_info') {
      hasName = true
      const name = typeof e.name === 'string' ? e.name.trim() : ''
      if (name) [info.title, info.title_source] = [name, 'custom']
    }
    if (info.updated_at && info.model && hasName) break
  }
  info.updated_at ??= ends.mtime.toISOString()
  if (typeof h?.parentSession === 'string' && h.parentSession) {
    info.parent = sessionKey(HARNESS, idFromFileName(basename(h.parentSession)))
  }
  return info
}

export async function* discover(ctx: StoreContext, _opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  yield* cachedInfos(ctx, HARNESS, sessionsDir(ctx).dir, sessionFiles(ctx), (f) => infoFor(ctx, f))
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile()
  } catch {
    return false
  }
}

/** Whether a file outside the store is a Pi session: its first line is a Pi header. */
async function looksLikePi(ctx: StoreContext, path: string): Promise<boolean> {
  const { lines } = await readHead(path, { maxLines: 1, maxBytes: Math.min(ctx.maxLineBytes, 1024 * 1024) })
  return lines.length > 0 && headerOf(parse(lines[0]!)) !== null
}

/** A session id, a unique id prefix, or a path to a session file. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (!ref || ref.includes('\0')) return null
  if (ref.includes('/') || ref.endsWith('.jsonl')) {
    const p = resolvePath(ref)
    if (p.endsWith('.jsonl') && (await isFile(p)) && (await looksLikePi(ctx, p))) return infoFor(ctx, p)
    if (ref.includes('/')) return null
  }
  const matches: SessionInfo[] = []
  for await (const f of sessionFiles(ctx)) {
    // The file name carries the id; the header decides (a renamed file keeps its header's id).
    const stemId = basename(f, '.jsonl').slice(basename(f, '.jsonl').lastIndexOf('_') + 1)
    if (!stemId.startsWith(ref) && !basename(f, '.jsonl').startsWith(ref)) continue
    const info = await infoFor(ctx, f)
    if (!info) continue
    if (info.id === ref) return info
    if (info.id.startsWith(ref) || basename(f, '.jsonl') === ref) matches.push(info)
  }
  if (matches.length === 1) return matches[0]!
  if (matches.length > 1) throw new AmbiguousError(`"${ref}" matches ${matches.length} Pi sessions: ${matches.slice(0, 5).map((m) => m.id).join(', ')}${matches.length > 5 ? ', …' : ''}`)
  return null
}
