/**
 * Reading one ZCode session (then its sub-agent sessions) into ferry records.
 *
 * Rows come in ZCode's own load order (docs/formats/zcode.md §Record
 * dissection): messages by `sequence IS NULL, sequence, time_created, rowid`,
 * parts found through `part.session_id` and ordered per message by
 * `sequence IS NULL, sequence, time_created, id`. The session's message rows
 * are read in that order, then each message's parts, ordered here as SQLite
 * would (`sqliteCompare`); records of one ZCode message are built together,
 * so memory is bounded by the largest message.
 *
 * With `native`, each record carries the rows it came from (`native.row` and
 * `native.merged`, every column as stored, `data` as the exact text), the
 * message row always on the message's first record: a ZCode sink replays
 * them byte for byte, in order.
 */
import type { Readable } from 'node:stream'
import type Database from 'better-sqlite3'
import { isObj, recordId, sessionKey, type FerryRecord, type JsonObject, type MessageRec, type NativePass, type StreamRec } from '../../model.js'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { columns } from '../../io/sqlite-readonly.js'
import type { SessionInfo } from '../types.js'
import { PartsBuilder, stopReason, thinking, type Counts, type Inliner, type Reading, type ResultReading } from '../family/opencode-parts.js'
import { childIds, endRecord, iso, parentLink, readRows, sessionHeader, type Row, type SessionRow } from '../family/opencode-rows.js'
import { borrow } from './handles.js'
import { knownMigration } from './schema.js'
import { artifactsRoot, isArtifactUri, readArtifact } from './artifacts.js'
import { layout } from './paths.js'
import type { ReadOpts } from './flags.js'
import { nestsDeeper } from '../../io/line-file.js'

/** What ZCode shows the model for a tool call that never finished (its hydrator's text). */
export const INTERRUPTED = '[Tool execution was interrupted before resume]'

/** User-message context: what ZCode injected rather than what a person typed. */
function userContext(data: JsonObject): { context: boolean; kind?: string } {
  const sem = data.semantics && typeof data.semantics === 'object' ? (data.semantics as JsonObject) : {}
  const kind = typeof sem.kind === 'string' ? sem.kind : undefined
  if (kind === 'compact_summary') return { context: true, kind: 'summary' }
  const injected = data.synthetic === true || typeof data.source === 'string' || sem.providerVisibility === 'hidden' || data.visibility === 'model-only' || (typeof sem.origin === 'string' && sem.origin !== 'real_user' && sem.origin !== 'import')
  if (!injected) return { context: false }
  return { context: true, kind: kind === 'system_reminder' ? 'reminder' : kind === 'slash_command' ? 'command' : 'other' }
}

interface PartItem {
  pid: string
  prow: Row | null
  part: JsonObject
  superseded?: boolean
}

/**
 * The parts of one message in the order ZCode's resume gives the model (its
 * `selectToolPartsForHistory`): of tool parts sharing a `callID` only the last
 * counts (the others are marked `superseded`, kept in place), and when every
 * kept tool part has a `declarationIndex` the tool parts take that order in
 * the places tool parts hold. Other parts keep their place.
 */
export function historyOrder(items: PartItem[]): PartItem[] {
  const tools = items.filter((x) => x.part.type === 'tool')
  if (tools.length < 2) return items
  const last = new Map<string, PartItem>()
  for (const x of tools) if (typeof x.part.callID === 'string') last.set(x.part.callID, x)
  const kept = tools.filter((x) => typeof x.part.callID !== 'string' || last.get(x.part.callID) === x)
  const ordered = kept.every((x) => typeof x.part.declarationIndex === 'number') ? [...kept].sort((a, b) => a.part.declarationIndex - b.part.declarationIndex) : kept
  let k = 0
  return items.map((x) => {
    if (x.part.type !== 'tool') return x
    if (!kept.includes(x)) return { ...x, superseded: true }
    return ordered[k++]!
  })
}

