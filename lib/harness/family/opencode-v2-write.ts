/**
 * Writing sessions for OpenCode 2: records → `SessionMessage.Info` messages
 * (one assistant message per model step, each tool call and its result one
 * `tool` content item with `id` and `state`), landed either as rows in the
 * database's `session_v2`/`session_message` tables (one transaction, at the
 * session's end) or as a `SessionTransfer` document (`{info, messages}`) for
 * `opencode2 import`. v1 stores keep the export-document path
 * (`opencode-export.ts`); this module is used only when the target is v2.
 * Shapes and sources: docs/formats/opencode.md §OpenCode 2.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { chmod } from 'node:fs/promises'
import Database from 'better-sqlite3'
import { isObj, resultText, sourceHarness, type Block, type BoundaryRec, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type NativeRec, type SessionRec } from '../../model.js'
import { ExistsError, FerryError, UsageError, errorMessage } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { AtomicFile } from '../../io/atomic.js'
import { isBusy, type ReadOnlyDb } from '../../io/sqlite-readonly.js'
import { toNative } from '../../vocabulary/index.js'
import type { SessionWriter } from '../session-sink.js'
import type { Writable } from 'node:stream'
import type { WrittenSession } from '../types.js'
import { insertRow, open, sessionExists, type Layout, type Row } from './opencode-rows.js'
import { hasV2 } from './opencode-v2-schema.js'
import { targetModel } from './opencode-flags.js'
import { finishOf, msOf, noTokens } from './opencode-steps.js'
import { IdMinter, sessionId } from './opencode-ids.js'
import { documentSink, slugOf, type DocumentTarget } from './opencode-export.js'
import type { DocumentWriteOpts } from './opencode-flags.js'
import { SessionSink } from '../session-sink.js'
import { V1_TO_V2_TOOL } from './opencode-v2-tools.js'

const BUSY_TIMEOUT_MS = 5000

/** Where a v2 session goes: rows in a database, or a `SessionTransfer` document (`--out`: a file, or a dir of `<ses>.json`). */
export type V2Target = { kind: 'rows'; db: string } | { kind: 'document'; out: string }

export interface V2WriteOpts {
  model?: string
  provider?: string
  force?: boolean
}

/** What every v2 writer of one sink shares: minted ids (children name their parents) and the one connection. */
export interface V2State {
  minted: Map<string, string>
  db: Database.Database | null
  /** `--out FILE.json` names the first session's document; the others go beside it. */
  outFileUsed: boolean
}

/** A message of OpenCode 2's union, `type` and `id` included (a row stores the rest as `data`). */
type V2Message = JsonObject & { id: string; type: string; time: { created: number; completed?: number } }

