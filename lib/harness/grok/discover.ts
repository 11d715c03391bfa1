/**
 * Finding Grok sessions: `<root>/sessions/<group>/<id>/` directories holding
 * `summary.json` (what Grok itself requires) or, for sessions in the wild
 * without one, `chat_history.jsonl` / `updates.jsonl`. Metadata comes from
 * `summary.json` alone; the logs are only touched (one bounded head read of
 * `updates.jsonl`) when there is no summary. Stray files (`prompt_history.jsonl`,
 * `session_search.sqlite`, `.cwd`) are not directories and are skipped.
 */
import { lstat, open, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { isObj, sessionKey, type JsonObject } from '../../model.js'
import { TEMP_PREFIX } from '../../io/atomic.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { parseJsonLine, readHead } from '../../io/line-file.js'
import { snakeSummary } from './summary-keys.js'
import { decodeGroupName, isSafeComponent, store } from './paths.js'

const SUMMARY_CAP = 8 * 1024 * 1024
const HEAD_CAP = 64 * 1024

export const SESSION_FILES = ['summary.json', 'chat_history.jsonl', 'updates.jsonl'] as const

async function readCapped(path: string, cap: number): Promise<string | null> {
  let fh
  try {
    fh = await open(path, 'r')
  } catch {
    return null
  }
  try {
    const buf = Buffer.alloc(cap)
    const { bytesRead } = await fh.read(buf, 0, cap, 0)
    return buf.subarray(0, bytesRead).toString('utf8')
  } finally {
    await fh.close()
  }
}

export interface SummaryRead {
  raw: string
  value: JsonObject
}

/** summary.json parsed, or null when absent; a corrupt one is reported and treated as absent. */
export async function readSummary(ctx: StoreContext, dir: string): Promise<SummaryRead | null> {
  const path = join(dir, 'summary.json')
  let size: number
  try {
    const st = await stat(path)
    if (!st.isFile()) return null
    size = st.size
  } catch {
    return null
  }
  if (size > SUMMARY_CAP) {
    ctx.diagnostics.error('bad-meta', `summary.json larger than ${SUMMARY_CAP} bytes, ignored`, { file: path }, 'grok')
    return null
  }
  const raw = (await readCapped(path, size)) ?? ''
  try {
    const value = JSON.parse(raw)
    // Legacy camelCase keys read as their snake_case twins (summary-keys.ts).
    if (isObj(value)) return { raw, value: snakeSummary(value) }
  } catch {
    /* reported below */
  }
  ctx.diagnostics.error('bad-meta', 'summary.json is not a JSON object, ignored', { file: path }, 'grok')
  return null
}

/** RFC 3339 with milliseconds, or undefined. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined
  const t = typeof v === 'number' ? v : Date.parse(v)
  // Finite is not enough: Date's range is ±8.64e15 ms, and toISOString throws past it (a `1e300` in summary.json).
  return Number.isFinite(t) && Math.abs(t) <= 8.64e15 ? new Date(t).toISOString() : undefined
}

export function titleOf(s: JsonObject): { title?: string; source?: string } {
  const g = typeof s.generated_title === 'string' ? s.generated_title.trim() : ''
  if (g) return { title: g, source: s.title_is_manual ? 'custom' : 'ai' }
  const ss = typeof s.session_summary === 'string' ? s.session_summary.trim() : ''
  return ss ? { title: ss, source: 'summary' } : {}
}

export async function groupCwd(groupDir: string): Promise<string | undefined> {
  const name = basename(groupDir)
  const direct = decodeGroupName(name)
  if (direct !== undefined) return direct
  return decodeGroupName(name, await readCapped(join(groupDir, '.cwd'), HEAD_CAP))
}

async function isSessionDir(dir: string): Promise<boolean> {
  for (const f of SESSION_FILES) {
    try {
      if ((await stat(join(dir, f))).isFile()) return true
    } catch {
      /* absent */
    }
  }
  return false
}

