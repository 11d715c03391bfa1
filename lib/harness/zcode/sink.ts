/**
 * Writing sessions into ZCode's database (docs/formats/zcode.md §Writing).
 *
 * - Into the store: only a database ZCode itself created and migrated; none
 *   there → a one-line usage error saying how to get one (run ZCode once) or
 *   to use `--out FILE`, which writes a standalone database with ZCode's
 *   schema (an export: ZCode does not adopt it, see schema.ts).
 * - Each session is collected, then written in one `BEGIN IMMEDIATE`
 *   transaction with `busy_timeout` 5000 ms and foreign keys on: session →
 *   session_entry → messages → parts, `sequence` 0..n as ZCode fills it.
 *   `schema_migration` and every table ZCode does not read on resume are
 *   never touched. A session that exists is refused (`exists`) unless
 *   `force`, which deletes and re-inserts it in the same transaction. A
 *   database held busy past the timeout fails the session with nothing written.
 * - A ZCode session read with `native` whose records all still carry their
 *   rows is replayed row for row (ids, columns and `data` text unchanged);
 *   anything else is converted: ids minted in ZCode's formats from a hash of
 *   the source (reproducible), rows in the shape ZCode's own writer gives them.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { Writable } from 'node:stream'
import Database from 'better-sqlite3'
import { sourceHarness, type BoundaryRec, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type SessionRec } from '../../model.js'
import { ExistsError, FerryError, UsageError, errorMessage } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { isBusy } from '../../io/sqlite-readonly.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import { insertRow, sessionExists, type Row } from '../family/opencode-rows.js'
import { targetModel } from '../family/opencode-flags.js'
import { finishOf, msOf, noTokens, StepWriter, type Writing } from '../family/opencode-steps.js'
import { IdMinter, projectId, sessionId } from './ids.js'
import { layout, primaryDb, userRoot } from './paths.js'
import { fileInsideRootSync } from '../../io/inside-root.js'
import type { WriteOpts } from './flags.js'
import { migrate } from './schema.js'
import { INTERRUPTED } from './source.js'

/** The ZCode CLI version written into converted sessions (the one the format notes were read against). */
export const TARGET_VERSION = '0.16.9'
export const BUSY_TIMEOUT_MS = 5000
/** What a compaction with no summary leaves in the written history. */
export const COMPACTED_NOTE = '[ferry] The conversation was compacted here and the source kept no summary of it; the turns before this point are kept above.'
/** The agent (and mode) written messages name. */
const AGENT = 'build'
/** What ZCode's provider guess knows beyond the common ones: GLM models are `zai`'s. */
const PROVIDERS = [[/^glm/, 'zai']] as const

/** The sink's options: the write flags', and how long to wait for a busy database (tests shorten it). */
export type SinkOpts = WriteOpts & { busyTimeout?: number }

/** ferry's title_source in ZCode's set. */
function zTitleSource(ts: string | undefined): string {
  switch (ts) {
    case 'custom':
      return 'custom'
    case 'ai':
    case 'summary':
      return 'generated'
    default:
      return 'first_input'
  }
}

/** ZCode shortens a first input to 57 characters + `...` (60 at most). */
function shortTitle(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim()
  return t.length <= 60 ? t : `${t.slice(0, 57)}...`
}

/** The rows of one session, in insertion order. */
interface Rows {
  session: Row
  entries: Row[]
  /** message and part rows interleaved in ZCode's order (a message before its parts). */
  body: Array<{ table: 'message' | 'part'; row: Row }>
}

interface SinkState {
  minted: Map<string, string>
  db: Database.Database | null
  path: string
  created: boolean
  /** The store root the database and its -wal/-shm must resolve inside (symlinks followed). */
  root: string
}

class ZCodeWriter extends StepWriter implements SessionWriter {
  private readonly rows: Rows['body'] = []
  private readonly entries: Row[] = []
  private replay: boolean
  private msgSeq = 0
  private readonly cwd: string
  private sessionRow: Row | null = null
  /** A compaction boundary not yet written: it becomes a visible note unless a summary message carries it. */
  private boundary: BoundaryRec | null = null
  protected override readonly filenameFirst = true

  constructor(
    w: Writing,
    private readonly opts: SinkOpts,
    private readonly state: SinkState,
    private readonly id: string,
  ) {
    super(w)
    const header = w.header
    const n = header.native
    const nrow = n?.row as Row | undefined
    this.replay = this.same && !!n?.format.startsWith('zcode/') && n.table === 'session' && !!nrow && nrow.id === header.native_id && !opts.model && !opts.provider
    if (this.replay) this.sessionRow = { ...nrow }
    this.cwd = header.cwd && isAbsolute(header.cwd) ? header.cwd : w.ctx.home
  }

