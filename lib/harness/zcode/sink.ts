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
import { resultText, sourceHarness, type Block, type BoundaryRec, type EndRec, type FerryRecord, type MessageRec, type SessionRec, type StopReason, type ToolResultBlock } from '../../model.js'
import { ExistsError, FerryError, UsageError, errorMessage } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { isBusy, openReadOnly } from '../../io/sqlite-readonly.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WriteOptions, WrittenSession } from '../types.js'
import { IdMinter, projectId, sessionId } from './ids.js'
import { primaryDb } from './paths.js'
import { migrate } from './schema.js'
import { INTERRUPTED } from './source.js'

type Json = Record<string, any>
type Row = Record<string, unknown>

/** The ZCode CLI version written into converted sessions (the one the format notes were read against). */
export const TARGET_VERSION = '0.16.9'
export const BUSY_TIMEOUT_MS = 5000
/** What a compaction with no summary leaves in the written history. */
export const COMPACTED_NOTE = '[ferry] The conversation was compacted here and the source kept no summary of it; the turns before this point are kept above.'

export type ZCodeWriteOptions = WriteOptions & { provider?: string; model?: string; busyTimeout?: number }

function ms(ts: string | null | undefined): number | null {
  if (!ts) return null
  const t = Date.parse(ts)
  return Number.isNaN(t) ? null : t
}

export function guessProvider(model: string | undefined): string {
  const m = (model ?? '').toLowerCase()
  if (/claude|opus|sonnet|haiku/.test(m)) return 'anthropic'
  if (/^(gpt|o\d|codex|chatgpt)/.test(m)) return 'openai'
  if (m.startsWith('grok')) return 'xai'
  if (m.startsWith('gemini')) return 'google'
  if (m.startsWith('glm')) return 'zai'
  return 'unknown'
}

function finishOf(stop: StopReason | undefined, endsInTool: boolean): string {
  if (endsInTool) return 'tool-calls'
  switch (stop) {
    case 'max_tokens':
      return 'length'
    case 'tool_use':
      return 'tool-calls'
    case 'error':
      return 'error'
    case 'refusal':
      return 'content-filter'
    default:
      return 'stop'
  }
}

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

function objectInput(v: unknown): Json {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Json
  return v === undefined ? {} : { input: v }
}

function fileUrl(b: { mime: string; data?: string; ref?: { path?: string; url?: string } }): string | null {
  if (b.data !== undefined) return `data:${b.mime};base64,${b.data}`
  if (b.ref?.url) return b.ref.url
  if (b.ref?.path) return `file://${encodeURI(b.ref.path)}`
  return null
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
}

interface OpenMessage {
  id: string
  info: Json
  parts: Json[]
  tools: Map<string, Json>
  sawResults: boolean
  stop?: StopReason
  created: number
}

class ZCodeWriter implements SessionWriter {
  private readonly minter: IdMinter
  private readonly rows: Rows['body'] = []
  private readonly entries: Row[] = []
  private replay: boolean
  private open: OpenMessage | null = null
  private lastUser: string | null = null
  private lastTime: number
  private msgSeq = 0
  private firstUserText: string | undefined
  private readonly same: boolean
  private readonly cwd: string
  private readonly model: string
  private readonly provider: string
  private sessionRow: Row | null = null
  /** A compaction boundary not yet written: it becomes a visible note unless a summary message carries it. */
  private boundary: BoundaryRec | null = null
  /** Calls in user messages (a person's slash commands), whose results are not tool results in ZCode. */
  private readonly userCalls = new Set<string>()

  constructor(
    private readonly ctx: StoreContext,
    private readonly opts: ZCodeWriteOptions,
    private readonly header: SessionRec,
    private readonly state: SinkState,
    private readonly id: string,
    private readonly created: number,
  ) {
    this.minter = new IdMinter(`${id}:${header.sid}`)
    this.lastTime = created
    this.same = sourceHarness(header) === 'zcode'
    const n = header.native
    const nrow = n?.row as Row | undefined
    this.replay = this.same && !!n?.format.startsWith('zcode/') && n.table === 'session' && !!nrow && nrow.id === header.native_id && !opts.model && !opts.provider
    if (this.replay) this.sessionRow = { ...nrow }
    this.cwd = header.cwd && isAbsolute(header.cwd) ? header.cwd : ctx.home
    this.model = opts.model ?? header.model ?? 'unknown'
    this.provider = opts.provider ?? header.provider ?? guessProvider(this.model)
  }