/** Epoch seconds / agentTimestampMs of the first updates line (bounded head read). */
async function firstUpdateTime(ctx: StoreContext, dir: string): Promise<string | undefined> {
  let lines: Buffer[]
  try {
    lines = (await readHead(join(dir, 'updates.jsonl'), { maxLines: 1, maxBytes: Math.min(HEAD_CAP, ctx.maxLineBytes) })).lines
  } catch {
    return undefined
  }
  // A torn or over-long first line just means no time here; reading the session reports it.
  const env = lines[0] ? parseJsonLine(lines[0]) : undefined
  if (!isObj(env)) return undefined
  const ms = isObj(env.params) && isObj(env.params._meta) ? env.params._meta.agentTimestampMs : undefined
  if (typeof ms === 'number') return isoTime(ms)
  if (typeof env.timestamp === 'number' && env.timestamp > 0) return isoTime(env.timestamp * 1000)
  return undefined
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size
  } catch {
    return 0
  }
}

/** Everything `ls` shows about one session directory. */
export async function sessionInfo(ctx: StoreContext, dir: string): Promise<SessionInfo | null> {
  if (!(await isSessionDir(dir))) return null
  const id = basename(dir)
  const summary = await readSummary(ctx, dir)
  const s = summary?.value ?? {}
  const info: SessionInfo = { harness: 'grok', id, sid: sessionKey('grok', id), path: dir, locator: { path: dir } }
  const sumCwd = isObj(s.info) && typeof s.info.cwd === 'string' && s.info.cwd ? s.info.cwd : undefined
  const cwd = sumCwd ?? (await groupCwd(dirname(dir)))
  if (cwd) info.cwd = cwd
  const { title, source } = titleOf(s)
  if (title) info.title = title
  if (title && source) info.title_source = source
  if (typeof s.current_model_id === 'string' && s.current_model_id) info.model = s.current_model_id
  if (typeof s.head_branch === 'string' && s.head_branch) info.git_branch = s.head_branch
  const created = isoTime(s.created_at) ?? (summary ? undefined : await firstUpdateTime(ctx, dir))
  if (created) info.created_at = created
  let updated = isoTime(s.last_active_at) ?? isoTime(s.updated_at)
  if (!updated && !summary) {
    try {
      updated = (await stat(join(dir, 'updates.jsonl'))).mtime.toISOString()
    } catch {
      /* no updates file */
    }
  }
  if (updated) info.updated_at = updated
  if (typeof s.num_chat_messages === 'number') info.message_count = s.num_chat_messages
  if (typeof s.parent_session_id === 'string' && isSafeComponent(s.parent_session_id)) info.parent = sessionKey('grok', s.parent_session_id)
  const hidden = typeof s.hidden === 'boolean' ? s.hidden : typeof s.session_kind === 'string' && s.session_kind.startsWith('subagent')
  if (hidden) info.archived = true
  info.bytes = (await sizeOf(join(dir, 'chat_history.jsonl'))) + (await sizeOf(join(dir, 'updates.jsonl'))) + (await sizeOf(join(dir, 'summary.json')))
  return info
}

async function dirEntries(dir: string): Promise<string[]> {
  try {
    const ents = await readdir(dir, { withFileTypes: true })
    return ents.filter((e) => e.isDirectory() && !e.name.startsWith(TEMP_PREFIX)).map((e) => e.name).sort()
  } catch {
    return []
  }
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const sessions = join(store.root(ctx), 'sessions')
  for (const group of await dirEntries(sessions)) {
    for (const name of await dirEntries(join(sessions, group))) {
      const info = await sessionInfo(ctx, join(sessions, group, name))
      if (info && (opts.all || !info.archived)) yield info
    }
  }
}

/** A path to a session dir or to one of its files, or a native id / unique prefix. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (ref.includes('/') || ref.startsWith('.')) {
    let p = resolvePath(ref)
    try {
      const st = await lstat(p)
      if (st.isFile()) p = dirname(p)
      else if (!st.isDirectory()) return null
    } catch {
      return null
    }
    return sessionInfo(ctx, p)
  }
  const matches: SessionInfo[] = []
  for await (const info of discover(ctx, { all: true })) {
    if (info.id === ref) return info
    if (info.id.startsWith(ref)) matches.push(info)
  }
  return matches.length === 1 ? matches[0]! : null
}