function textOf(blocks: Block[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n')
}

/** A block's media as a prompt file attachment (`{uri, mime, name}`), or null when it has no bytes or reference. */
function attachment(b: Block): JsonObject | null {
  if (b.type !== 'image' && b.type !== 'file') return null
  const uri = b.data !== undefined ? `data:${b.mime};base64,${b.data}` : b.ref?.path ? `file://${b.ref.path}` : b.ref?.url
  if (!uri) return null
  return { uri, mime: b.mime, ...(b.type === 'file' && b.name ? { name: b.name } : {}) }
}

export class V2Writer implements SessionWriter {
  private readonly messages: V2Message[] = []
  private readonly minter: IdMinter
  private readonly same: boolean
  private readonly model: { id: string; providerID: string }
  /** The open assistant message and its tool items by call id. */
  private open: { m: V2Message; tools: Map<string, JsonObject> } | null = null
  private lastTime: number
  private firstUser: string | undefined
  private cost = 0
  private readonly tokens = noTokens()
  private file: AtomicFile | null = null

  constructor(
    private readonly ctx: StoreContext,
    private readonly layout: Layout,
    private readonly version: string,
    private readonly agent: string,
    private readonly opts: V2WriteOpts,
    private readonly header: SessionRec,
    private readonly state: V2State,
    private readonly target: V2Target,
    private readonly ses: string,
    private readonly created: number,
  ) {
    this.minter = new IdMinter(`${ses}:${header.sid}`)
    this.same = sourceHarness(header) === layout.harness
    const m = targetModel(opts, header)
    this.model = { id: m.model, providerID: m.provider }
    this.lastTime = created
  }

  static async open(ctx: StoreContext, layout: Layout, version: string, agent: string, opts: V2WriteOpts, header: SessionRec, state: V2State, target: V2Target): Promise<V2Writer> {
    const created = msOf(header.created_at) ?? Date.now()
    const ses = sessionId(created, header.sid)
    state.minted.set(header.sid, ses)
    const w = new V2Writer(ctx, layout, version, agent, opts, header, state, target, ses, created)
    if (target.kind === 'rows') {
      if (!opts.force && !state.db && sessionExists(layout, target.db, ses, true)) throw new ExistsError(target.db, { file: target.db, row: `session_v2:${ses}` })
    } else {
      const path = transferPath(target.out, ses, state.outFileUsed)
      if (path === target.out) state.outFileUsed = true
      w.file = await AtomicFile.create(path, { force: opts.force === true })
    }
    return w
  }

  /** Times never go backwards: OpenCode orders by `seq`, but shows times. */
  private time(ts: string | null | undefined): number {
    const t = msOf(ts)
    if (t !== null && t > this.lastTime) this.lastTime = t
    return this.lastTime
  }

  private push(type: string, t: number, fields: JsonObject): V2Message {
    const m = { id: this.minter.message(t), type, time: { created: t }, ...fields } as V2Message
    this.messages.push(m)
    return m
  }

  private closeAssistant(): void {
    const o = this.open
    this.open = null
    if (!o) return
    // A call whose result never came: the schema has no such state once the session is over.
    for (const tool of o.tools.values()) if (tool.state.status === 'running') tool.state = { status: 'error', input: tool.state.input, error: { type: 'interrupted', message: 'the tool call has no recorded result' } }
    const content = o.m.content as JsonObject[]
    if (typeof o.m.finish !== 'string') o.m.finish = finishOf(undefined, content.length > 0 && content[content.length - 1]!.type === 'tool')
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'boundary') return this.boundary(rec)
    if (rec.kind === 'native') return this.nativeRow(rec)
    if (rec.kind !== 'message') return
    const t = this.time(rec.ts)
    const results = rec.blocks.filter((b) => b.type === 'tool_result')
    if (results.length && this.open) {
      for (const r of results) {
        if (r.type !== 'tool_result') continue
        const tool = this.open.tools.get(r.tool_use_id)
        if (!tool) continue
        const text = resultText(r.content)
        const content = [{ type: 'text', text }]
        // A call OpenCode itself kept `completed` (a non-zero exit) goes back the way it was.
        const keptCompleted = this.same && isObj(r.structured) && r.structured.status === 'completed'
        tool.state = r.is_error && !keptCompleted ? { status: 'error', input: tool.state.input, error: { type: 'tool', message: text || 'error' }, content } : { status: 'completed', input: tool.state.input, content }
        tool.time.completed = t
      }
      if (results.length === rec.blocks.length) return
    }
    const context = (rec.context === true && rec.context_kind !== 'subagent') || rec.role === 'system'
    if (context) {
      // Another agent's injected context would mislead this one's model; summaries are kept.
      if (!this.same && rec.context_kind !== 'summary') return
      const text = textOf(rec.blocks)
      if (!text) return
      this.closeAssistant()
      this.push(rec.role === 'system' ? 'system' : 'synthetic', t, { text })
      return
    }
    if (rec.role === 'assistant') return this.assistant(rec, t)
    this.closeAssistant()
    const text = textOf(rec.blocks)
    const files = rec.blocks.map(attachment).filter((a): a is JsonObject => a !== null)
    if (!text && !files.length) return
    this.firstUser ??= text
    this.push('user', t, { text, files, agents: [] })
  }

  private assistant(rec: MessageRec, t: number): void {
    // A new step after tool results, or after a finished step: a new assistant message.
    if (this.open && ([...this.open.tools.values()].some((x) => x.state.status !== 'running') || typeof this.open.m.finish === 'string')) this.closeAssistant()
    if (!this.open) {
      const model = rec.model && !this.opts.model ? { ...this.model, id: rec.model } : this.model
      this.open = { m: this.push('assistant', t, { agent: this.agent, model, content: [] }), tools: new Map() }
    }
    const m = this.open.m
    const content = m.content as JsonObject[]
    for (const b of rec.blocks) {
      if (b.type === 'text') content.push({ type: 'text', text: b.text })
      else if (b.type === 'thinking') content.push({ type: 'reasoning', text: b.text })
      else if (b.type === 'tool_use') {
        const native = toNative(this.layout.harness, b, sourceHarness(this.header))
        const v2 = V1_TO_V2_TOOL(native.name, isObj(native.input) ? native.input : { input: native.input })
        const item: JsonObject = { type: 'tool', id: b.id, name: v2.name, state: { status: 'running', input: v2.input, metadata: {} }, time: { created: t } }
        content.push(item)
        this.open.tools.set(b.id, item)
      }
    }
    m.time.completed = t
    const u = rec.usage
    if (u) {
      m.tokens = { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, reasoning: u.reasoning_tokens ?? 0, cache: { read: u.cache_read_tokens ?? 0, write: u.cache_write_tokens ?? 0 } }
      if (typeof u.cost_usd === 'number') m.cost = u.cost_usd
      this.tokens.input += m.tokens.input
      this.tokens.output += m.tokens.output
      this.tokens.reasoning += m.tokens.reasoning
      this.tokens.cache.read += m.tokens.cache.read
      this.tokens.cache.write += m.tokens.cache.write
      this.cost += u.cost_usd ?? 0
    }
    if (rec.stop_reason && rec.stop_reason !== 'tool_use') m.finish = finishOf(rec.stop_reason, false)
  }

  /**
   * An OpenCode 2 row the model has no place for (`model-switched`, `agent-switched`,
   * `location-switched`, …), read with native data from this harness: written back as it was,
   * with a new id, in its place. Other harnesses' native records have no place here.
   */
  private nativeRow(rec: NativeRec): void {
    const n = rec.native
    const prefix = `${this.layout.harness}/`
    if (!this.same || !n || n.table !== 'session_message' || typeof n.raw !== 'string' || !n.format.startsWith(`${prefix}sqlite-v2@`) || !rec.native_type.startsWith(prefix)) return
    const type = rec.native_type.slice(prefix.length)
    if (!/^[a-z][a-z-]*$/.test(type) || type === 'message' || type === 'message-error' || type.startsWith('compaction-')) return
    let data: unknown
    try {
      data = JSON.parse(n.raw)
    } catch {
      return
    }
    if (!isObj(data)) return
    this.closeAssistant()
    const t = this.time(rec.ts)
    const { id: _id, type: _type, time: _time, ...fields } = data
    this.push(type, t, fields)
  }

  private async boundary(rec: BoundaryRec): Promise<void> {
    if (rec.type !== 'compaction') return
    this.closeAssistant()
    const t = this.time(rec.ts)
    this.push('compaction', t, { status: 'completed', reason: rec.trigger === 'manual' ? 'manual' : 'auto', model: this.model, summary: rec.summary ?? '', recent: '' })
  }

  private title(end?: EndRec): string {
    return end?.title ?? this.header.title ?? (this.firstUser ? this.firstUser.replace(/\s+/g, ' ').trim().slice(0, 80) : undefined) ?? 'Imported session'
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    this.closeAssistant()
    const h = this.header
    const title = this.title(end)
    const cwd = h.cwd && h.cwd.startsWith('/') ? h.cwd : '/'
    const updated = Math.max(this.lastTime, msOf(end?.updated_at ?? h.updated_at) ?? 0)
    const parent = h.parent ? this.state.minted.get(h.parent.sid) : undefined
    const version = this.same && h.source.agent_version ? h.source.agent_version : this.version
    const written: WrittenSession = { harness: this.layout.harness, id: this.ses, path: '', from: h.sid, title }
    if (this.target.kind === 'document') {
      const info: JsonObject = { id: this.ses, ...(parent ? { parentID: parent } : {}), projectID: 'global', agent: this.agent, model: this.model, cost: this.cost, tokens: this.tokens, time: { created: this.created, updated }, title, location: { directory: cwd } }
      const f = this.file!
      await f.write(`{"info":${JSON.stringify(info)},"messages":[`)
      for (let i = 0; i < this.messages.length; i++) await f.write((i ? ',' : '') + JSON.stringify(this.messages[i]))
      await f.write(']}\n')
      await chmod(f.tmp, 0o600)
      await f.commit({ force: this.opts.force === true })
      written.path = f.path
      written.note = `import with: opencode2 import ${JSON.stringify(f.path)}`
      return written
    }
    const db = this.target.db
    const session: Row = {
      id: this.ses, parent_id: parent ?? null, slug: slugOf(title), directory: cwd, title, version, agent: this.agent,
      model: JSON.stringify(this.model), cost: this.cost,
      tokens_input: this.tokens.input, tokens_output: this.tokens.output, tokens_reasoning: this.tokens.reasoning, tokens_cache_read: this.tokens.cache.read, tokens_cache_write: this.tokens.cache.write,
      time_created: this.created, time_updated: updated,
    }
    const rows: Row[] = this.messages.map((m, i) => {
      const { id, type, ...data } = m
      return { id, session_id: this.ses, type, seq: i + 1, time_created: m.time.created, time_updated: m.time.created, data: JSON.stringify(data) }
    })
    writeRows(this.state, db, this.layout.harness, this.opts, session, cwd, rows)
    written.path = db
    written.note = `resume with: cd ${JSON.stringify(cwd)} && opencode2 --session ${this.ses}`
    return written
  }

  async abort(): Promise<void> {
    // Rows are written only in finish()'s transaction; a document is a temp file until committed.
    await this.file?.abort()
  }
}