  static async open(ctx: StoreContext, opts: ZCodeWriteOptions, header: SessionRec, state: SinkState): Promise<ZCodeWriter> {
    if (header.cwd !== undefined && !isAbsolute(header.cwd)) throw new FerryError(`session directory ${JSON.stringify(header.cwd)} is not absolute; ZCode resumes in the session's directory`, { code: 'invalid-input', source: 'zcode' })
    const n = header.native
    const nrow = n?.row as Row | undefined
    const keep = sourceHarness(header) === 'zcode' && n?.table === 'session' && typeof nrow?.id === 'string' && nrow.id === header.native_id && !opts.model && !opts.provider
    const id = keep ? header.native_id : sessionId(header.sid)
    state.minted.set(header.sid, id)
    return new ZCodeWriter(ctx, opts, header, state, id, ms(header.created_at) ?? Date.now())
  }

  private time(ts: string | null | undefined): number {
    const t = ms(ts)
    if (t !== null && t > this.lastTime) this.lastTime = t
    return this.lastTime
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
        this.noteBoundary(null)
        this.boundary = rec
      }
      return
    }
    if (rec.kind !== 'message') return
    this.noteBoundary(rec)
    const t = this.time(rec.ts)
    const context = rec.context === true || rec.role === 'system'
    // Injected context stays out, except what the user saw: a compaction summary, a sub-agent's answer.
    const visible = rec.context_kind === 'summary' || rec.context_kind === 'subagent'
    if (context && !this.same && !visible) {
      if (rec.blocks.some((b) => b.type === 'tool_result')) this.userRecord(rec, t, false)
      return
    }
    // A summary is ZCode's compact-summary user message whichever role the source gave it
    // (OpenCode's is an assistant step): kept out of the step before it.
    if (rec.role === 'assistant' && rec.context_kind !== 'summary') return this.assistantRecord(rec, t)
    this.userRecord(rec, t, context)
  }

  /**
   * Writes the pending boundary as a compact-summary note before `next`, unless `next` is the
   * summary message that carries the same text: a boundary with no summary at all still leaves
   * a visible line, so the compaction is never silent.
   */
  private noteBoundary(next: MessageRec | null): void {
    const b = this.boundary
    if (!b) return
    this.boundary = null
    const own = b.summary?.trim() ? b.summary : undefined
    if (next?.context_kind === 'summary') {
      const carried = next.blocks.flatMap((x) => (x.type === 'text' ? [x.text] : [])).join('\n\n')
      if (!own || carried.includes(own.trim())) return
    }
    const m = this.startUser(this.time(b.ts), true)
    m.parts.push({ type: 'text', text: own ?? COMPACTED_NOTE })
  }

  private startUser(t: number, summary = false): OpenMessage {
    this.flush()
    const id = this.minter.message(t)
    const sel = { providerId: this.provider, modelId: this.model }
    const info: Json = {
      role: 'user',
      time: { created: t },
      agent: 'build',
      modelSelection: sel,
      semantics: { origin: 'import', kind: summary ? 'compact_summary' : 'user_prompt' },
      // ZCode's own writer always adds the legacy object: its frozen legacy mapper reads it unconditionally.
      model: { providerID: this.provider, modelID: this.model },
    }
    this.open = { id, info, parts: [], tools: new Map(), sawResults: false, created: t }
    this.lastUser = id
    return this.open
  }

  private startAssistant(rec: MessageRec, t: number): OpenMessage {
    if (!this.lastUser) {
      const u = this.startUser(t)
      u.parts.push({ type: 'text', text: '(conversation continued from an earlier session)', synthetic: true })
    }
    this.flush()
    const id = this.minter.message(t)
    const info: Json = {
      role: 'assistant',
      time: { created: t, completed: t },
      parentID: this.lastUser,
      modelId: this.opts.model ?? rec.model ?? this.model,
      providerId: this.provider,
      mode: 'build',
      agent: 'build',
      path: { cwd: this.cwd, root: this.cwd },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    }
    this.open = { id, info, parts: [{ type: 'step-start' }], tools: new Map(), sawResults: false, created: t }
    return this.open
  }

  private assistantRecord(rec: MessageRec, t: number): void {
    let m = this.open
    if (!m || m.info.role !== 'assistant' || m.sawResults) m = this.startAssistant(rec, t)
    m.info.time.completed = Math.max(m.info.time.completed, t)
    for (const b of rec.blocks) {
      switch (b.type) {
        case 'text':
          m.parts.push({ type: 'text', text: b.text, time: { start: t, end: t } })
          break
        case 'thinking':
          // Only the text: a foreign signature must not reach ZCode's provider metadata.
          if (b.text) m.parts.push({ type: 'reasoning', text: b.text, time: { start: t, end: t } })
          break
        case 'tool_use': {
          const native = toNative('zcode', b, sourceHarness(this.header))
          const p: Json = { type: 'tool', callID: b.id, tool: native.name, state: { status: 'pending', input: objectInput(native.input) }, _t: t }
          m.parts.push(p)
          m.tools.set(b.id, p)
          break
        }
        default: {
          const f = this.mediaPart(b)
          if (f) m.parts.push(f)
        }
      }
    }
    if (rec.usage) {
      const u = rec.usage
      m.info.tokens = { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, reasoning: u.reasoning_tokens ?? 0, cache: { read: u.cache_read_tokens ?? 0, write: u.cache_write_tokens ?? 0 } }
      if (u.total_tokens !== undefined) m.info.tokens.total = u.total_tokens
      if (typeof u.cost_usd === 'number') m.info.cost = u.cost_usd
    }
    if (rec.stop_reason) m.stop = rec.stop_reason
  }

  private mediaPart(b: Block): Json | null {
    if (b.type !== 'image' && b.type !== 'file') return null
    const url = fileUrl(b)
    if (!url) return null
    return { type: 'file', mime: b.mime, ...(b.type === 'file' && b.name ? { filename: b.name } : {}), url }
  }

  private fill(part: Json, r: ToolResultBlock, t: number): void {
    const start: number = part._t
    delete part._t
    const end = Math.max(start, t)
    const input = part.state.input
    const text = resultText(r.content)
    const structured = this.same && r.structured && typeof r.structured === 'object' ? (r.structured as Json) : {}
    if (r.is_error) {
      part.state = { status: 'error', input, error: typeof structured.error === 'string' ? structured.error : text, metadata: { ...(structured.metadata ?? {}), modelContent: text }, time: { start, end } }
      return
    }
    const state: Json = { status: 'completed', input, output: text, title: typeof structured.title === 'string' ? structured.title : String(part.tool), metadata: structured.metadata && typeof structured.metadata === 'object' ? structured.metadata : {}, time: { start, end } }
    if (Array.isArray(r.content)) {
      const att = r.content.filter((c) => c.type === 'image').map((c) => ({ type: 'file', mime: c.mime, url: fileUrl(c) })).filter((a) => a.url)
      if (att.length) state.attachments = att
    }
    part.state = state
  }

  private userRecord(rec: MessageRec, t: number, context: boolean): void {
    for (const b of rec.blocks) {
      if (b.type !== 'tool_result') continue
      // The output of a person's command (Claude Code's `/compact` as a user-side call): ZCode has no such call.
      if (this.userCalls.delete(b.tool_use_id)) continue
      const part = this.open?.info.role === 'assistant' ? this.open.tools.get(b.tool_use_id) : undefined
      if (!part) {
        this.ctx.diagnostics.warn('orphan-result', `tool result ${b.tool_use_id} has no call in the open step; dropped`, { row: rec.id }, 'zcode')
        continue
      }
      this.fill(part, b, t)
      this.open!.tools.delete(b.tool_use_id)
      this.open!.sawResults = true
    }
    const parts: Json[] = []
    for (const b of rec.blocks) {
      if (b.type === 'text') {
        parts.push({ type: 'text', text: b.text, ...(context && rec.context_kind !== 'summary' ? { synthetic: true } : {}) })
        if (!context && this.firstUserText === undefined && b.text.trim()) this.firstUserText = b.text
      } else if (b.type === 'tool_use') {
        // A call the person made (a slash command), not the model: ZCode keeps it as the typed text.
        this.userCalls.add(b.id)
        const args = b.input && typeof b.input === 'object' && typeof (b.input as Json).args === 'string' ? ((b.input as Json).args as string) : ''
        parts.push({ type: 'text', text: `${b.name} ${args}`.trim() })
      } else {
        const f = this.mediaPart(b)
        if (f) parts.push(f)
      }
    }
    if (!parts.length) return
    const m = this.startUser(t, rec.context_kind === 'summary')
    m.parts.push(...parts)
  }

  /** Turns the open message into rows: ids in part order, tool calls with no result closed as interrupted. */
  private flush(): void {
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
    const updated = Math.max(this.lastTime, ms(end?.updated_at ?? h.updated_at) ?? 0, this.created)
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
      time_created: this.created,
      time_updated: updated,
      time_archived: null,
      task_type: parent ? (h.parent?.kind === 'fork' ? 'fork' : 'subagent_child') : 'interactive',
      title_source: h.title || end?.title ? zTitleSource(h.title_source) : 'first_input',
      time_title_updated: this.created,
    }
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    let session: Row
    if (this.replay) session = this.sessionRow!
    else {
      this.noteBoundary(null)
      this.flush()
      session = this.convertedSession(end)
      this.entries.push(
        { id: `${this.id}:runtime-model-selection`, session_id: this.id, type: 'runtime/model_selection', time_created: this.created, time_updated: this.created, data: JSON.stringify({ modelSelection: { providerId: this.provider, modelId: this.model } }) },
        { id: `${this.id}:runtime-execution-state`, session_id: this.id, type: 'runtime/execution_state', time_created: this.created, time_updated: this.created, data: JSON.stringify({ mode: 'build', planEnabled: false }) },
      )
    }
    writeSession(this.state, this.opts, { session, entries: this.entries, body: this.rows })
    const written: WrittenSession = { harness: 'zcode', id: this.id, path: this.state.path, from: this.header.sid, title: String(session.title ?? '') }
    if (!this.replay) written.note = `resume with: cd ${JSON.stringify(String(session.directory))} && zcode --resume ${this.id} (provider "${this.provider}" must exist in ZCode's config)`
    return written
  }

  async abort(): Promise<void> {
    // Nothing is written before finish(); its transaction rolls back on any error.
  }
}