/**
 * The ids of the messages on the active branch after a rewind, chosen from
 * `session.revert` as ZCode's `selectActiveConversationBranch` chooses them;
 * null when every message is on it (no revert, or one without a target).
 */
function activeBranch(db: Database.Database, sessionId: string, revertText: unknown, order: string): Set<string> | null {
  const revert = parse(revertText)
  const target = typeof revert?.targetMessageID === 'string' ? revert.targetMessageID : undefined
  if (!revert || !target) return null
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const ids = (prepared(db, `SELECT m.id AS id FROM message m WHERE m.session_id = ? ORDER BY ${order}`).all(sessionId) as Array<{ id: string }>).map((r) => r.id)
  const at = (mid: string | undefined) => (mid === undefined ? -1 : ids.indexOf(mid))
  const targetAt = at(target)
  const keptIds = Array.isArray(revert.keptMessageIDs) ? revert.keptMessageIDs.filter((x: unknown): x is string => typeof x === 'string') : undefined
  const known = new Set(ids)
  const kept = keptIds ? keptIds.filter((x: string) => known.has(x)) : targetAt >= 0 ? ids.slice(0, targetAt) : ids
  const tail = (from: number) => (from >= 0 ? ids.slice(from) : [])
  let active: string[]
  const cut = str(revert.branchCutAfterMessageID)
  const created = at(str(revert.createdMessageID))
  if (cut !== undefined) {
    const c = at(cut)
    active = c >= 0 ? [...kept, ...ids.slice(c + 1)] : kept
  } else if (keptIds) active = created >= 0 ? [...kept, ...tail(created)] : kept
  else if (targetAt < 0) return null
  else active = created >= 0 ? [...kept, ...tail(created)] : kept
  return new Set(active)
}

interface RowRef {
  key: string
  row: Row
}

/**
 * ZCode's reading of a message: every row travels on a record (`native.row`,
 * `merged`) so that a ZCode sink replays them; parts without content wait
 * until the run they sit in is emitted; tool calls that never finished read
 * as interrupted, as ZCode resumes them.
 */
class ZCodeMessage extends PartsBuilder<Row | null> {
  protected readonly useSuffix = false
  protected readonly summaries = false
  protected readonly usageScope = 'step'
  protected readonly resultReading: ResultReading
  private readonly whole: { context: boolean; kind?: string }
  /** Rows not yet attached to a record (native mode); the message row first. */
  private pending: RowRef[] = []
  private deferred: Array<{ rec: Exclude<FerryRecord, StreamRec>; row: RowRef | null }> = []

  constructor(
    r: Reading,
    mid: string,
    data: JsonObject,
    mrow: Row | null,
    private readonly art?: Inliner,
  ) {
    super(r, mid, data)
    this.resultReading = { unfinished: INTERRUPTED, ...(art ? { inline: art } : {}) }
    this.whole = this.role === 'user' ? userContext(data) : { context: false }
    if (mrow) this.pending.push({ key: `message:${mid}`, row: mrow })
  }

  protected override messageContext(): { context: boolean; kind?: string } {
    return this.whole
  }

  protected override inline(): Inliner | undefined {
    return this.art
  }

  /** Attaches every pending row to `rec`, then emits it. */
  private push(rec: Exclude<FerryRecord, StreamRec>): void {
    if (this.r.nativeFormat && this.pending.length) {
      const [first, ...rest] = this.pending
      const i = first!.key.indexOf(':')
      const n: NativePass = { format: this.r.nativeFormat, table: first!.key.slice(0, i), pk: first!.key.slice(i + 1), row: first!.row }
      if (rest.length) n.merged = rest.map((r) => ({ pk: r.key, row: r.row }))
      rec.native = n
      this.pending = []
    }
    this.out.push(rec)
  }

  protected keep(pid: string, prow: Row | null): void {
    if (prow) this.pending.push({ key: `part:${pid}`, row: prow })
  }

  protected emit(rec: MessageRec): void {
    this.push(rec)
  }