/** The project a session of `cwd` belongs to: the one whose worktree (or a directory of it) is `cwd`, else `global`. */
function projectFor(db: Database.Database, cwd: string, created: number): string {
  try {
    const byDir = db.prepare(`SELECT project_id AS id FROM project_directory WHERE directory = ? LIMIT 1`).get(cwd) as { id?: string } | undefined
    if (byDir?.id) return byDir.id
  } catch {
    // no project_directory table in this build
  }
  const byTree = db.prepare(`SELECT id FROM project WHERE worktree = ? LIMIT 1`).get(cwd) as { id?: string } | undefined
  if (byTree?.id) return byTree.id
  if (!db.prepare(`SELECT 1 FROM project WHERE id = 'global'`).get()) insertRow(db, 'project', { id: 'global', worktree: '/', time_created: created, time_updated: created, sandboxes: '[]' })
  return 'global'
}

function writeRows(state: V2State, path: string, h: string, opts: V2WriteOpts, session: Row, cwd: string, rows: Row[]): void {
  const id = String(session.id)
  const pos = { file: path, row: `session_v2:${id}` }
  let db = state.db
  if (!db) {
    try {
      db = new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS })
      db.pragma('foreign_keys = ON')
      state.db = db
    } catch (err) {
      throw new FerryError(`cannot open the database for writing: ${errorMessage(err)}`, { code: 'db-error', position: { file: path }, source: h, cause: err })
    }
  }
  try {
    db.exec('BEGIN IMMEDIATE')
  } catch (err) {
    if (isBusy(err)) throw new FerryError(`database is busy (held by another process for more than ${BUSY_TIMEOUT_MS} ms); nothing written`, { code: 'db-error', position: pos, source: h, cause: err })
    throw new FerryError(`cannot write: ${errorMessage(err)}`, { code: 'db-error', position: pos, source: h, cause: err })
  }
  try {
    if (db.prepare('SELECT 1 FROM session_v2 WHERE id = ?').get(id)) {
      if (!opts.force) throw new ExistsError(path, pos)
      db.prepare('DELETE FROM session_message WHERE session_id = ?').run(id)
      db.prepare('DELETE FROM session_v2 WHERE id = ?').run(id)
    }
    insertRow(db, 'session_v2', { ...session, project_id: projectFor(db, cwd, Number(session.time_created)) })
    for (const r of rows) insertRow(db, 'session_message', r)
    db.exec('COMMIT')
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    if (err instanceof FerryError) throw err
    throw new FerryError(`cannot write: ${errorMessage(err)}`, { code: isBusy(err) ? 'db-error' : 'write-failed', position: pos, source: h, cause: err })
  }
}