const colCache = new WeakMap<Database.Database, Map<string, Set<string>>>()

function tableColumns(db: Database.Database, table: string): Set<string> {
  let m = colCache.get(db)
  if (!m) colCache.set(db, (m = new Map()))
  let c = m.get(table)
  if (!c) m.set(table, (c = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name))))
  return c
}

const stmtCache = new WeakMap<Database.Database, Map<string, Database.Statement>>()

/** Inserts the row's columns that the table has (a newer or older schema drops or lacks some); statements are reused. */
function insert(db: Database.Database, table: string, row: Row): void {
  const cols = tableColumns(db, table)
  const keys = Object.keys(row).filter((k) => cols.has(k))
  const sig = `${table}\u0000${keys.join('\u0000')}`
  let m = stmtCache.get(db)
  if (!m) stmtCache.set(db, (m = new Map()))
  let st = m.get(sig)
  if (!st) m.set(sig, (st = db.prepare(`INSERT INTO "${table}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`)))
  st.run(...keys.map((k) => row[k] as any))
}

/** Whether the session is already in the database, asked without opening it for writing (nothing on disk changes). */
function existsReadOnly(path: string, id: string): boolean {
  if (!existsSync(path)) return false
  const h = openReadOnly(path, { source: 'zcode' })
  try {
    return h.db.prepare('SELECT 1 FROM session WHERE id = ?').get(id) !== undefined
  } finally {
    h.close()
  }
}

