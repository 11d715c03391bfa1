/**
 * Writing sessions as `opencode export` documents, for the members that take
 * them back through their client's `import` (OpenCode; Kilo, whose `kilo
 * import` is OpenCode's): each session becomes one document, streamed
 * message by message into an AtomicFile. With `--out` the document is the
 * result; into the store it lands under `<data>/ferry-import/<ses>.json` and
 * is handed to `<bin> import` (run from the session's directory) when the
 * client is on PATH. The database is never written by ferry.
 *
 * Shape rules (docs/formats/opencode.md §Writing): one assistant message per
 * model step (a step ends when tool results come back), tool call and result
 * merged into one `tool` part, ids in OpenCode's shape and strictly
 * increasing, message times never going backwards.
 *
 * A session that cannot be written throws (ExistsError when its document or,
 * into the store, the session itself in the client's database already exists
 * and force is off; `invalid-input` when a message fails the import checks;
 * `import-failed`): SessionSink applies the one sink policy to it.
 */
import { chmod } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Writable } from 'node:stream'
import { type Block, type BoundaryRec, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type SessionRec } from '../../model.js'
import { AtomicFile } from '../../io/atomic.js'
import { ExistsError, FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import { sessionExists } from './opencode-rows.js'
import { targetModel, type DocumentWriteOpts as WriteOpts } from './opencode-flags.js'
import { finishOf, msOf, noTokens, StepWriter, type StepMessage, type Writing } from './opencode-steps.js'
import { IdMinter, sessionId } from './opencode-ids.js'
import { messageProblems, sessionInfoProblems, type ExportMessage } from './opencode-document.js'
import { handOver, type Client } from './opencode-import.js'

/** A member written as export documents: its client, and what written sessions name by default. */
export interface DocumentTarget extends Client {
  /** The agent (and mode) written messages name when the source names none (`build`; Kilo's `code`). */
  agent: string
  /** The client version written into documents (the one ferry was verified against). */
  version: string
}

/** What a compaction without a readable summary leaves in the target: words, never nothing. */
const NO_SUMMARY = '[ferry] The conversation was compacted here; the source kept no readable summary. The turns before this point are kept above.'

function textOf(blocks: Block[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n')
}

export function slugOf(title: string | undefined): string {
  const words = (title ?? '').toLowerCase().match(/[a-z0-9]+/g) ?? []
  return words.slice(0, 4).join('-') || 'ferry-import'
}

interface SinkState {
  /** Source sid → minted session id, so children can name their parent. */
  minted: Map<string, string>
  /** Source sid → created ms of the minted session (children's ids derive from it). */
  created: Map<string, number>
  outFileUsed: boolean
}

class DocumentWriter extends StepWriter implements SessionWriter {
  private wrote = 0
  private readonly cwd: string
  private parentSes: string | undefined
  /** A compaction boundary was written; its summary message comes next. */
  private compaction: { summary: string } | null = null
  private lastSummary: string | null = null

  private constructor(
    w: Writing,
    private readonly target: DocumentTarget,
    private readonly opts: WriteOpts,
    private readonly ses: string,
    private readonly file: AtomicFile,
    private readonly store: boolean,
  ) {
    super(w)
    const cwd = w.header.cwd
    this.cwd = cwd && cwd.startsWith('/') ? cwd : '/'
  }

  static async open(ctx: StoreContext, target: DocumentTarget, opts: WriteOpts, header: SessionRec, state: SinkState): Promise<DocumentWriter> {
    const { layout, dataDir, primaryDb } = target
    const created = msOf(header.created_at) ?? Date.now()
    const parentSes = header.parent ? state.minted.get(header.parent.sid) : undefined
    const parentCreated = header.parent ? state.created.get(header.parent.sid) : undefined
    // A child's id is predictable from its parent's, so the parent's `task` part can already name it.
    const ses = parentSes && parentCreated !== undefined ? childSessionId(parentCreated, parentSes, header.native_id) : sessionId(created, header.sid)
    // Registered before any check can throw: when this session is not written (it exists), its
    // sub-agent sessions still name the id it has, and get the ids they would have had.
    state.minted.set(header.sid, ses)
    state.created.set(header.sid, created)
    let path: string
    let store = false
    if (typeof opts.out === 'string' && opts.out !== '') {
      if (opts.out.endsWith('.json') && !state.outFileUsed) {
        path = opts.out
        state.outFileUsed = true
      } else path = join(opts.out.endsWith('.json') ? dirname(opts.out) : opts.out, `${ses}.json`)
    } else {
      store = true
      path = join(dataDir(ctx), 'ferry-import', `${ses}.json`)
      const db = primaryDb(ctx)
      if (!opts.force && db && sessionExists(layout, db, ses, true)) throw new ExistsError(db, { file: db, row: `session:${ses}` })
    }
    const file = await AtomicFile.create(path, { force: opts.force === true, ...(store ? { root: dataDir(ctx) } : {}) })
    await file.write('{"messages":[')
    const w: Writing = { ctx, harness: layout.harness, agent: target.agent, header, minter: new IdMinter(`${ses}:${header.sid}`), created, ...targetModel(opts, header) }
    const writer = new DocumentWriter(w, target, opts, ses, file, store)
    writer.parentSes = header.parent ? state.minted.get(header.parent.sid) : undefined
    return writer
  }

  /** Message info kept from a source row of this harness (tokens, cost, agent…), ids replaced. */
  private nativeInfo(rec: MessageRec): JsonObject {
    const n = rec.native
    if (!this.same || !n?.raw || n.table !== 'message' || !n.format.startsWith(`${this.w.harness}/`)) return {}
    try {
      const o = JSON.parse(n.raw) as JsonObject
      delete o.id
      delete o.sessionID
      delete o.parentID
      delete o.time
      delete o.path
      return o
    } catch {
      return {}
    }
  }

  protected userInfo(id: string, rec: MessageRec | null, t: number): JsonObject {
    const info: JsonObject = { ...(rec ? this.nativeInfo(rec) : {}), id, sessionID: this.ses, role: 'user', time: { created: t } }
    info.agent ??= this.agent
    if (!info.model?.providerID || !info.model?.modelID) info.model = { providerID: this.provider, modelID: this.model }
    return info
  }

  protected assistantInfo(id: string, rec: MessageRec, t: number): JsonObject {
    const base = this.nativeInfo(rec)
    const info: JsonObject = {
      ...base,
      id,
      sessionID: this.ses,
      role: 'assistant',
      time: { created: t, completed: t },
      parentID: this.lastUser,
      modelID: this.opts.model ?? (typeof base.modelID === 'string' ? base.modelID : rec.model ?? this.model),
      providerID: this.opts.provider ?? (typeof base.providerID === 'string' ? base.providerID : this.provider),
      path: { cwd: this.cwd, root: this.cwd },
    }
    info.mode ??= this.agent
    info.agent ??= this.agent
    if (typeof info.cost !== 'number') info.cost = 0
    if (!info.tokens || typeof info.tokens !== 'object') info.tokens = noTokens()
    return info
  }

  protected assistantText(text: string, _t: number, rec: MessageRec): JsonObject {
    return { type: 'text', text, ...(rec.context ? { synthetic: true } : {}) }
  }

  protected pendingTool(name: string, callId: string, input: JsonObject, t: number): JsonObject {
    return { type: 'tool', tool: name, callID: callId, state: { status: 'pending', input, raw: JSON.stringify(input) }, _t: t }
  }

  protected errorState(input: unknown, text: string, _structured: JsonObject, time: { start: number; end: number }): JsonObject {
    return { status: 'error', input, error: text, time }
  }

  protected override keepsTokens(rec: MessageRec): boolean {
    return !!this.nativeInfo(rec).tokens
  }

  protected override applyUsage(m: StepMessage, rec: MessageRec): void {
    super.applyUsage(m, rec)
    const err = rec.x?.[`${this.w.harness}.error`]
    if (this.same && err && typeof err === 'object') m.info.error = err
  }

  protected override output(part: JsonObject, text: string, structured: JsonObject): string {
    if (!this.same || part.tool !== 'task' || typeof structured.metadata?.sessionId !== 'string') return text
    // Re-point the sub-agent link at the child's new id (the child document follows).
    const old: string = structured.metadata.sessionId
    const child = childSessionId(this.w.created, this.ses, old)
    structured.metadata = { ...structured.metadata, sessionId: child, parentSessionId: this.ses }
    return text.split(old).join(child)
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'boundary') return this.boundary(rec)
    if (rec.kind !== 'message') return // native rows have no place in an export document
    const t = this.time(rec.ts)
    if (this.compaction) {
      // The summary of a compaction: the summary message right after the boundary, else the boundary's own.
      const c = this.compaction
      this.compaction = null
      const isSummaryMsg = rec.context === true && rec.context_kind === 'summary'
      if (isSummaryMsg && (c.summary === NO_SUMMARY || textOf(rec.blocks).includes(c.summary.trim()))) return this.summaryMessage(rec, textOf(rec.blocks) || c.summary, t)
      await this.summaryMessage(null, c.summary, t)
      this.lastSummary = c.summary.trim()
    }
    // The summary text again in the history the compaction kept: written already.
    if (this.lastSummary && rec.context === true && rec.context_kind === 'summary' && textOf(rec.blocks).includes(this.lastSummary)) return
    if (!(rec.context === true && rec.context_kind === 'summary')) this.lastSummary = null
    const context = (rec.context === true && rec.context_kind !== 'subagent') || rec.role === 'system'
    // Context another harness injected (its environment, instructions, reminders) would
    // mislead this client's model; summaries are kept, and its own synthetic text.
    if (context && !this.same && rec.context_kind !== 'summary') {
      if (rec.blocks.some((b) => b.type === 'tool_result')) await this.userRecord(rec, t, false)
      return
    }
    if (rec.role === 'assistant') return this.assistantRecord(rec, t)
    return this.userRecord(rec, t, context)
  }

  /**
   * A compaction as OpenCode (and Kilo) records one: a user message holding a
   * `compaction` part, then an assistant message marked `summary` (agent and
   * mode `compaction`) whose text is the summary. OpenCode sends the model
   * the history from the last compaction on; the messages before it stay in
   * the session, as they do in OpenCode's own.
   */
  private async boundary(rec: BoundaryRec): Promise<void> {
    if (rec.type !== 'compaction') return
    if (this.compaction) await this.summaryMessage(null, this.compaction.summary, this.lastTime)
    const t = this.time(rec.ts)
    const u = await this.startUser(null, t)
    u.parts.push({ type: 'compaction', auto: rec.trigger !== 'manual', overflow: false })
    await this.flush()
    this.compaction = { summary: rec.summary?.trim() ? rec.summary : NO_SUMMARY }
  }

  private async summaryMessage(rec: MessageRec | null, summary: string, t: number): Promise<void> {
    const m = await this.startAssistant(rec ?? { kind: 'message', sid: this.header.sid, id: `${this.header.sid}:summary`, role: 'assistant', ts: null, blocks: [] }, t)
    Object.assign(m.info, { summary: true, mode: 'compaction', agent: 'compaction' })
    m.parts.push({ type: 'text', text: summary })
    m.stop = 'end_turn'
    await this.flush()
  }

  /** Writes the open message: ids in part order, finish from how the step ended, checked first. */
  protected async flush(): Promise<void> {
    const m = this.open
    this.open = null
    if (!m || !m.parts.length) return
    const created: number = m.info.time.created
    for (const p of m.parts) {
      if (p.type === 'tool' && p.state.status === 'pending') delete p._t
      p.id = this.minter.part(created)
      p.sessionID = this.ses
      p.messageID = m.info.id
      for (const a of (p.type === 'tool' && Array.isArray(p.state.attachments) ? p.state.attachments : []) as JsonObject[]) {
        a.id = this.minter.part(created)
        a.sessionID = this.ses
        a.messageID = m.info.id
      }
    }
    if (m.info.role === 'assistant') {
      const last = m.parts[m.parts.length - 1]!
      // OpenCode leaves `finish` off a step that failed or was aborted; keep it that way for its own sessions.
      const failed = this.same && m.info.error && typeof m.info.finish !== 'string'
      if (!failed && (typeof m.info.finish !== 'string' || !this.same)) m.info.finish = finishOf(m.stop, last.type === 'tool')
    }
    const msg: ExportMessage = { info: m.info, parts: m.parts }
    const problems = messageProblems(msg, this.ses, new Set(this.lastUser ? [this.lastUser] : []))
    if (problems.length) throw new FerryError(`invalid ${this.target.name} message: ${problems.slice(0, 3).join('; ')}`, { code: 'invalid-input', position: { file: this.file.path }, source: this.w.harness })
    await this.file.write((this.wrote++ ? ',' : '') + JSON.stringify(msg))
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    if (this.compaction) await this.summaryMessage(null, this.compaction.summary, this.lastTime)
    this.compaction = null
    await this.flush()
    const h = this.header
    const title = end?.title ?? h.title ?? (this.firstUserText ? this.firstUserText.replace(/\s+/g, ' ').trim().slice(0, 80) : undefined) ?? 'Imported session'
    const info: JsonObject = {
      id: this.ses,
      slug: slugOf(title),
      directory: this.cwd,
      title,
      version: this.same && h.source.agent_version ? h.source.agent_version : this.target.version,
      time: { created: this.w.created, updated: Math.max(this.lastTime, msOf(end?.updated_at ?? h.updated_at) ?? 0) },
    }
    if (this.parentSes) info.parentID = this.parentSes
    const problems = sessionInfoProblems(info)
    if (problems.length) throw new FerryError(`invalid ${this.target.name} session: ${problems.join('; ')}`, { code: 'invalid-input', position: { file: this.file.path }, source: this.w.harness })
    await this.file.write(`],"info":${JSON.stringify(info)}}\n`)
    // The document holds the whole transcript: private to the user, like the client's own files.
    await chmod(this.file.tmp, 0o600)
    await this.file.commit({ force: this.opts.force === true })
    const written: WrittenSession = { harness: this.w.harness, id: this.ses, path: this.file.path, from: h.sid, title }
    if (!this.store) return written
    return handOver(this.ctx, this.target, written, { ses: this.ses, cwd: this.cwd, import: this.opts.import !== false, force: this.opts.force === true })
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

function childSessionId(parentCreated: number, parentSes: string, nativeChildId: string): string {
  return sessionId(parentCreated, `${parentSes}>${nativeChildId}`)
}

/** The sink of a member written as export documents. */
export function documentSink(target: DocumentTarget): (ctx: StoreContext, opts?: WriteOpts) => Writable {
  return (ctx, opts = {}) => {
    const state: SinkState = { minted: new Map(), created: new Map(), outFileUsed: false }
    return new SessionSink(ctx, target.layout.harness, (header) => DocumentWriter.open(ctx, target, opts, header, state))
  }
}