  static async open(ctx: StoreContext, opts: SinkOpts, header: SessionRec, state: SinkState): Promise<ZCodeWriter> {
    if (header.cwd !== undefined && !isAbsolute(header.cwd)) throw new FerryError(`session directory ${JSON.stringify(header.cwd)} is not absolute; ZCode resumes in the session's directory`, { code: 'invalid-input', source: 'zcode' })
    const n = header.native
    const nrow = n?.row as Row | undefined
    const keep = sourceHarness(header) === 'zcode' && n?.table === 'session' && typeof nrow?.id === 'string' && nrow.id === header.native_id && !opts.model && !opts.provider
    const id = keep ? header.native_id : sessionId(header.sid)
    state.minted.set(header.sid, id)
    const w: Writing = { ctx, harness: layout.harness, agent: AGENT, header, minter: new IdMinter(`${id}:${header.sid}`), created: msOf(header.created_at) ?? Date.now(), ...targetModel(opts, header, PROVIDERS) }
    return new ZCodeWriter(w, opts, state, id)
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'stream') return
    if (this.replay) {
      const n = rec.native
      if (!n || !n.format.startsWith('zcode/')) {
        // Something without its row (added or changed by a transform): convert the whole session instead.
        this.replay = false
        throw new FerryError('records of this ZCode session lost their native rows mid-stream; read it again with native data, or without', { code: 'invalid-input', position: { row: rec.id }, source: 'zcode' })
      }
      if (n.row === undefined) return // derived from rows already given (a tool part's result)
      const all = [{ pk: `${n.table}:${n.pk}`, row: n.row }, ...(n.merged ?? [])]
      for (const u of all) {
        const key = String(u.pk)
        const table = key.slice(0, key.indexOf(':'))
        if (table === 'session_entry') this.entries.push(u.row as Row)
        else if (table === 'message' || table === 'part') this.rows.push({ table, row: u.row as Row })
      }
      return
    }
    if (rec.kind === 'boundary') {
      // Another harness's compaction: ZCode's own is a compaction part, whose resume drops every
      // turn before it, so the boundary travels as ZCode's compact-summary message instead.
      if (!this.same && rec.type === 'compaction') {
        await this.noteBoundary(null)
        this.boundary = rec
      }
      return
    }
    if (rec.kind !== 'message') return
    await this.noteBoundary(rec)
    const t = this.time(rec.ts)
    const context = rec.context === true || rec.role === 'system'
    // Injected context stays out, except what the user saw: a compaction summary, a sub-agent's answer.
    const visible = rec.context_kind === 'summary' || rec.context_kind === 'subagent'
    if (context && !this.same && !visible) {
      if (rec.blocks.some((b) => b.type === 'tool_result')) await this.userRecord(rec, t, false)
      return
    }
    // A summary is ZCode's compact-summary user message whichever role the source gave it
    // (OpenCode's is an assistant step): kept out of the step before it.
    if (rec.role === 'assistant' && rec.context_kind !== 'summary') return this.assistantRecord(rec, t)
    return this.userRecord(rec, t, context)
  }

  /**
   * Writes the pending boundary as a compact-summary note before `next`, unless `next` is the
   * summary message that carries the same text: a boundary with no summary at all still leaves
   * a visible line, so the compaction is never silent.
   */
  private async noteBoundary(next: MessageRec | null): Promise<void> {
    const b = this.boundary
    if (!b) return
    this.boundary = null
    const own = b.summary?.trim() ? b.summary : undefined
    if (next?.context_kind === 'summary') {
      const carried = next.blocks.flatMap((x) => (x.type === 'text' ? [x.text] : [])).join('\n\n')
      if (!own || carried.includes(own.trim())) return
    }
    const m = await this.startUser(null, this.time(b.ts), true)
    m.parts.push({ type: 'text', text: own ?? COMPACTED_NOTE })
  }

  protected userInfo(_id: string, _rec: MessageRec | null, t: number, summary: boolean): JsonObject {
    return {
      role: 'user',
      time: { created: t },
      agent: this.agent,
      modelSelection: { providerId: this.provider, modelId: this.model },
      semantics: { origin: 'import', kind: summary ? 'compact_summary' : 'user_prompt' },
      // ZCode's own writer always adds the legacy object: its frozen legacy mapper reads it unconditionally.
      model: { providerID: this.provider, modelID: this.model },
    }
  }

  protected assistantInfo(_id: string, rec: MessageRec, t: number): JsonObject {
    return {
      role: 'assistant',
      time: { created: t, completed: t },
      parentID: this.lastUser,
      modelId: this.opts.model ?? rec.model ?? this.model,
      providerId: this.provider,
      mode: this.agent,
      agent: this.agent,
      path: { cwd: this.cwd, root: this.cwd },
      cost: 0,
      tokens: noTokens(),
    }
  }

  protected override stepParts(): JsonObject[] {
    return [{ type: 'step-start' }]
  }

  protected assistantText(text: string, t: number): JsonObject {
    return { type: 'text', text, time: { start: t, end: t } }
  }

  protected pendingTool(name: string, callId: string, input: JsonObject, t: number): JsonObject {
    return { type: 'tool', callID: callId, tool: name, state: { status: 'pending', input }, _t: t }
  }

  protected errorState(input: unknown, text: string, structured: JsonObject, time: { start: number; end: number }): JsonObject {
    return { status: 'error', input, error: typeof structured.error === 'string' ? structured.error : text, metadata: { ...(structured.metadata ?? {}), modelContent: text }, time }
  }

  protected override synthetic(context: boolean, rec: MessageRec): boolean {
    return context && rec.context_kind !== 'summary'
  }

  protected override titles(text: string): boolean {
    return text.trim() !== ''
  }

  /** Turns the open message into rows: ids in part order, tool calls with no result closed as interrupted. */
  protected flush(): void {
    const m = this.open
    this.open = null
    if (!m) return
    if (m.info.role === 'assistant') {
      const content = m.parts.filter((p) => p.type !== 'step-start')
      if (!content.length) return
      const last = content[content.length - 1]!
      m.info.finish ??= finishOf(m.stop, last.type === 'tool')
      m.parts.push({ type: 'step-finish', reason: m.info.finish, cost: m.info.cost, tokens: m.info.tokens })
    } else if (!m.parts.length) return
    const created = m.created
    const mUpdated = m.info.role === 'assistant' ? m.info.time.completed : created
    this.rows.push({ table: 'message', row: { id: m.id, session_id: this.id, time_created: created, time_updated: mUpdated, data: JSON.stringify(m.info), sequence: this.msgSeq++ } })
    let seq = 0
    for (const p of m.parts) {
      if (p.type === 'tool' && p.state.status === 'pending') {
        const start: number = p._t
        delete p._t
        p.state = { status: 'error', input: p.state.input, error: INTERRUPTED, metadata: { modelContent: INTERRUPTED }, time: { start, end: start } }
      }
      const pt = typeof p.time?.start === 'number' ? p.time.start : typeof p.state?.time?.start === 'number' ? p.state.time.start : created
      const pu = typeof p.time?.end === 'number' ? p.time.end : typeof p.state?.time?.end === 'number' ? p.state.time.end : pt
      this.rows.push({ table: 'part', row: { id: this.minter.part(created), message_id: m.id, session_id: this.id, time_created: pt, time_updated: pu, data: JSON.stringify(p), sequence: seq++ } })
    }
  }

  private convertedSession(end?: EndRec): Row {
    const h = this.header
    const title = end?.title ?? h.title ?? (this.firstUserText ? shortTitle(this.firstUserText) : 'Imported session')
    const parent = h.parent ? this.state.minted.get(h.parent.sid) : undefined
    const updated = Math.max(this.lastTime, msOf(end?.updated_at ?? h.updated_at) ?? 0, this.w.created)
    return {
      id: this.id,
      project_id: projectId(this.cwd),
      workspace_id: null,
      parent_id: parent ?? null,
      slug: this.id,
      directory: this.cwd,
      path: this.cwd,
      title,
      version: TARGET_VERSION,
      permission: '{"mode":"build"}',
      time_created: this.w.created,
      time_updated: updated,
      time_archived: null,
      task_type: parent ? (h.parent?.kind === 'fork' ? 'fork' : 'subagent_child') : 'interactive',
      title_source: h.title || end?.title ? zTitleSource(h.title_source) : 'first_input',
      time_title_updated: this.w.created,
    }
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    let session: Row
    if (this.replay) session = this.sessionRow!
    else {
      await this.noteBoundary(null)
      this.flush()
      session = this.convertedSession(end)
      this.entries.push(
        { id: `${this.id}:runtime-model-selection`, session_id: this.id, type: 'runtime/model_selection', time_created: this.w.created, time_updated: this.w.created, data: JSON.stringify({ modelSelection: { providerId: this.provider, modelId: this.model } }) },
        { id: `${this.id}:runtime-execution-state`, session_id: this.id, type: 'runtime/execution_state', time_created: this.w.created, time_updated: this.w.created, data: JSON.stringify({ mode: 'build', planEnabled: false }) },
      )
    }
    writeSession(this.state, this.opts, { session, entries: this.entries, body: this.rows })
    const written: WrittenSession = { harness: 'zcode', id: this.id, path: this.state.path, from: this.header.sid, title: String(session.title ?? '') }
    if (!this.replay) written.note = `resume with: cd ${JSON.stringify(String(session.directory))} && zcode --resume ${this.id} (ZCode runs it with the model provider "${this.provider}", guessed from the model ${JSON.stringify(String(this.model))}: a provider of that id must be set up in ZCode's settings; --zcode-provider ID names another)`
    return written
  }

  async abort(): Promise<void> {
    // Nothing is written before finish(); its transaction rolls back on any error.
  }
}

