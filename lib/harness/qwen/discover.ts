/**
 * Finding Qwen Code sessions: `<root>/projects/<sanitized cwd>/chats/<id>.jsonl`
 * and the sub-agents `subagents/<session id>/agent-*.jsonl` (listed as
 * archived, with their parent; their id is the file stem, since they carry
 * the parent's `sessionId`). Metadata from a bounded head (the first record's
 * `sessionId`, `timestamp`, `cwd`, `version`, the first typed prompt) and the
 * tail (the last `timestamp`, a `custom_title`).
 */
import { lstat } from 'node:fs/promises'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { isObj, sessionKey, type JsonObject } from '../../model.js'
import { mapAhead } from '../../io/ahead.js'
import { parseJsonLine, readEnds } from '../../io/line-file.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { store } from './paths.js'
import { isoTime as iso, listDir as entries, stripBom, wholeObject } from '../family/gemini-lines.js'
import { typedText } from './records.js'

const HEAD_BYTES = 256 * 1024
const TAIL_BYTES = 64 * 1024


/** Everything `ls` shows about one session file; null when it is not a Qwen Code session. */
export async function sessionInfo(ctx: StoreContext, path: string, parent?: string): Promise<SessionInfo | null> {
  let ends
  try {
    ends = await readEnds(path, { maxLines: 64, maxBytes: Math.min(HEAD_BYTES, ctx.maxLineBytes) }, TAIL_BYTES)
  } catch {
    return null
  }
  // The first record that parses (a damaged first line does not hide the session); the id is the file stem.
  let first: JsonObject | undefined
  for (const buf of ends.head.lines) {
    const v = parseJsonLine(stripBom(buf))
    if (isObj(v) && typeof v.sessionId === 'string' && typeof v.uuid === 'string' && typeof v.type === 'string') {
      first = v
      break
    }
  }
  const id = basename(path, '.jsonl')
  if (!first) {
    // Nothing in it parses (emptied, or cut inside its first record): still this session by its name (the
    // id is the file stem), so reading it reports the damage at its place instead of "no session".
    const cut = !parent && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) && ends.head.lines.every((b) => !wholeObject(b))
    return cut ? { harness: 'qwen', id, sid: sessionKey('qwen', id), path, locator: { path } } : null
  }
  if (!parent && first.sessionId !== id) return null
  const info: SessionInfo = { harness: 'qwen', id, sid: sessionKey('qwen', id), path, locator: { path } }
  if (typeof first.cwd === 'string' && first.cwd) info.cwd = first.cwd
  if (typeof first.version === 'string') info.agent_version = first.version
  if (typeof first.gitBranch === 'string' && first.gitBranch) info.git_branch = first.gitBranch
  const created = iso(first.timestamp)
  if (created) info.created_at = created
  let updated = created
  let custom: string | undefined
  for (const buf of ends.tail ?? []) {
    const v = parseJsonLine(buf)
    if (!isObj(v)) continue
    if (iso(v.timestamp) && (!updated || iso(v.timestamp)! > updated)) updated = iso(v.timestamp)
    // 0.24.4 writes `customTitle` (with `titleSource`); `title` is kept for files that have it.
    if (v.type === 'system' && v.subtype === 'custom_title' && isObj(v.systemPayload)) {
      const t = typeof v.systemPayload.customTitle === 'string' ? v.systemPayload.customTitle : v.systemPayload.title
      if (typeof t === 'string') custom = t
    }
  }
  if (updated) info.updated_at = updated
  if (custom?.trim()) {
    info.title = custom.trim()
    info.title_source = 'custom'
  } else {
    for (const buf of ends.head.lines) {
      const v = parseJsonLine(buf)
      if (!isObj(v) || v.type !== 'user' || !isObj(v.message)) continue
      const text = typedText(v.message.parts).trim()
      if (text) {
        info.title = text.split('\n')[0]!.slice(0, 200)
        info.title_source = 'first_prompt'
        break
      }
    }
  }
  for (const buf of ends.tail ?? []) {
    const v = parseJsonLine(buf)
    if (isObj(v) && typeof v.model === 'string') info.model = v.model
  }
  info.bytes = ends.size
  if (parent) {
    info.parent = parent
    info.archived = true
  }
  return info
}

interface Candidate {
  path: string
  parent?: string
}

async function* candidates(ctx: StoreContext): AsyncGenerator<Candidate> {
  const projects = join(store.root(ctx), 'projects')
  for (const p of await entries(projects)) {
    if (!p.dir) continue
    for (const e of await entries(join(projects, p.name, 'chats'))) {
      if (!e.dir && e.name.endsWith('.jsonl')) yield { path: join(projects, p.name, 'chats', e.name) }
    }
    for (const s of await entries(join(projects, p.name, 'subagents'))) {
      if (!s.dir) continue
      for (const e of await entries(join(projects, p.name, 'subagents', s.name))) {
        if (!e.dir && e.name.startsWith('agent-') && e.name.endsWith('.jsonl')) yield { path: join(projects, p.name, 'subagents', s.name, e.name), parent: sessionKey('qwen', s.name) }
      }
    }
  }
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  for await (const info of mapAhead(candidates(ctx), (c) => sessionInfo(ctx, c.path, c.parent))) {
    if (info && (opts.all || !info.archived)) yield info
  }
}

/** A path to a session file, or a session id / unique prefix. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (ref.includes('/') || ref.startsWith('.')) {
    const p = resolvePath(ref)
    try {
      if (!(await lstat(p)).isFile()) return null
    } catch {
      return null
    }
    const sub = basename(dirname(dirname(p))) === 'subagents'
    return sessionInfo(ctx, p, sub ? sessionKey('qwen', basename(dirname(p))) : undefined)
  }
  const matches: SessionInfo[] = []
  for await (const info of discover(ctx, { all: true })) {
    if (info.id === ref) return info
    if (info.id.startsWith(ref)) matches.push(info)
  }
  return matches.length === 1 ? matches[0]! : null
}