  protected override resultsNative(): NativePass | undefined {
    // Derived from the tool parts on the record before: it carries no row of its own.
    return this.r.nativeFormat ? { format: this.r.nativeFormat, table: 'part', pk: `${this.resultPid}#result` } : undefined
  }

  protected override afterFlush(): void {
    for (const d of this.deferred) {
      if (d.row) this.pending.push(d.row)
      this.push(d.rec)
    }
    this.deferred = []
  }

  /**
   * A part with no conversational content: its own native record. Inside a run
   * of blocks it waits until the run is emitted, so it never splits a message.
   */
  private nativePart(pid: string, prow: Row | null, type: string, ts: string | null): void {
    const rec = this.nativeRecord(pid, type, ts)
    if (this.blocks.length) {
      this.deferred.push({ rec, row: prow ? { key: `part:${pid}`, row: prow } : null })
      return
    }
    this.keep(pid, prow)
    this.push(rec)
  }

  /** A tool part a later one with the same `callID` replaces (ZCode resumes only the last): kept, in place, as native. */
  superseded(pid: string, prow: Row | null, p: JsonObject): void {
    this.nativePart(pid, prow, 'tool-superseded', iso(p.state?.time?.start) ?? this.ts)
  }

  protected text(pid: string, prow: Row | null, p: JsonObject): void {
    if (typeof p.text !== 'string' || p.ignored === true) return this.nativePart(pid, prow, 'text-ignored', this.ts)
    if (p.synthetic === true) return this.add(pid, prow, { type: 'text', text: p.text }, true, 'reminder')
    this.add(pid, prow, { type: 'text', text: p.text })
  }

  protected reasoning(pid: string, prow: Row | null, p: JsonObject): void {
    if (typeof p.text !== 'string') return this.nativePart(pid, prow, 'reasoning', this.ts)
    this.add(pid, prow, thinking(p))
  }

  protected compaction(pid: string, prow: Row | null, p: JsonObject): void {
    this.flush()
    this.keep(pid, prow)
    this.push(this.boundary(pid, p, true))
  }

  protected other(pid: string, prow: Row | null, type: string, p: JsonObject): void {
    // step-start/-finish, retry, agent, subtask, timeline, snapshot, patch and part
    // types this reader does not know: no conversational content, kept in place.
    this.nativePart(pid, prow, type, iso(p.time?.start ?? p.time?.created) ?? this.ts)
  }

  protected stop(last: MessageRec, finish: string | undefined, err: JsonObject | undefined): void {
    if (err) {
      last.stop_reason = err.data?.turnResult === 'cancelled' || /Abort/.test(String(err.name)) ? 'aborted' : 'error'
      last.native_stop_reason = finish ?? String(err.name ?? 'error')
      last.x = { ...last.x, [`${this.r.harness}.error`]: err }
    } else if (finish) {
      last.stop_reason = stopReason(finish)
      last.native_stop_reason = finish
    }
  }

  protected close(): void {
    if (!this.pending.length && this.out.length) return
    let lastRec: Exclude<FerryRecord, StreamRec> | undefined
    for (const r of this.out) if (r.kind !== 'stream' && r.native?.row !== undefined) lastRec = r
    if (lastRec && this.r.nativeFormat && !this.pending.some((r) => r.key.startsWith('message:'))) {
      lastRec.native!.merged = [...(lastRec.native!.merged ?? []), ...this.pending.map((r) => ({ pk: r.key, row: r.row }))]
      this.pending = []
      return
    }
    // A message with no content of its own (an empty or failed step): kept as a native record.
    this.push({ kind: 'native', sid: this.r.sid, id: recordId(this.r.sid, `message:${this.mid}`), native_type: `${this.r.harness}/${this.data.error ? 'message-error' : 'message'}`, ts: this.ts })
    this.r.counts.native++
  }
}