function connection(state: SinkState, opts: SinkOpts): Database.Database {
  if (state.db) return state.db
  const fresh = !existsSync(state.path)
  if (fresh) mkdirSync(dirname(state.path), { recursive: true })
  const db = new Database(state.path, { fileMustExist: !fresh, timeout: opts.busyTimeout ?? BUSY_TIMEOUT_MS })
  db.pragma('foreign_keys = ON')
  if (fresh) {
    migrate(db)
    state.created = true
  }
  state.db = db
  return db
}

function writeSession(state: SinkState, opts: SinkOpts, rows: Rows): void {
  const id = String(rows.session.id)
  const pos = { file: state.path, row: `session:${id}` }
  if (!state.db) for (const f of [state.path, `${state.path}-wal`, `${state.path}-shm`]) fileInsideRootSync(state.root, f)
  // Before opening for writing, asked read-only so a refusal changes nothing on disk.
  if (!opts.force && !state.db && sessionExists(layout, state.path, id)) throw new ExistsError(state.path, pos)
  let db: Database.Database
  try {
    db = connection(state, opts)
  } catch (err) {
    throw new FerryError(`cannot open the database for writing: ${errorMessage(err)}`, { code: 'db-error', position: { file: state.path }, source: 'zcode', cause: err })
  }
  try {
    db.exec('BEGIN IMMEDIATE')
  } catch (err) {
    if (isBusy(err)) throw new FerryError(`database is busy (held by another process for more than ${opts.busyTimeout ?? BUSY_TIMEOUT_MS} ms); nothing written`, { code: 'db-error', position: pos, source: 'zcode', cause: err })
    throw new FerryError(`cannot write: ${errorMessage(err)}`, { code: 'db-error', position: pos, source: 'zcode', cause: err })
  }
  try {
    if (db.prepare('SELECT 1 FROM session WHERE id = ?').get(id)) {
      if (!opts.force) throw new ExistsError(state.path, pos)
      // Replacing: children of the old row go with it (ZCode's foreign keys cascade), parts by session too.
      db.prepare('DELETE FROM part WHERE session_id = ?').run(id)
      db.prepare('DELETE FROM session WHERE id = ?').run(id)
    }
    insertRow(db, 'session', rows.session)
    for (const e of rows.entries) insertRow(db, 'session_entry', e)
    for (const r of rows.body) insertRow(db, r.table, r.row)
    db.exec('COMMIT')
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    if (err instanceof FerryError) throw err
    throw new FerryError(`cannot write: ${errorMessage(err)}`, { code: isBusy(err) ? 'db-error' : 'write-failed', position: pos, source: 'zcode', cause: err })
  }
}

