/**
 * The OpenCode tables (`session`, `message`, `part`) as rows: listing and
 * resolving sessions, a session row as a SessionInfo and as a session header,
 * sub-agent links, reading under one connection, and inserting rows. OpenCode
 * and ZCode (and Kilo, an OpenCode fork) keep their sessions in these tables;
 * what differs between them is data, a `Layout`.
 */
import { existsSync } from 'node:fs'
import type { Readable } from 'node:stream'
import type Database from 'better-sqlite3'
import { recordId, sessionKey, sessionRecord, type EndRec, type FerryRecord, type SessionLink, type SessionRec } from '../../model.js'
import { AmbiguousError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { readableOf } from '../../io/drain.js'
import { columns, dbError, openReadOnly, type ReadOnlyDb } from '../../io/sqlite-readonly.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { hasV2, NOT_MIGRATED, V2_MESSAGE_COUNT } from './opencode-v2-schema.js'

/** One harness's database, as the family's code needs to know it. */
export interface Layout {
  /** The harness id: session keys, report sources. */
  harness: string
  /** Every session id starts so (`ses`, ZCode's `sess`); a ref that does not names no session here. */
  sessionPrefix: string
  /** The `session` columns read (a database may lack any of them but `id`). */
  sessionColumns: readonly string[]
  /** How long a read-only open waits for a writer's lock (ms; default the opener's). */
  busyTimeout?: number
  /** The existing databases of the store in this context. */
  databases(ctx: StoreContext): string[]
  /** A session row's title and where it came from; undefined when it has none worth showing. */
  title(row: SessionRow): { title: string; source: string } | undefined
  /** Listing: whether sub-agent sessions are listed without `all` (ZCode lists them under their parent). */
  listsChildren: boolean
  /** Listing order: newest first by this column, ties by id in this direction. */
  listOrder: { column: 'time_created' | 'time_updated'; id: 'ASC' | 'DESC' }
}

/** A `session` row as far as the family reads it; every column but `id` may be missing. */
export interface SessionRow {
  id: string
  parent_id?: string | null
  directory?: string | null
  path?: string | null
  title?: string | null
  title_source?: string | null
  version?: string | null
  model?: string | null
  time_created?: number | null
  time_updated?: number | null
  time_archived?: number | null
  task_type?: string | null
  message_count?: number | null
  /** OpenCode 2: the session it was forked from. */
  fork_session_id?: string | null
  /** Which table the row came from (`session_v2` for OpenCode 2; absent: `session`). */
  tbl?: string | null
}

/** A row of any table, every column as stored. */
export type Row = Record<string, unknown>

/** Epoch milliseconds (every time column and field of the schema) as ISO text. */
export function iso(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

export function open(layout: Layout, path: string): ReadOnlyDb {
  return openReadOnly(path, { source: layout.harness, ...(layout.busyTimeout !== undefined ? { busyTimeout: layout.busyTimeout } : {}) })
}

/** Each v1 `session` row's message count, as a listing's column. */
const V1_MESSAGE_COUNT = '(SELECT COUNT(*) FROM message WHERE message.session_id = session.id) AS message_count'

/**
 * `SELECT <known columns> FROM session`, adapted to the columns this database has;
 * with `counted`, each session's message count too (one indexed COUNT: `message` is indexed by session).
 */
export function sessionSelect(layout: Layout, cols: Set<string>, counted = false): string {
  const count = counted ? `, ${V1_MESSAGE_COUNT}` : ''
  return `SELECT ${layout.sessionColumns.filter((c) => cols.has(c)).join(', ')}${count} FROM session`
}

/** The `model` column (`{"id"|"modelID", "providerID"}` JSON); a broken one only loses the model name. */
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
    // the model name is all that is lost
  }
  return {}
}

/** The session's directory (ZCode also keeps it in `path`). */
function cwdOf(row: SessionRow): string | undefined {
  return row.directory || row.path || undefined
}