function connection(state: SinkState, opts: ZCodeWriteOptions): Database.Database {
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

function writeSession(state: SinkState, opts: ZCodeWriteOptions, rows: Rows): void {
  const id = String(rows.session.id)
  const pos = { file: state.path, row: `session:${id}` }
  // Before opening for writing, asked read-only so a refusal changes nothing on disk.
  if (!opts.force && !state.db && existsReadOnly(state.path, id)) throw new ExistsError(state.path, pos)
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
    insert(db, 'session', rows.session)
    for (const e of rows.entries) insert(db, 'session_entry', e)
    for (const r of rows.body) insert(db, r.table, r.row)
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

export function zcodeSink(ctx: StoreContext, opts: ZCodeWriteOptions = {}): Writable {
  const out = typeof opts.out === 'string' && opts.out !== '' ? outPath(opts.out) : null
  const path = out ?? primaryDb(ctx)
  if (!out && !existsSync(path)) throw new UsageError(`no ZCode database at ${path}: start ZCode once (\`zcode\`) so it creates and migrates it, or write a standalone database with --out FILE`)
  const state: SinkState = { minted: new Map(), db: null, path, created: false }
  const close = async () => {
    state.db?.close()
    state.db = null
  }
  return new SessionSink(ctx, 'zcode', (header) => ZCodeWriter.open(ctx, opts, header, state), { close, destroy: close })
}
