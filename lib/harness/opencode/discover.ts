/**
 * Listing sessions: one query over `session` per database, nothing else read.
 * Sub-agent (child) sessions and archived ones are listed only with `all`;
 * reading a parent emits its children anyway.
 */
import { sessionKey } from '../../model.js'
import { AmbiguousError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { columns, dbError, openReadOnly } from './db.js'
import { databases } from './paths.js'

/** Session columns ferry uses; any may be missing in older or newer schemas except `id`. */
const WANTED = ['id', 'parent_id', 'directory', 'title', 'version', 'model', 'time_created', 'time_updated', 'time_archived'] as const

export interface SessionRow {
  id: string
  parent_id?: string | null
  directory?: string | null
  title?: string | null
  version?: string | null
  model?: string | null
  time_created?: number | null
  time_updated?: number | null
  time_archived?: number | null
  message_count?: number | null
}

/**
 * `SELECT <known columns> FROM session`, adapted to the columns this database has;
 * with `counted`, each session's message count too (one indexed COUNT: `message` is indexed by session).
 */
export function sessionSelect(cols: Set<string>, counted = false): string {
  const count = counted ? ', (SELECT COUNT(*) FROM message WHERE message.session_id = session.id) AS message_count' : ''
  return `SELECT ${WANTED.filter((c) => cols.has(c)).join(', ')}${count} FROM session`
}

export function iso(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

/** Untitled sessions carry `New session - <time>`: not a title. */
export function realTitle(title: unknown): string | undefined {
  if (typeof title !== 'string' || title === '' || /^(New session|Child session) - /.test(title)) return undefined
  return title
}

export function modelOf(json: unknown): { id?: string; providerID?: string } {
  if (typeof json !== 'string') return {}
  try {
    const m = JSON.parse(json) as unknown
    if (m && typeof m === 'object') {
      const o = m as { id?: unknown; modelID?: unknown; providerID?: unknown }
      const id = typeof o.id === 'string' ? o.id : typeof o.modelID === 'string' ? o.modelID : undefined
      return { ...(id ? { id } : {}), ...(typeof o.providerID === 'string' ? { providerID: o.providerID } : {}) }
    }
  } catch {
    // a broken model column only loses the model name
  }
  return {}
}

export function toInfo(db: string, row: SessionRow): SessionInfo {
  const info: SessionInfo = {
    harness: 'opencode',
    id: row.id,
    sid: sessionKey('opencode', row.id),
    path: db,
    locator: { db, table: 'session', pk: row.id },
  }
  if (row.directory) info.cwd = row.directory
  const title = realTitle(row.title)
  if (title) {
    info.title = title
    info.title_source = 'ai'
  }
  const model = modelOf(row.model).id
  if (model) info.model = model
  if (row.version) info.agent_version = row.version
  if (typeof row.message_count === 'number') info.message_count = row.message_count
  const created = iso(row.time_created)
  if (created) info.created_at = created
  const updated = iso(row.time_updated)
  if (updated) info.updated_at = updated
  if (row.parent_id) info.parent = sessionKey('opencode', row.parent_id)
  if (row.time_archived != null) info.archived = true
  return info
}

function report(ctx: StoreContext, err: unknown, path: string): void {
  const e = dbError(err, path)
  ctx.diagnostics.error(e.code, e.message, e.position, 'opencode')
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  for (const path of databases(ctx)) {
    let h
    try {
      h = openReadOnly(path)
    } catch (err) {
      report(ctx, err, path)
      continue
    }
    try {
      const cols = columns(h.db, 'session')
      if (!cols.has('id')) continue
      const where: string[] = []
      if (!opts.all && cols.has('time_archived')) where.push('time_archived IS NULL')
      if (!opts.all && cols.has('parent_id')) where.push('parent_id IS NULL')
      const order = cols.has('time_created') ? ' ORDER BY time_created DESC, id' : ' ORDER BY id'
      const sql = sessionSelect(cols, columns(h.db, 'message').has('session_id')) + (where.length ? ` WHERE ${where.join(' AND ')}` : '') + order
      for (const row of h.db.prepare(sql).iterate() as IterableIterator<SessionRow>) yield toInfo(path, row)
    } catch (err) {
      // One unreadable database (corrupt, locked past the timeout) must not hide the others.
      report(ctx, err, path)
    } finally {
      h.close()
    }
  }
}

/** Finds a session by id, unique id prefix, or `opencode:<id>`, in every database. */
export async function resolveSession(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  const id = ref.startsWith('opencode:') ? ref.slice('opencode:'.length) : ref
  if (!id.startsWith('ses') || id.includes('/')) return null
  const found: SessionInfo[] = []
  for (const path of databases(ctx)) {
    let h
    try {
      h = openReadOnly(path)
    } catch {
      continue
    }
    try {
      const cols = columns(h.db, 'session')
      if (!cols.has('id')) continue
      const exact = h.db.prepare(`${sessionSelect(cols)} WHERE id = ?`).get(id) as SessionRow | undefined
      if (exact) return toInfo(path, exact)
      // substr instead of LIKE: `_` in ids is a LIKE wildcard.
      const rows = h.db.prepare(`${sessionSelect(cols)} WHERE substr(id, 1, ?) = ? LIMIT 2`).all(id.length, id) as SessionRow[]
      for (const r of rows) found.push(toInfo(path, r))
    } catch (err) {
      throw dbError(err, path)
    } finally {
      h.close()
    }
  }
  if (found.length > 1) throw new AmbiguousError(`session prefix "${id}" is ambiguous (${found.map((f) => f.id).join(', ')}, …)`)
  return found[0] ?? null
}