export function toInfo(layout: Layout, db: string, row: SessionRow): SessionInfo {
  const h = layout.harness
  const info: SessionInfo = { harness: h, id: row.id, sid: sessionKey(h, row.id), path: db, locator: { db, table: row.tbl === 'session_v2' ? 'session_v2' : 'session', pk: row.id } }
  const cwd = cwdOf(row)
  if (cwd) info.cwd = cwd
  const title = layout.title(row)
  if (title) {
    info.title = title.title
    info.title_source = title.source
  }
  const model = modelOf(row.model).id
  if (model) info.model = model
  if (row.version) info.agent_version = row.version
  if (typeof row.message_count === 'number') info.message_count = row.message_count
  const created = iso(row.time_created)
  if (created) info.created_at = created
  const updated = iso(row.time_updated)
  if (updated) info.updated_at = updated
  if (row.parent_id) info.parent = sessionKey(h, row.parent_id)
  else if (row.fork_session_id) info.parent = sessionKey(h, row.fork_session_id)
  if (row.time_archived != null) info.archived = true
  return info
}

/**
 * Every session of a database that has OpenCode 2's tables, as one query: the
 * `session_v2` rows, then the v1 `session` rows that were never migrated into
 * them (a 1.x client's later sessions), each once; `tbl` says which table.
 */
function bothTables(layout: Layout, db: Database.Database, counted: boolean): string {
  const v2 = columns(db, 'session_v2')
  const v1 = columns(db, 'session')
  const pick = (cols: Set<string>) => layout.sessionColumns.map((c) => (cols.has(c) ? c : `NULL AS ${c}`)).join(', ')
  const parts = [`SELECT ${v2.has('fork_session_id') ? 'fork_session_id' : 'NULL AS fork_session_id'}, 'session_v2' AS tbl, ${pick(v2)}${counted ? `, ${V2_MESSAGE_COUNT}` : ''} FROM session_v2`]
  if (v1.has('id')) parts.push(`SELECT NULL AS fork_session_id, 'session' AS tbl, ${pick(v1)}${counted ? `, ${V1_MESSAGE_COUNT}` : ''} FROM session WHERE ${NOT_MIGRATED}`)
  return `SELECT * FROM (${parts.join(' UNION ALL ')})`
}

function report(ctx: StoreContext, layout: Layout, err: unknown, path: string): void {
  const e = dbError(err, path, layout.harness)
  ctx.diagnostics.error(e.code, e.message, e.position, layout.harness)
}

/** A listing's filter: archived and sub-agent sessions only with `all`. */
function listWhere(layout: Layout, opts: DiscoverOptions, cols: Set<string>): string {
  const where: string[] = []
  if (!opts.all && cols.has('time_archived')) where.push('time_archived IS NULL')
  if (!opts.all && !layout.listsChildren && cols.has('parent_id')) where.push('parent_id IS NULL')
  return where.length ? ` WHERE ${where.join(' AND ')}` : ''
}

/** A listing's order: newest first, ties by id. */
function listOrder(layout: Layout, cols: Set<string>): string {
  const { column, id } = layout.listOrder
  const tie = id === 'DESC' ? 'id DESC' : 'id'
  return cols.has(column) ? ` ORDER BY ${column} DESC, ${tie}` : ` ORDER BY ${tie}`
}

/** Lists the sessions of every database: one query over `session` each, nothing else read. Archived ones only with `all`. */
export async function* listSessions(ctx: StoreContext, layout: Layout, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  for (const path of layout.databases(ctx)) {
    let h
    try {
      h = open(layout, path)
    } catch (err) {
      report(ctx, layout, err, path)
      continue
    }
    try {
      if (hasV2(h.db)) {
        for (const row of h.db.prepare(bothTables(layout, h.db, true) + listWhere(layout, opts, new Set(layout.sessionColumns)) + listOrder(layout, new Set(layout.sessionColumns))).iterate() as IterableIterator<SessionRow>) yield toInfo(layout, path, row)
        continue
      }
      const cols = columns(h.db, 'session')
      if (!cols.has('id')) continue
      const where: string[] = []
      if (!opts.all && cols.has('time_archived')) where.push('time_archived IS NULL')
      if (!opts.all && !layout.listsChildren && cols.has('parent_id')) where.push('parent_id IS NULL')
      const { column, id } = layout.listOrder
      const tie = id === 'DESC' ? 'id DESC' : 'id'
      const order = cols.has(column) ? ` ORDER BY ${column} DESC, ${tie}` : ` ORDER BY ${tie}`
      const sql = sessionSelect(layout, cols, columns(h.db, 'message').has('session_id')) + (where.length ? ` WHERE ${where.join(' AND ')}` : '') + order
      for (const row of h.db.prepare(sql).iterate() as IterableIterator<SessionRow>) yield toInfo(layout, path, row)
    } catch (err) {
      // One unreadable database (corrupt, locked past the timeout) must not hide the others.
      report(ctx, layout, err, path)
    } finally {
      h.close()
    }
  }
}