function parse(text: unknown): JsonObject | null {
  // Too deep to write out or walk: as unreadable as a value that does not parse.
  if (typeof text !== 'string' || nestsDeeper(text)) return null
  try {
    const v = JSON.parse(text) as unknown
    return isObj(v) ? v : null
  } catch {
    return null
  }
}

/** The last `runtime/model_selection` entry's model, the way ZCode picks a resumed session's model. */
function modelSelection(entries: Row[]): { providerId?: string; modelId?: string } {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!
    if (e.type !== 'runtime/model_selection') continue
    const sel = parse(e.data)?.modelSelection
    if (sel && typeof sel === 'object') return { ...(typeof sel.providerId === 'string' ? { providerId: sel.providerId } : {}), ...(typeof sel.modelId === 'string' ? { modelId: sel.modelId } : {}) }
  }
  return {}
}

/** SQLite's order of two values (NULL, then numbers, then text by its UTF-8 bytes, then BLOBs), as ORDER BY sorts them. */
export function sqliteCompare(a: unknown, b: unknown): number {
  const ra = sqlRank(a)
  const rb = sqlRank(b)
  if (ra !== rb) return ra - rb
  if (ra === 1) return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0
  if (ra === 2) {
    const x = a as string
    const y = b as string
    // UTF-16 order is UTF-8 byte order but for characters past U+D7FF: ids are ASCII, anything else compares as bytes.
    if (/[\ud800-\uffff]/.test(x) || /[\ud800-\uffff]/.test(y)) return Buffer.compare(Buffer.from(x), Buffer.from(y))
    return x < y ? -1 : x > y ? 1 : 0
  }
  if (ra === 3) return Buffer.compare(a as Buffer, b as Buffer)
  return 0
}

function sqlRank(v: unknown): number {
  if (v === null || v === undefined) return 0
  if (typeof v === 'number' || typeof v === 'bigint') return 1
  if (typeof v === 'string') return 2
  return 3
}

/** `x IS NULL, x`: NULLs after everything else, the rest in SQLite's order. */
function nullsLast(a: unknown, b: unknown): number {
  const na = a === null || a === undefined
  const nb = b === null || b === undefined
  if (na !== nb) return na ? 1 : -1
  return sqliteCompare(a, b)
}

/**
 * Per connection: the tables' columns and the prepared statements. `cat` of a
 * whole store reads thousands of sessions on one connection (handles.ts);
 * preparing each statement and asking each table's columns again per session
 * was a tenth of its CPU time. A lent connection is only reused while its
 * files are unchanged, so the schema is the one these were made for.
 */
const perDb = new WeakMap<Database.Database, { cols: Map<string, Set<string>>; stmts: Map<string, Database.Statement>; unknownMigrations?: string[] }>()

function cacheOf(db: Database.Database) {
  let c = perDb.get(db)
  if (!c) perDb.set(db, (c = { cols: new Map(), stmts: new Map() }))
  return c
}

function cols(db: Database.Database, table: string): Set<string> {
  const c = cacheOf(db).cols
  let s = c.get(table)
  if (!s) c.set(table, (s = columns(db, table)))
  return s
}

function prepared(db: Database.Database, sql: string): Database.Statement {
  const c = cacheOf(db).stmts
  let st = c.get(sql)
  if (!st) c.set(sql, (st = db.prepare(sql)))
  return st
}

