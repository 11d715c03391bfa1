/**
 * Listing ZCode sessions: one query over `session` per database, adapted to
 * the columns that database has. Archived sessions only with `all`;
 * sub-agent sessions are listed with their parent named.
 */
import { sessionKey } from '../../model.js'
import { AmbiguousError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { columns, dbError, openReadOnly } from '../../io/sqlite-readonly.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { databases, isDbFile } from './paths.js'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

const WANTED = ['id', 'parent_id', 'directory', 'path', 'title', 'title_source', 'version', 'time_created', 'time_updated', 'time_archived', 'task_type'] as const

export interface SessionRow {
  id: string
  message_count?: number | null
  parent_id?: string | null
  directory?: string | null
  path?: string | null
  title?: string | null
  title_source?: string | null
  version?: string | null
  time_created?: number | null
  time_updated?: number | null
  time_archived?: number | null
  task_type?: string | null
}

/** With `counted`, each session's message count too (one COUNT on `message`, indexed by session). */
export function sessionSelect(cols: Set<string>, counted = false): string {
  const count = counted ? ', (SELECT COUNT(*) FROM message WHERE message.session_id = session.id) AS message_count' : ''
  return `SELECT ${WANTED.filter((c) => cols.has(c)).join(', ')}${count} FROM session`
}

export function iso(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

/** ZCode's `title_source` in ferry's words (`default` is ZCode's placeholder title). */
export function titleSource(ts: string | null | undefined): string {
  switch (ts) {
    case 'generated':
      return 'ai'
    case 'custom':
      return 'custom'
    case 'default':
      return 'default'
    default:
      return 'first_prompt'
  }
}

export function toInfo(db: string, row: SessionRow): SessionInfo {
  const info: SessionInfo = { harness: 'zcode', id: row.id, sid: sessionKey('zcode', row.id), path: db, locator: { db, table: 'session', pk: row.id } }
  const cwd = row.directory || row.path
  if (cwd) info.cwd = cwd
  if (typeof row.message_count === 'number') info.message_count = row.message_count
  if (row.title) {
    info.title = row.title
    info.title_source = titleSource(row.title_source)
  }
  if (row.version) info.agent_version = row.version
  const created = iso(row.time_created)
  if (created) info.created_at = created
  const updated = iso(row.time_updated)
  if (updated) info.updated_at = updated
  if (row.parent_id) info.parent = sessionKey('zcode', row.parent_id)
  if (row.time_archived != null) info.archived = true
  return info
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  for (const path of databases(ctx)) {
    let h
    try {
      h = openReadOnly(path, { source: 'zcode' })
    } catch (err) {
      const e = dbError(err, path, 'zcode')
      ctx.diagnostics.error(e.code, e.message, e.position, 'zcode')
      continue
    }
    try {
      const cols = columns(h.db, 'session')
      if (!cols.has('id')) continue
      const where = !opts.all && cols.has('time_archived') ? ' WHERE time_archived IS NULL' : ''
      const order = cols.has('time_updated') ? ' ORDER BY time_updated DESC, id DESC' : ' ORDER BY id DESC'
      for (const row of h.db.prepare(sessionSelect(cols, columns(h.db, 'message').has('session_id')) + where + order).iterate() as IterableIterator<SessionRow>) yield toInfo(path, row)
    } catch (err) {
      const e = dbError(err, path, 'zcode')
      ctx.diagnostics.error(e.code, e.message, e.position, 'zcode')
    } finally {
      h.close()
    }
  }
}

/** The one top-level session of a database file given by path (null when it holds none or several). */
function byPath(path: string): SessionInfo | null {
  if (!isDbFile(path) || !existsSync(path)) return null
  let h
  try {
    h = openReadOnly(path, { source: 'zcode' })
  } catch {
    return null
  }
  try {
    const cols = columns(h.db, 'session')
    if (!cols.has('id')) return null
    const rows = h.db.prepare(`${sessionSelect(cols)}${cols.has('parent_id') ? ' WHERE parent_id IS NULL' : ''} LIMIT 2`).all() as SessionRow[]
    return rows.length === 1 ? toInfo(path, rows[0]!) : null
  } catch {
    return null
  } finally {
    h.close()
  }
}

/** A session by `zcode:<id>`, id, unique id prefix, or the path of a database holding exactly one session. */
export async function resolveSession(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  const id = ref.startsWith('zcode:') ? ref.slice('zcode:'.length) : ref
  if (id.includes('/')) return byPath(resolve(id))
  if (!id.startsWith('sess')) return null
  const found: SessionInfo[] = []
  for (const path of databases(ctx)) {
    let h
    try {
      h = openReadOnly(path, { source: 'zcode' })
    } catch {
      continue
    }
    try {
      const cols = columns(h.db, 'session')
      if (!cols.has('id')) continue
      const exact = h.db.prepare(`${sessionSelect(cols)} WHERE id = ?`).get(id) as SessionRow | undefined
      if (exact) return toInfo(path, exact)
      // substr, not LIKE: `_` in ids is a LIKE wildcard.
      for (const r of h.db.prepare(`${sessionSelect(cols)} WHERE substr(id, 1, ?) = ? LIMIT 2`).all(id.length, id) as SessionRow[]) found.push(toInfo(path, r))
    } catch (err) {
      throw dbError(err, path, 'zcode')
    } finally {
      h.close()
    }
  }
  if (found.length > 1) throw new AmbiguousError(`session prefix "${id}" is ambiguous (${found.map((f) => f.id).join(', ')}, …)`)
  return found[0] ?? null
}
