/**
 * Reading one session (and its sub-agent sessions) of an OpenCode database
 * into records, the way OpenCode loads it: OpenCode's reader, and Kilo's.
 *
 * Rows are streamed with one `.iterate()` over messages joined with their
 * parts, in OpenCode's own load order (messages by `time_created, id`, parts
 * by `id`). better-sqlite3 allows no other statement on a connection while an
 * iterator is open, hence the join instead of a query per message; the
 * message row repeats on each of its parts and is parsed once. Records of one
 * message are built together (the turn's usage goes on its last assistant
 * record), so memory is bounded by the largest message.
 */
import type { Readable } from 'node:stream'
import type Database from 'better-sqlite3'
import { sessionKey, type FerryRecord, type JsonObject } from '../../model.js'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { columns } from '../../io/sqlite-readonly.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import { OpenCodeMessage, type Counts, type Reading } from './opencode-parts.js'
import { v2SessionRecords } from './opencode-v2-read.js'
import { childIds, endRecord, modelOf, open, parentLink, readRows, sessionHeader, sessionSelect, type Layout, type SessionRow } from './opencode-rows.js'

interface Row {
  mid: string
  mtime: number | null
  mdata: string
  pid: string | null
  pdata: string | null
}

async function* sessionRecords(ctx: StoreContext, layout: Layout, db: Database.Database, dbPath: string, id: string, opts: ReadOptions, seen: Set<string>): AsyncGenerator<FerryRecord> {
  const h = layout.harness
  seen.add(id)
  const scols = columns(db, 'session')
  const row = db.prepare(`${sessionSelect(layout, scols)} WHERE id = ?`).get(id) as SessionRow | undefined
  if (!row) throw new FerryError(`session ${id} not found`, { code: 'no-session', position: { file: dbPath, row: `session:${id}` }, source: h })
  const sid = sessionKey(h, id)
  const model = modelOf(row.model)
  const parent = parentLink(layout, db, row)
  const header = sessionHeader(layout, dbPath, row, { ...(model.id ? { model: model.id } : {}), ...(model.providerID ? { provider: model.providerID } : {}), ...(parent ? { parent } : {}) })
  const nativeFormat = opts.native ? `${h}/sqlite@${row.version ?? 'unknown'}` : null
  if (nativeFormat) header.native = { format: nativeFormat, table: 'session', pk: id, row }
  yield header

  const counts: Counts = { messages: 0, tool_uses: 0, native: 0, skipped_rows: 0 }
  const reading: Reading = { harness: h, sid, nativeFormat, counts }
  // Without a part table (a damaged or partial database) the messages are still read, each without parts.
  const hasParts = columns(db, 'part').size > 0
  if (!hasParts) ctx.diagnostics.error('db-error', 'no part table; messages read without their parts', { file: dbPath, row: 'part' }, h)
  const stmt = db.prepare(
    hasParts
      ? `SELECT m.id AS mid, m.time_created AS mtime, m.data AS mdata, p.id AS pid, p.data AS pdata
       FROM message m LEFT JOIN part p ON p.message_id = m.id
      WHERE m.session_id = ?
      ORDER BY m.time_created, m.id, p.id`
      : `SELECT m.id AS mid, m.time_created AS mtime, m.data AS mdata, NULL AS pid, NULL AS pdata
       FROM message m WHERE m.session_id = ? ORDER BY m.time_created, m.id`,
  )
  let builder: OpenCodeMessage | null = null
  let current: string | null = null
  let skipMessage = false
  for (const r of stmt.iterate(id) as IterableIterator<Row>) {
    if (r.mid !== current) {
      if (builder) yield* builder.end()
      builder = null
      current = r.mid
      skipMessage = false
      let data: JsonObject | null = null
      try {
        data = JSON.parse(r.mdata) as JsonObject
      } catch {
        data = null
      }
      if (!data || typeof data !== 'object') {
        ctx.diagnostics.error('bad-row', 'message data is not JSON; message and its parts skipped', { file: dbPath, row: `message:${r.mid}` }, h)
        counts.skipped_rows++
        skipMessage = true
      } else if (data.role !== 'user' && data.role !== 'assistant') {
        ctx.diagnostics.warn('unknown-role', `message role ${JSON.stringify(data.role)} is not user/assistant; skipped`, { file: dbPath, row: `message:${r.mid}` }, h)
        counts.skipped_rows++
        skipMessage = true
      } else {
        builder = new OpenCodeMessage(reading, r.mid, data, r.mdata)
      }
    }
    if (skipMessage || !builder || r.pid === null || r.pdata === null) continue
    let part: JsonObject | null = null
    try {
      part = JSON.parse(r.pdata) as JsonObject
    } catch {
      part = null
    }
    if (!part || typeof part !== 'object' || Array.isArray(part)) {
      ctx.diagnostics.error('bad-row', 'part data is not a JSON object; part skipped', { file: dbPath, row: `part:${r.pid}` }, h)
      counts.skipped_rows++
      continue
    }
    try {
      builder.part(r.pid, r.pdata, part)
    } catch (err) {
      // One part the mapping cannot take is one skipped part, never the whole session.
      ctx.diagnostics.error('bad-row', `part could not be read (${(err as Error).message}); part skipped`, { file: dbPath, row: `part:${r.pid}` }, h)
      counts.skipped_rows++
    }
  }
  if (builder) yield* builder.end()
  yield endRecord(sid, counts)
  for (const c of childIds(db, scols, id)) if (!seen.has(c)) yield* sessionRecords(ctx, layout, db, dbPath, c, opts, seen)
}

/** All records of a session, then of its sub-agent sessions (depth first), on a connection of its own. */
export function readSession(ctx: StoreContext, layout: Layout, info: SessionInfo, opts: ReadOptions = {}): Readable {
  return readRows(
    layout,
    info,
    (path) => {
      const h = open(layout, path)
      return { h, release: () => h.close() }
    },
    // OpenCode 2 sessions live in `session_v2`/`session_message` (docs/formats/opencode.md §OpenCode 2).
    (db, dbPath) => (info.locator.table === 'session_v2' ? v2SessionRecords(ctx, layout, db, dbPath, info.id, opts) : sessionRecords(ctx, layout, db, dbPath, info.id, opts, new Set())),
  )
}