/** The one top-level session of the database file at `path` (null when it holds none or several, or cannot be read). */
export function onlySession(layout: Layout, path: string): SessionInfo | null {
  if (!existsSync(path)) return null
  let h
  try {
    h = open(layout, path)
  } catch {
    return null
  }
  try {
    const cols = columns(h.db, 'session')
    if (!cols.has('id')) return null
    const rows = h.db.prepare(`${sessionSelect(layout, cols)}${cols.has('parent_id') ? ' WHERE parent_id IS NULL' : ''} LIMIT 2`).all() as SessionRow[]
    return rows.length === 1 ? toInfo(layout, path, rows[0]!) : null
  } catch {
    return null
  } finally {
    h.close()
  }
}

/**
 * A session by `<harness>:<id>`, id or unique id prefix, in every database. A ref
 * with a `/` is a path: `byPath` answers it when the harness resolves paths.
 */
export async function resolveSession(ctx: StoreContext, layout: Layout, ref: string, byPath?: (path: string) => SessionInfo | null): Promise<SessionInfo | null> {
  const prefix = `${layout.harness}:`
  const id = ref.startsWith(prefix) ? ref.slice(prefix.length) : ref
  if (id.includes('/')) return byPath ? byPath(id) : null
  if (!id.startsWith(layout.sessionPrefix)) return null
  const found: SessionInfo[] = []
  for (const path of layout.databases(ctx)) {
    let h
    try {
      h = open(layout, path)
    } catch {
      continue
    }
    try {
      const v2 = hasV2(h.db)
      const cols = columns(h.db, 'session')
      if (!v2 && !cols.has('id')) continue
      const all = v2 ? bothTables(layout, h.db, false) : sessionSelect(layout, cols)
      const exact = h.db.prepare(`${all} WHERE id = ?`).get(id) as SessionRow | undefined
      if (exact) return toInfo(layout, path, exact)
      // substr, not LIKE: `_` in ids is a LIKE wildcard.
      for (const r of h.db.prepare(`${all} WHERE substr(id, 1, ?) = ? LIMIT 2`).all(id.length, id) as SessionRow[]) found.push(toInfo(layout, path, r))
    } catch (err) {
      throw dbError(err, path, layout.harness)
    } finally {
      h.close()
    }
  }
  if (found.length > 1) throw new AmbiguousError(`session prefix "${id}" is ambiguous (${found.map((f) => f.id).join(', ')}, …)`)
  return found[0] ?? null
}

/**
 * Whether session `id` is in the database at `path`, asked read-only so that
 * nothing on disk changes. `lenient`: a database that cannot be read holds
 * nothing to collide with (false); otherwise its error is thrown.
 */
export function sessionExists(layout: Layout, path: string, id: string, lenient = false): boolean {
  if (!existsSync(path)) return false
  let h: ReadOnlyDb
  try {
    h = open(layout, path)
  } catch (err) {
    if (lenient) return false
    throw err
  }
  try {
    if (hasV2(h.db) && h.db.prepare('SELECT 1 FROM session_v2 WHERE id = ?').get(id) !== undefined) return true
    if (!columns(h.db, 'session').has('id')) return false
    return h.db.prepare('SELECT 1 FROM session WHERE id = ?').get(id) !== undefined
  } catch (err) {
    if (lenient) return false
    throw err
  } finally {
    h.close()
  }
}

/** The parent's tool call that launched a sub-agent session (its part names the child's id). */
function findTaskCall(db: Database.Database, parentId: string, childId: string): string | undefined {
  const pcols = columns(db, 'part')
  if (!pcols.size) return undefined
  const where = pcols.has('session_id') ? 'session_id = ?' : 'message_id IN (SELECT id FROM message WHERE session_id = ?)'
  const row = db
    .prepare(
      `SELECT CASE WHEN json_valid(data) THEN json_extract(data, '$.callID') END AS call FROM part
        WHERE ${where} AND instr(data, ?) > 0
          AND CASE WHEN json_valid(data) THEN json_extract(data, '$.type') = 'tool' ELSE 0 END
        ORDER BY id LIMIT 1`,
    )
    .get(parentId, childId) as { call?: string | null } | undefined
  return row?.call ?? undefined
}