/** `--out`: a database file (`*.sqlite`, `*.sqlite3`, `*.db`, or an existing file), else a root directory holding one where ZCode's would be (`<dir>/cli/db/db.sqlite`). */
function outPath(out: string): string {
  const p = resolve(out)
  let file = /\.(sqlite3?|db)$/.test(p)
  try {
    file = statSync(p).isFile()
  } catch {
    // does not exist yet: the name decides
  }
  return file ? p : join(p, 'cli', 'db', 'db.sqlite')
}

export function sink(ctx: StoreContext, opts: SinkOpts = {}): Writable {
  const out = typeof opts.out === 'string' && opts.out !== '' ? outPath(opts.out) : null
  const path = out ?? primaryDb(ctx)
  if (!out && !existsSync(path)) throw new UsageError(`no ZCode database at ${path}: start ZCode once (\`zcode\`) so it creates and migrates it, or write a standalone database with --out FILE`)
  const root = out ? (out === resolve(String(opts.out)) ? dirname(out) : resolve(String(opts.out))) : path.startsWith(resolve(userRoot(ctx)) + '/') ? resolve(userRoot(ctx)) : dirname(path)
  const state: SinkState = { minted: new Map(), db: null, path, created: false, root }
  const close = async () => {
    state.db?.close()
    state.db = null
  }
  return new SessionSink(ctx, 'zcode', (header) => ZCodeWriter.open(ctx, opts, header, state), { close, destroy: close })
}