/** The document path of a `SessionTransfer` written with `--out`: the file itself, or `<dir>/<ses>.json`. */
export function transferPath(out: string, ses: string, used: boolean): string {
  if (out.endsWith('.json') && !used) return out
  return join(out.endsWith('.json') ? dirname(out) : out, `${ses}.json`)
}

/** Whether the database at `path` exists and has OpenCode 2's tables (asked read-only). */
export function isV2Database(layout: Layout, path: string | null): boolean {
  if (!path || !existsSync(path)) return false
  let h: ReadOnlyDb | null = null
  try {
    h = open(layout, path)
    return hasV2(h.db)
  } catch {
    return false
  } finally {
    h?.close()
  }
}

/** What the v2-aware sink needs of its member: the v1 document target and the OpenCode 2 version written. */
export interface SchemaTarget extends DocumentTarget {
  /** The OpenCode 2 version written into v2 rows and documents. */
  v2Version: string
}

/** `--<harness>-schema`: which of the two schemas a session is written in. */
export type SchemaChoice = 'auto' | 'v1' | 'v2'

/**
 * The sink of a member that may hold OpenCode 2 tables: into the store, rows in
 * `session_v2`/`session_message` when the database has them (or `v2` is asked
 * for), else v1's export document handed to `<bin> import`; with `--out`, a
 * `SessionTransfer` document when `v2` is asked for, else v1's export document.
 */