/** How a session row hangs off its parent: a sub-agent (or a fork), launched by the parent's tool call when one names it. */
export function parentLink(layout: Layout, db: Database.Database, row: SessionRow): SessionLink | undefined {
  if (!row.parent_id) return undefined
  const parent: SessionLink = { sid: sessionKey(layout.harness, row.parent_id), kind: row.task_type === 'fork' ? 'fork' : 'subagent' }
  const call = findTaskCall(db, row.parent_id, row.id)
  if (call) parent.tool_use_id = call
  return parent
}

/** What a session header takes from elsewhere than its row. */
export interface HeaderFields {
  model?: string
  provider?: string
  parent?: SessionLink
}

/** The session header of a session row. */
export function sessionHeader(layout: Layout, dbPath: string, row: SessionRow, f: HeaderFields): SessionRec {
  const h = layout.harness
  const cwd = cwdOf(row)
  const title = layout.title(row)
  const created = iso(row.time_created)
  const updated = iso(row.time_updated)
  return sessionRecord({
    sid: sessionKey(h, row.id),
    source: { harness: h, ...(row.version ? { agent_version: row.version } : {}), locator: { db: dbPath, table: 'session', pk: row.id } },
    native_id: row.id,
    ...(cwd ? { cwd } : {}),
    ...(title ? { title: title.title, title_source: title.source } : {}),
    ...(f.model ? { model: f.model } : {}),
    ...(f.provider ? { provider: f.provider } : {}),
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    ...(f.parent ? { parent: f.parent } : {}),
  })
}

/** The record that closes a session's records. */
export function endRecord(sid: string, counts: Record<string, number>): EndRec {
  return { kind: 'end', sid, id: recordId(sid, 'end'), complete: true, counts: { ...counts } }
}

/** The ids of a session's sub-agent sessions, oldest first. */
export function childIds(db: Database.Database, scols: Set<string>, id: string, prepare: (sql: string) => Database.Statement = (sql) => db.prepare(sql)): string[] {
  if (!scols.has('parent_id')) return []
  const rows = prepare(`SELECT id FROM session WHERE parent_id = ? ORDER BY ${scols.has('time_created') ? 'time_created, ' : ''}id`).all(id) as Array<{ id: string }>
  return rows.map((r) => r.id)
}

/** A connection lent to one reader; `release` gives it back. */
export interface Lent {
  h: ReadOnlyDb
  release(): void
}

/**
 * A session's records as an object-mode Readable: `records` runs on a connection
 * `lend` gives for the session's database, and any error is a located `db-error`.
 */
export function readRows(layout: Layout, info: SessionInfo, lend: (path: string) => Lent, records: (db: Database.Database, dbPath: string) => AsyncGenerator<FerryRecord>): Readable {
  const dbPath = info.locator.db ?? info.path
  async function* gen(): AsyncGenerator<FerryRecord> {
    const { h, release } = lend(dbPath)
    try {
      yield* records(h.db, dbPath)
    } catch (err) {
      throw dbError(err, dbPath, layout.harness)
    } finally {
      release()
    }
  }
  return readableOf(gen())
}

const colCache = new WeakMap<Database.Database, Map<string, Set<string>>>()
const stmtCache = new WeakMap<Database.Database, Map<string, Database.Statement>>()

function tableColumns(db: Database.Database, table: string): Set<string> {
  let m = colCache.get(db)
  if (!m) colCache.set(db, (m = new Map()))
  let c = m.get(table)
  if (!c) m.set(table, (c = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name))))
  return c
}

/** Inserts the row's columns that the table has (a newer or older schema drops or lacks some); statements are reused. */
export function insertRow(db: Database.Database, table: string, row: Row): void {
  const cols = tableColumns(db, table)
  const keys = Object.keys(row).filter((k) => cols.has(k))
  const sig = `${table}\u0000${keys.join('\u0000')}`
  let m = stmtCache.get(db)
  if (!m) stmtCache.set(db, (m = new Map()))
  let st = m.get(sig)
  if (!st) m.set(sig, (st = db.prepare(`INSERT INTO "${table}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`)))
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  st.run(...keys.map((k) => row[k] as any))
}
