/**
 * Finding sessions: one `<uuid>.jsonl` per session in each project folder of
 * `<root>/projects/`. Side folders (`<uuid>/subagents`, `<uuid>/tool-results`,
 * `memory/`) are not sessions and are never descended into.
 */
import { readdirSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AmbiguousError, reason } from '../../errors.js'
import { sessionKey } from '../../model.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { TEMP_PREFIX } from '../../io/atomic.js'
import { readHead, type LineContext } from '../../io/line-file.js'
import { cachedInfos } from '../discovery-cache.js'
import { readMeta } from './session-meta.js'
import { HARNESS, projectsDir, store } from './paths.js'

/**
 * A folder's entries, read synchronously: a store's folders are listed one after the other anyway, and with a
 * promise per folder the walk over 10,000 sessions in 90 folders took 60 CPU-ms against 24 (a fresh process).
 */
function dirents(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

function isSessionFile(name: string): boolean {
  return name.endsWith('.jsonl') && !name.startsWith('.') && !name.startsWith(TEMP_PREFIX) && name.length > 6
}

/** Session files, project folder by project folder (sorted, so listings are stable). */
export async function* sessionFiles(root: string): AsyncGenerator<string> {
  const projects = dirents(projectsDir(root)).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort()
  for (const p of projects) {
    const dir = join(projectsDir(root), p)
    const files = dirents(dir).filter((d) => d.isFile() && isSessionFile(d.name)).map((d) => d.name).sort()
    // `dir` is normalized and each name a plain file name: join's normalizing would find nothing to do.
    for (const f of files) yield `${dir}/${f}`
  }
}

export async function infoFor(ctx: StoreContext, path: string): Promise<SessionInfo> {
  const id = basename(path, '.jsonl')
  const info: SessionInfo = { harness: HARNESS, id, sid: sessionKey(HARNESS, id), path, locator: { path } }
  try {
    const m = await readMeta(ctx, path)
    info.bytes = m.bytes
    if (m.cwd) info.cwd = m.cwd
    if (m.title) info.title = m.title
    if (m.titleSource) info.title_source = m.titleSource
    if (m.model) info.model = m.model
    if (m.version) info.agent_version = m.version
    if (m.gitBranch) info.git_branch = m.gitBranch
    if (m.createdAt) info.created_at = m.createdAt
    info.updated_at = m.updatedAt ?? m.mtime.toISOString()
  } catch (err) {
    ctx.diagnostics.warn('unreadable', `cannot read session metadata: ${reason(err)}`, { file: path }, HARNESS)
  }
  return info
}

export async function* discover(ctx: StoreContext, _opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const root = store.root(ctx)
  // Heads and tails read a few files at a time, in order, lazily; an unchanged file's metadata comes from the cache.
  yield* cachedInfos(ctx, HARNESS, root, sessionFiles(root), (f) => infoFor(ctx, f))
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile()
  } catch {
    return false
  }
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory()
  } catch {
    return false
  }
}

const ENTRY_KEYS = ['uuid', 'parentUuid', 'sessionId', 'leafUuid']
const CLAUDE_TYPES = new Set(['summary', 'custom-title', 'ai-title', 'file-history-snapshot', 'queue-operation', 'last-prompt', 'user', 'assistant', 'system', 'attachment'])

/**
 * A path is a Claude Code transcript when its first entry has Claude's
 * envelope: other harnesses' `.jsonl` files (Codex rollouts, the ferry
 * stream) must not be claimed here.
 */
async function looksLikeClaude(ctx: LineContext, path: string): Promise<boolean> {
  // Past an overlong first line: a Cursor transcript whose first line is 50 MB must not be taken for an empty Claude session by its name.
  const { lines } = await readHead(path, { maxBytes: 256 * 1024, maxLines: 8, skipOverlong: true })
  if (lines.length === 0) return /^[0-9a-f-]{36}\.jsonl$/i.test(basename(path))
  for (const l of lines) {
    if (l.length > ctx.maxLineBytes) continue
    let o: unknown
    try {
      o = JSON.parse(l.toString('utf8'))
    } catch {
      continue
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return false
    const r = o as Record<string, unknown>
    if ('payload' in r || 'kind' in r) return false
    // Qwen Code's records have Claude's envelope but carry a Gemini Content (`parts`, never `content`).
    const m = r.message as Record<string, unknown> | undefined
    if (m && typeof m === 'object' && 'parts' in m && !('content' in m)) return false
    return ENTRY_KEYS.some((k) => k in r) || (typeof r.type === 'string' && CLAUDE_TYPES.has(r.type))
  }
  return false
}

/** A native id, a unique id prefix, or a path to the session file (or its side folder). */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (!ref || ref.includes('\0')) return null
  if (ref.includes('/') || ref.endsWith('.jsonl')) {
    const p = resolvePath(ref)
    if (p.endsWith('.jsonl') && (await isFile(p))) return (await looksLikeClaude(ctx, p)) ? infoFor(ctx, p) : null
    if (await isDir(p)) {
      const f = `${p.replace(/\/+$/, '')}.jsonl`
      if (await isFile(f)) return infoFor(ctx, f)
    }
    if (ref.includes('/')) return null
  }
  const id = ref.endsWith('.jsonl') ? ref.slice(0, -6) : ref
  if (id.includes('/') || id.startsWith('.')) return null
  const matches: string[] = []
  for await (const f of sessionFiles(store.root(ctx))) {
    const stem = basename(f, '.jsonl')
    if (stem === id) return infoFor(ctx, f)
    if (stem.startsWith(id)) matches.push(f)
  }
  if (matches.length === 1) return infoFor(ctx, matches[0]!)
  if (matches.length > 1) {
    throw new AmbiguousError(`"${ref}" matches ${matches.length} Claude Code sessions: ${matches.slice(0, 5).map((m) => basename(m, '.jsonl')).join(', ')}${matches.length > 5 ? ', …' : ''}`)
  }
  // A sub-agent (`<parent>/subagents/agent-<x>.jsonl`) by the id a write reported for it: exact ids only, so a typo costs one stat per session.
  for await (const f of sessionFiles(store.root(ctx))) {
    for (const stem of id.startsWith('agent-') ? [id] : [id, `agent-${id}`]) {
      const sub = join(f.slice(0, -'.jsonl'.length), 'subagents', `${stem}.jsonl`)
      if (await isFile(sub)) return { ...(await infoFor(ctx, sub)), parent: sessionKey(HARNESS, basename(f, '.jsonl')) }
    }
  }
  return null
}
