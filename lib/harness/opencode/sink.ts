/**
 * Writing sessions for OpenCode: each session becomes one `opencode export`
 * document, streamed message by message into an AtomicFile. With `--out` the
 * document is the result; into the store it lands under
 * `<data>/ferry-import/<ses>.json` and is handed to `opencode import` (run
 * from the session's directory) when `opencode` is on PATH. The database is
 * never written by ferry.
 *
 * Shape rules (docs/formats/opencode.md §Writing): one assistant message per
 * model step (a step ends when tool results come back), tool call and result
 * merged into one `tool` part, ids in OpenCode's shape and strictly
 * increasing, message times never going backwards.
 *
 * A session that cannot be written throws (ExistsError when its document or,
 * into the store, the session itself in OpenCode's database already exists
 * and force is off; `invalid-input` when a message fails the import checks;
 * `import-failed`): SessionSink applies the one sink policy to it.
 */
import { chmod } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Writable } from 'node:stream'
import {
  resultText,
  sourceHarness,
  type Block,
  type BoundaryRec,
  type EndRec,
  type FerryRecord,
  type MessageRec,
  type SessionRec,
  type StopReason,
  type ToolResultBlock,
} from '../../model.js'
import { AtomicFile } from '../../io/atomic.js'
import { ExistsError, FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WriteOptions, WrittenSession } from '../types.js'
import { IdMinter, sessionId } from './ids.js'
import { messageProblems, sessionInfoProblems, type ExportMessage } from './document.js'
import { dataDir, primaryDb } from './paths.js'
import { sessionExists } from './db.js'
import { handOver } from './import.js'

type Json = Record<string, any>

/** The OpenCode version written into documents (the one ferry was verified against). */
export const TARGET_VERSION = '1.18.33'

function ms(ts: string | null | undefined): number | null {
  if (!ts) return null
  const t = Date.parse(ts)
  return Number.isNaN(t) ? null : t
}

/** The sink's options: the common ones and the keys of the harness's `writeFlags` (index.ts). */
export type OpenCodeWriteOptions = WriteOptions & { provider?: string; model?: string; import?: boolean }

/** Best guess of the provider from a model name, for sessions from other harnesses. */
export function guessProvider(model: string | undefined): string {
  const m = (model ?? '').toLowerCase()
  if (/claude|opus|sonnet|haiku/.test(m)) return 'anthropic'
  if (/^(gpt|o\d|codex|chatgpt)/.test(m)) return 'openai'
  if (m.startsWith('grok')) return 'xai'
  if (m.startsWith('gemini')) return 'google'
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
      // end_turn, stop_sequence, aborted, other: OpenCode has only "stop" for these.
      return 'stop'
  }
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

function fileUrl(b: { mime: string; data?: string; ref?: { path?: string; url?: string } }): string | null {
  if (b.data !== undefined) return `data:${b.mime};base64,${b.data}`
  if (b.ref?.url) return b.ref.url
  if (b.ref?.path) return `file://${encodeURI(b.ref.path)}`
  return null
}

/** A tool input OpenCode can store: always an object. */
function objectInput(v: unknown): Json {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Json
  return v === undefined ? {} : { input: v }
}

interface OpenMessage {
  info: Json
  parts: Json[]
  /** Tool parts by call id, waiting for results. */
  tools: Map<string, Json>
  sawResults: boolean
  stop?: StopReason
}

interface SinkState {
  /** Source sid → minted OpenCode session id, so children can name their parent. */
  minted: Map<string, string>
  /** Source sid → created ms of the minted session (children's ids derive from it). */
  created: Map<string, number>
  outFileUsed: boolean
}

class DocumentWriter implements SessionWriter {
  private readonly minter: IdMinter
  private open: OpenMessage | null = null
  private lastUser: string | null = null
  private lastTime: number
  private wrote = 0
  private readonly sourceHarness: string
  private readonly same: boolean
  private readonly cwd: string
  private readonly provider: string
  private readonly model: string
  private firstUserText: string | undefined