async function* sessionRecords(ctx: StoreContext, db: Database.Database, dbPath: string, id: string, opts: ReadOpts, seen: Set<string>): AsyncGenerator<FerryRecord> {
  seen.add(id)
  const scols = cols(db, 'session')
  const row = prepared(db, 'SELECT * FROM session WHERE id = ?').get(id) as Row | undefined
  if (!row) throw new FerryError(`session ${id} not found`, { code: 'no-session', position: { file: dbPath, row: `session:${id}` }, source: 'zcode' })
  const sid = sessionKey('zcode', id)
  const mcols = cols(db, 'message')
  const pcols = cols(db, 'part')
  const partSession = pcols.has('session_id')
  const ecols = cols(db, 'session_entry')
  const entries = ecols.has('session_id') ? (prepared(db, `SELECT * FROM session_entry WHERE session_id = ? ORDER BY time_created, id`).all(id) as Row[]) : []
  const sel = modelSelection(entries)
  const srow = row as unknown as SessionRow
  const parent = parentLink(layout, db, srow)
  const header = sessionHeader(layout, dbPath, srow, { ...(sel.modelId ? { model: sel.modelId } : {}), ...(sel.providerId ? { provider: sel.providerId } : {}), ...(parent ? { parent } : {}) })
  const version = typeof row.version === 'string' && row.version ? row.version : undefined
  const nativeFormat = opts.native ? `zcode/sqlite@${version ?? 'unknown'}` : null
  if (nativeFormat) header.native = { format: nativeFormat, table: 'session', pk: id, row }
  yield header

  for (const e of entries) {
    const eid = String(e.id)
    const rec: FerryRecord = { kind: 'native', sid, id: recordId(sid, `session_entry:${eid}`), native_type: `zcode/session_entry`, ts: iso(e.time_created) ?? null, x: { 'zcode.entry_type': e.type } }
    if (nativeFormat) rec.native = { format: nativeFormat, table: 'session_entry', pk: eid, row: e }
    yield rec
  }

  const counts: Counts = { messages: 0, tool_uses: 0, native: 0, skipped_rows: 0, inactive: 0 }
  const reading: Reading = { harness: 'zcode', sid, nativeFormat, counts }
  // What ZCode's resume does with an artifact reference: reads it from the artifact store.
  const root = opts.inlineArtifacts === false ? null : artifactsRoot(ctx)
  const art: Inliner | undefined = root
    ? (url, mime, where) => {
        if (!isArtifactUri(url)) return null // other URLs stay references
        const got = readArtifact(root, url, mime)
        if ('data' in got) return got
        ctx.diagnostics.warn('side-file', `artifact ${url} kept as a reference: ${got.reason}`, { file: dbPath, row: where }, 'zcode')
        return null
      }
    : undefined
  const seq = (a: string, c: Set<string>) => (c.has('sequence') ? `${a}.sequence IS NULL, ${a}.sequence, ` : '')
  const msgOrder = `${seq('m', mcols)}m.time_created, m.rowid`
  const active = activeBranch(db, id, row.revert, msgOrder)
  const join = partSession ? 'p.message_id = m.id AND p.session_id = m.session_id' : 'p.message_id = m.id'
  // Messages in order, then each message's parts, ordered here: sorting the joined rows in SQLite
  // put every part's data through a temporary B-tree (a third of the time of reading a store).
  const messages = prepared(db, `SELECT m.* FROM message m WHERE m.session_id = ? ORDER BY ${msgOrder}`).all(id) as Row[]
  const partRows = prepared(db, `SELECT * FROM part WHERE message_id = ?${partSession ? ' AND session_id = ?' : ''}`)
  const partSeq = pcols.has('sequence')
  // One message's rows at a time: ZCode decides tool parts per message (the last of a callID,
  // declarationIndex order), so its parts are gathered before any record is built.
  let msg = null as { mid: string; data: JsonObject | null; mrow: Row | null; off: boolean; parts: PartItem[] } | null
  const finishMessage = function* (): Generator<FerryRecord> {
    if (!msg || !msg.data) return
    if (msg.off) {
      counts.inactive++
      if (!nativeFormat) return
      // Off the active branch (a rewind cut it): ZCode keeps the rows but does not resume them.
      const rec: FerryRecord = { kind: 'native', sid, id: recordId(sid, `message:${msg.mid}`), native_type: 'zcode/message-inactive', ts: iso(msg.data.time?.created) ?? null, x: { 'zcode.inactive': true } }
      rec.native = { format: nativeFormat, table: 'message', pk: msg.mid, row: msg.mrow!, ...(msg.parts.length ? { merged: msg.parts.map((x) => ({ pk: `part:${x.pid}`, row: x.prow! })) } : {}) }
      counts.native++
      yield rec
      return
    }
    const builder = new ZCodeMessage(reading, msg.mid, msg.data, msg.mrow, art)
    for (const x of historyOrder(msg.parts)) {
      if (x.superseded) builder.superseded(x.pid, x.prow, x.part)
      else builder.part(x.pid, x.prow, x.part)
    }
    yield* builder.end()
  }
  for (const mrow of messages) {
    yield* finishMessage()
    const mid = String(mrow.id)
    const data = parse(mrow.data)
    msg = { mid, data, mrow: nativeFormat ? mrow : null, off: active !== null && !active.has(mid), parts: [] }
    if (!data) {
      ctx.diagnostics.error('bad-row', 'message data is not a JSON object; the message and its parts are skipped', { file: dbPath, row: `message:${mid}` }, 'zcode')
      counts.skipped_rows++
      continue
    }
    const prows = (partSession ? partRows.all(mrow.id, mrow.session_id) : partRows.all(mrow.id)) as Row[]
    prows.sort((a, b) => (partSeq ? nullsLast(a.sequence, b.sequence) : 0) || sqliteCompare(a.time_created, b.time_created) || sqliteCompare(a.id, b.id))
    for (const prow of prows) {
      if (prow.id == null) continue
      const pid = String(prow.id)
      const part = parse(prow.data)
      if (!part) {
        ctx.diagnostics.error('bad-row', 'part data is not a JSON object; the part is skipped', { file: dbPath, row: `part:${pid}` }, 'zcode')
        counts.skipped_rows++
        continue
      }
      msg.parts.push({ pid, prow: nativeFormat ? prow : null, part })
    }
  }
  yield* finishMessage()
  if (partSession) orphanParts(ctx, db, dbPath, id)
  yield endRecord(sid, counts)
  for (const c of childIds(db, scols, id, (sql) => prepared(db, sql))) if (!seen.has(c)) yield* sessionRecords(ctx, db, dbPath, c, opts, seen)
}