export function schemaSink(target: SchemaTarget): (ctx: StoreContext, opts?: DocumentWriteOpts & { schema?: SchemaChoice }) => Writable {
  const v1 = documentSink(target)
  return (ctx, opts = {}) => {
    const schema = opts.schema ?? 'auto'
    const out = typeof opts.out === 'string' && opts.out !== '' ? opts.out : null
    let v2Target: V2Target | null = null
    if (out) {
      if (schema === 'v2') v2Target = { kind: 'document', out }
    } else if (schema !== 'v1') {
      const db = target.primaryDb(ctx)
      if (isV2Database(target.layout, db)) v2Target = { kind: 'rows', db: db! }
      else if (schema === 'v2') throw new UsageError(`no OpenCode 2 tables (session_v2) in ${db ?? 'the store'}: write a SessionTransfer document with --out FILE and import it with \`opencode2 import FILE\``)
    }
    if (!v2Target) return v1(ctx, opts)
    const t = v2Target
    const state: V2State = { minted: new Map(), db: null, outFileUsed: false }
    const close = async () => {
      state.db?.close()
      state.db = null
    }
    return new SessionSink(ctx, target.layout.harness, (header) => V2Writer.open(ctx, target.layout, target.v2Version, target.agent, opts, header, state, t), { close, destroy: close })
  }
}