  private constructor(
    private readonly ctx: StoreContext,
    private readonly opts: OpenCodeWriteOptions,
    private readonly header: SessionRec,
    private readonly ses: string,
    private readonly file: AtomicFile,
    private readonly store: boolean,
    private readonly created: number,
  ) {
    this.minter = new IdMinter(`${ses}:${header.sid}`)
    this.lastTime = created
    this.sourceHarness = sourceHarness(header)
    this.same = this.sourceHarness === 'opencode'
    this.cwd = header.cwd && header.cwd.startsWith('/') ? header.cwd : '/'
    this.model = opts.model ?? header.model ?? 'unknown'
    this.provider = opts.provider ?? header.provider ?? guessProvider(this.model)
  }

  static async open(ctx: StoreContext, opts: OpenCodeWriteOptions, header: SessionRec, state: SinkState): Promise<DocumentWriter> {
    const created = ms(header.created_at) ?? Date.now()
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
      if (!opts.force && db && sessionExists(db, ses)) throw new ExistsError(db, { file: db, row: `session:${ses}` })
    }
    const file = await AtomicFile.create(path, { force: opts.force === true, ...(store ? { root: dataDir(ctx) } : {}) })
    await file.write('{"messages":[')
    const w = new DocumentWriter(ctx, opts, header, ses, file, store, created)
    w.parentSes = header.parent ? state.minted.get(header.parent.sid) : undefined
    return w
  }

  private parentSes: string | undefined
  /** A compaction boundary was written; its summary message comes next. */
  private compaction: { summary: string } | null = null
  private lastSummary: string | null = null

  private time(ts: string | null | undefined): number {
    const t = ms(ts)
    if (t !== null && t > this.lastTime) this.lastTime = t
    return this.lastTime
  }

  /** Message info kept from an OpenCode source row (tokens, cost, agent…), ids replaced. */
  private nativeInfo(rec: MessageRec): Json {
    const n = rec.native
    if (!this.same || !n?.raw || n.table !== 'message' || !n.format.startsWith('opencode/')) return {}
    try {
      const o = JSON.parse(n.raw) as Json
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

  private async startUser(rec: MessageRec | null, t: number): Promise<OpenMessage> {
    await this.flush()
    const info: Json = {
      ...(rec ? this.nativeInfo(rec) : {}),
      id: this.minter.message(t),
      sessionID: this.ses,
      role: 'user',
      time: { created: t },
    }
    info.agent ??= 'build'
    if (!info.model?.providerID || !info.model?.modelID) info.model = { providerID: this.provider, modelID: this.model }
    this.open = { info, parts: [], tools: new Map(), sawResults: false }
    this.lastUser = info.id
    return this.open
  }

  private async startAssistant(rec: MessageRec, t: number): Promise<OpenMessage> {
    if (!this.lastUser) {
      // OpenCode needs a user message to answer; a stream may start mid-conversation.
      const u = await this.startUser(null, t)
      u.parts.push({ type: 'text', text: '(conversation continued from an earlier session)', synthetic: true })
    }
    await this.flush()
    const base = this.nativeInfo(rec)
    const info: Json = {
      ...base,
      id: this.minter.message(t),
      sessionID: this.ses,
      role: 'assistant',
      time: { created: t, completed: t },
      parentID: this.lastUser,
      modelID: this.opts.model ?? (typeof base.modelID === 'string' ? base.modelID : rec.model ?? this.model),
      providerID: this.opts.provider ?? (typeof base.providerID === 'string' ? base.providerID : this.provider),
      path: { cwd: this.cwd, root: this.cwd },
    }
    info.mode ??= 'build'
    info.agent ??= 'build'
    if (typeof info.cost !== 'number') info.cost = 0
    if (!info.tokens || typeof info.tokens !== 'object') info.tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
    this.open = { info, parts: [], tools: new Map(), sawResults: false }
    return this.open
  }

  private applyUsage(m: OpenMessage, rec: MessageRec): void {
    if (rec.usage && !this.nativeInfo(rec).tokens) {
      const u = rec.usage
      m.info.tokens = { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, reasoning: u.reasoning_tokens ?? 0, cache: { read: u.cache_read_tokens ?? 0, write: u.cache_write_tokens ?? 0 } }
      if (u.total_tokens !== undefined) m.info.tokens.total = u.total_tokens
      if (typeof u.cost_usd === 'number') m.info.cost = u.cost_usd
    }
    if (rec.stop_reason) m.stop = rec.stop_reason
    const err = rec.x?.['opencode.error']
    if (this.same && err && typeof err === 'object') m.info.error = err
  }

  private toolPart(b: Extract<Block, { type: 'tool_use' }>, t: number): Json {
    const native = toNative('opencode', b, this.sourceHarness)
    const input = objectInput(native.input)
    return { type: 'tool', tool: native.name, callID: b.id, state: { status: 'pending', input, raw: JSON.stringify(input) }, time: t }
  }

  private fill(part: Json, r: ToolResultBlock, t: number): void {
    const input = part.state.input
    const start: number = part.time
    delete part.time
    const end = Math.max(start, t)
    const text = resultText(r.content)
    if (r.is_error) {
      part.state = { status: 'error', input, error: text, time: { start, end } }
      return
    }
    const structured = this.same && r.structured && typeof r.structured === 'object' ? (r.structured as Json) : {}
    let output = text
    if (this.same && part.tool === 'task' && typeof structured.metadata?.sessionId === 'string') {
      // Re-point the sub-agent link at the child's new id (the child document follows).
      const old: string = structured.metadata.sessionId
      const child = childSessionId(this.created, this.ses, old)
      structured.metadata = { ...structured.metadata, sessionId: child, parentSessionId: this.ses }
      output = output.split(old).join(child)
    }
    const state: Json = {
      status: 'completed',
      input,
      output,
      title: typeof structured.title === 'string' ? structured.title : String(part.tool),
      metadata: structured.metadata && typeof structured.metadata === 'object' ? structured.metadata : {},
      time: { start, end },
    }
    if (Array.isArray(r.content)) {
      const att = r.content.filter((c) => c.type === 'image').map((c) => ({ type: 'file', mime: c.mime, url: fileUrl(c) })).filter((a) => a.url)
      if (att.length) state.attachments = att
    }
    part.state = state
  }

  private mediaPart(b: Block): Json | null {
    if (b.type !== 'image' && b.type !== 'file') return null
    const url = fileUrl(b)
    if (!url) return null
    return { type: 'file', mime: b.mime, url, ...(b.type === 'file' && b.name ? { filename: b.name } : {}) }
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
    // mislead OpenCode's model; summaries are kept, and OpenCode's own synthetic text.
    if (context && !this.same && rec.context_kind !== 'summary') {
      if (rec.blocks.some((b) => b.type === 'tool_result')) await this.userRecord(rec, t, false)
      return
    }
    if (rec.role === 'assistant') return this.assistantRecord(rec, t)
    return this.userRecord(rec, t, context)
  }

  /**
   * A compaction as OpenCode records one: a user message holding a
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

  private async assistantRecord(rec: MessageRec, t: number): Promise<void> {
    let m = this.open
    if (!m || m.info.role !== 'assistant' || m.sawResults) m = await this.startAssistant(rec, t)
    m.info.time.completed = Math.max(m.info.time.completed, t)
    for (const b of rec.blocks) {
      switch (b.type) {
        case 'text':
          m.parts.push({ type: 'text', text: b.text, ...(rec.context ? { synthetic: true } : {}) })
          break
        case 'thinking':
          // Only the text: foreign signatures must not reach OpenCode's provider metadata.
          if (b.text) m.parts.push({ type: 'reasoning', text: b.text, time: { start: t, end: t } })
          break
        case 'tool_use': {
          const p = this.toolPart(b, t)
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
    this.applyUsage(m, rec)
  }

  private async userRecord(rec: MessageRec, t: number, context: boolean): Promise<void> {
    const results = rec.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result')
    for (const r of results) {
      const part = this.open?.info.role === 'assistant' ? this.open.tools.get(r.tool_use_id) : undefined
      if (!part) {
        this.ctx.diagnostics.warn('orphan-result', `tool result ${r.tool_use_id} has no call in the open step; dropped`, { row: rec.id }, 'opencode')
        continue
      }
      this.fill(part, r, t)
      this.open!.tools.delete(r.tool_use_id)
      this.open!.sawResults = true
    }
    if (context && !this.same && rec.context_kind !== 'summary') return
    const parts: Json[] = []
    for (const b of rec.blocks) {
      if (b.type === 'text') {
        parts.push({ type: 'text', text: b.text, ...(context ? { synthetic: true } : {}) })
        if (!context && this.firstUserText === undefined) this.firstUserText = b.text
      } else {
        const f = this.mediaPart(b)
        if (f) parts.push(f)
      }
    }
    if (!parts.length) return
    const m = await this.startUser(rec, t)
    m.parts.push(...parts)
  }

  /** Writes the open message: ids in part order, finish from how the step ended, checked first. */
  private async flush(): Promise<void> {
    const m = this.open
    this.open = null
    if (!m || !m.parts.length) return
    const created: number = m.info.time.created
    for (const p of m.parts) {
      if (p.type === 'tool' && p.state.status === 'pending') delete p.time
      p.id = this.minter.part(created)
      p.sessionID = this.ses
      p.messageID = m.info.id
      for (const a of (p.type === 'tool' && Array.isArray(p.state.attachments) ? p.state.attachments : []) as Json[]) {
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
    if (problems.length) throw new FerryError(`invalid OpenCode message: ${problems.slice(0, 3).join('; ')}`, { code: 'invalid-input', position: { file: this.file.path }, source: 'opencode' })
    await this.file.write((this.wrote++ ? ',' : '') + JSON.stringify(msg))
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    if (this.compaction) await this.summaryMessage(null, this.compaction.summary, this.lastTime)
    this.compaction = null
    await this.flush()
    const h = this.header
    const title = end?.title ?? h.title ?? (this.firstUserText ? this.firstUserText.replace(/\s+/g, ' ').trim().slice(0, 80) : undefined) ?? 'Imported session'
    const info: Json = {
      id: this.ses,
      slug: slugOf(title),
      directory: this.cwd,
      title,
      version: this.same && h.source.agent_version ? h.source.agent_version : TARGET_VERSION,
      time: { created: this.created, updated: Math.max(this.lastTime, ms(end?.updated_at ?? h.updated_at) ?? 0) },
    }
    if (this.parentSes) info.parentID = this.parentSes
    const problems = sessionInfoProblems(info)
    if (problems.length) throw new FerryError(`invalid OpenCode session: ${problems.join('; ')}`, { code: 'invalid-input', position: { file: this.file.path }, source: 'opencode' })
    await this.file.write(`],"info":${JSON.stringify(info)}}\n`)
    // The document holds the whole transcript: private to the user, like OpenCode's own files.
    await chmod(this.file.tmp, 0o600)
    await this.file.commit({ force: this.opts.force === true })
    const written: WrittenSession = { harness: 'opencode', id: this.ses, path: this.file.path, from: h.sid, title }
    if (!this.store) return written
    return handOver(this.ctx, written, { ses: this.ses, cwd: this.cwd, import: this.opts.import !== false, force: this.opts.force === true })
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

function childSessionId(parentCreated: number, parentSes: string, nativeChildId: string): string {
  return sessionId(parentCreated, `${parentSes}>${nativeChildId}`)
}

export function openCodeSink(ctx: StoreContext, opts: OpenCodeWriteOptions = {}): Writable {
  const state: SinkState = { minted: new Map(), created: new Map(), outFileUsed: false }
  return new SessionSink(ctx, 'opencode', (header) => DocumentWriter.open(ctx, opts, header, state))
}