/**
 * Parts whose message row is gone (a damaged store: ZCode deletes them together) sit on no message and
 * are not read; they are said, located, never dropped quietly. One pass over the (session_id,
 * message_id) index.
 */
function orphanParts(ctx: StoreContext, db: Database.Database, dbPath: string, sessionId: string): void {
  const rows = prepared(db, 'SELECT p.message_id AS mid, count(*) AS n FROM part p WHERE p.session_id = ? AND NOT EXISTS (SELECT 1 FROM message m WHERE m.id = p.message_id) GROUP BY p.message_id').all(sessionId) as Array<{ mid: unknown; n: number }>
  for (const r of rows) ctx.diagnostics.error('bad-row', `${r.n} part(s) of a message that has no row; not read`, { file: dbPath, row: `message:${String(r.mid)}` }, 'zcode')
}

/** Warns once when the ledger holds migrations this ferry does not know (a newer ZCode): read as far as understood. */
function checkLedger(ctx: StoreContext, db: Database.Database, dbPath: string): void {
  const c = cacheOf(db)
  if (!c.unknownMigrations) {
    if (!cols(db, 'schema_migration').has('id')) return
    c.unknownMigrations = (prepared(db, 'SELECT id FROM schema_migration ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id).filter((m) => !knownMigration(m))
  }
  const ids = c.unknownMigrations
  if (ids.length) ctx.diagnostics.warn('unsupported', `database has migrations this ferry does not know (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}): read as far as understood`, { file: dbPath }, 'zcode')
}

/** All records of a session, then of its sub-agent sessions (depth first), on the database's shared connection. */
export function read(ctx: StoreContext, session: SessionInfo, opts: ReadOpts = {}): Readable {
  return readRows(layout, session, borrow, async function* records(db, dbPath) {
    checkLedger(ctx, db, dbPath)
    yield* sessionRecords(ctx, db, dbPath, session.id, opts, new Set())
  })
}
