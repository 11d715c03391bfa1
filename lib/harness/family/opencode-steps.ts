/**
 * Records written as OpenCode messages: one assistant message per model step
 * (a step ends when tool results come back), a tool call and its result
 * merged into one `tool` part, message times never going backwards. The
 * `StepWriter` builds the messages; what a message becomes (an export
 * document's entry, rows) and the shapes a format gives its parts and infos
 * are its subclass's.
 */
import { failedResult, isObj, resultText, sourceHarness, type Block, type JsonObject, type MessageRec, type SessionRec, type StopReason, type ToolResultBlock, type Usage, typedCommand } from '../../model.js'
import type { StoreContext } from '../../context.js'
import { toNative } from '../../vocabulary/index.js'

/** Epoch milliseconds of an ISO time; null when there is none. */
export function msOf(ts: string | null | undefined): number | null {
  if (!ts) return null
  const t = Date.parse(ts)
  return Number.isNaN(t) ? null : t
}

/** A step's `finish` from how it ended. */
export function finishOf(stop: StopReason | undefined, endsInTool: boolean): string {
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
      // end_turn, stop_sequence, aborted, other: the schema has only "stop" for these.
      return 'stop'
  }
}

/** The `tokens` of a message before any usage is known. */
export function noTokens(): JsonObject {
  return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
}

/** A block's media as a URL: inline data as a `data:` URL, else its reference. */
function fileUrl(b: { mime: string; data?: string; ref?: { path?: string; url?: string } }): string | null {
  if (b.data !== undefined) return `data:${b.mime};base64,${b.data}`
  if (b.ref?.url) return b.ref.url
  if (b.ref?.path) return `file://${encodeURI(b.ref.path)}`
  return null
}

/** A tool input the schema can store: always an object. */
function objectInput(v: unknown): JsonObject {
  if (isObj(v)) return v
  return v === undefined ? {} : { input: v }
}

/** An open message: its info and parts, the tool parts still waiting for results. */
export interface StepMessage {
  id: string
  info: JsonObject
  parts: JsonObject[]
  /** Tool parts by call id, waiting for results. */
  tools: Map<string, JsonObject>
  sawResults: boolean
  stop?: StopReason
  created: number
}

/** Mints a session's message and part ids, in write order. */
export interface Minter {
  message(ms: number): string
  part(ms: number): string
}

/** What a writer of one session is given. */
export interface Writing {
  ctx: StoreContext
  /** The target harness id: tool vocabulary, report source, what counts as the same harness. */
  harness: string
  /** The agent (and mode) written messages name (`build`; Kilo's `code`). */
  agent: string
  header: SessionRec
  minter: Minter
  /** Created time of the written session (ms). */
  created: number
  model: string
  provider: string
}

const CONTINUED = '(conversation continued from an earlier session)'

export abstract class StepWriter {
  protected open: StepMessage | null = null
  protected lastUser: string | null = null
  protected lastTime: number
  protected firstUserText: string | undefined
  protected readonly ctx: StoreContext
  protected readonly header: SessionRec
  protected readonly minter: Minter
  protected readonly agent: string
  protected readonly sourceHarness: string
  /** The source is this harness: its own fields (metadata, errors, synthetic text) are kept. */
  protected readonly same: boolean
  protected readonly model: string
  protected readonly provider: string
  /** `filename` before `url` in a written file part. */
  protected readonly filenameFirst: boolean = false

  constructor(protected readonly w: Writing) {
    this.ctx = w.ctx
    this.header = w.header
    this.minter = w.minter
    this.agent = w.agent
    this.lastTime = w.created
    this.sourceHarness = sourceHarness(w.header)
    this.same = this.sourceHarness === w.harness
    this.model = w.model
    this.provider = w.provider
  }

  /** Writes the open message, if any. */
  protected abstract flush(): void | Promise<void>
  protected abstract userInfo(id: string, rec: MessageRec | null, t: number, summary: boolean): JsonObject
  protected abstract assistantInfo(id: string, rec: MessageRec, t: number): JsonObject
  protected abstract assistantText(text: string, t: number, rec: MessageRec): JsonObject
  /** A tool part waiting for its result; `_t` holds the call's time until then. */
  protected abstract pendingTool(name: string, callId: string, input: JsonObject, t: number): JsonObject
  protected abstract errorState(input: unknown, text: string, structured: JsonObject, time: { start: number; end: number }): JsonObject
  /** The parts an assistant message opens with. */
  protected stepParts(): JsonObject[] {
    return []
  }
  /** The record's own tokens are kept (a same-harness source's), so its usage is not written over them. */
  protected keepsTokens(_rec: MessageRec): boolean {
    return false
  }
  /** Calls in user messages (a person's slash commands): their results are no tool results here. */
  private readonly userCalls = new Set<string>()
  /** A call whose result is no tool result in the target (a person's command): true takes it. */
  protected ownCall(id: string): boolean {
    return this.userCalls.delete(id)
  }
  /** A call in a user message (a person's command, Claude Code's `/review …`) as a part: the text the person typed. */
  protected userCall(b: Extract<Block, { type: 'tool_use' }>): JsonObject | null {
    this.userCalls.add(b.id)
    return { type: 'text', text: typedCommand(b) }
  }
  protected synthetic(context: boolean, _rec: MessageRec): boolean {
    return context
  }
  /** Whether a user's text may name the session when nothing else does. */
  protected titles(_text: string): boolean {
    return true
  }
  /** The output a completed tool part keeps. */
  protected output(_part: JsonObject, text: string, _structured: JsonObject): string {
    return text
  }

  protected time(ts: string | null | undefined): number {
    const t = msOf(ts)
    if (t !== null && t > this.lastTime) this.lastTime = t
    return this.lastTime
  }

  protected mediaPart(b: Block): JsonObject | null {
    if (b.type !== 'image' && b.type !== 'file') return null
    const url = fileUrl(b)
    if (!url) return null
    // OpenCode sends a stored file part's URL to the provider SDK, which refuses `file:` (the resume fails
    // whole: "URL scheme must be http, https, or data"); only text files and folders are read by OpenCode itself.
    if (url.startsWith('file://') && !/^text\/|^application\/x-directory$/.test(b.mime)) {
      return { type: 'text', text: `[${b.type}: ${b.ref?.path} (${b.mime}); a local file the source kept by its path, not carried into this session by ferry]` }
    }
    const name = b.type === 'file' && b.name ? { filename: b.name } : {}
    return this.filenameFirst ? { type: 'file', mime: b.mime, ...name, url } : { type: 'file', mime: b.mime, url, ...name }
  }

  protected async startUser(rec: MessageRec | null, t: number, summary = false): Promise<StepMessage> {
    await this.flush()
    const id = this.minter.message(t)
    this.open = { id, info: this.userInfo(id, rec, t, summary), parts: [], tools: new Map(), sawResults: false, created: t }
    this.lastUser = id
    return this.open
  }

  protected async startAssistant(rec: MessageRec, t: number): Promise<StepMessage> {
    if (!this.lastUser) {
      // The target needs a user message to answer; a stream may start mid-conversation.
      const u = await this.startUser(null, t)
      u.parts.push({ type: 'text', text: CONTINUED, synthetic: true })
    }
    await this.flush()
    const id = this.minter.message(t)
    this.open = { id, info: this.assistantInfo(id, rec, t), parts: this.stepParts(), tools: new Map(), sawResults: false, created: t }
    return this.open
  }

  protected async assistantRecord(rec: MessageRec, t: number): Promise<void> {
    let m = this.open
    if (!m || m.info.role !== 'assistant' || m.sawResults) m = await this.startAssistant(rec, t)
    m.info.time.completed = Math.max(m.info.time.completed, t)
    for (const b of rec.blocks) {
      switch (b.type) {
        case 'text':
          m.parts.push(this.assistantText(b.text, t, rec))
          break
        case 'thinking':
          // Only the text: a foreign signature must not reach the target's provider metadata.
          if (b.text) m.parts.push({ type: 'reasoning', text: b.text, time: { start: t, end: t } })
          break
        case 'tool_use': {
          const native = toNative(this.w.harness, b, this.sourceHarness)
          const p = this.pendingTool(native.name, b.id, objectInput(native.input), t)
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

  protected applyUsage(m: StepMessage, rec: MessageRec): void {
    if (rec.usage && !this.keepsTokens(rec)) setTokens(m.info, rec.usage)
    if (rec.stop_reason) m.stop = rec.stop_reason
  }

  /** A tool part's state once its result came back. */
  private fill(part: JsonObject, r: ToolResultBlock, t: number): void {
    const input = part.state.input
    const start: number = part._t
    delete part._t
    const end = Math.max(start, t)
    const text = resultText(r.content)
    const structured = this.same && r.structured && typeof r.structured === 'object' ? (r.structured as JsonObject) : {}
    // A call OpenCode itself kept `completed` (a non-zero exit) goes back the way it was.
    if (failedResult(r) && !(this.same && structured.status === 'completed')) {
      part.state = this.errorState(input, text, structured, { start, end })
      return
    }
    const state: JsonObject = {
      status: 'completed',
      input,
      output: this.output(part, text, structured),
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

  /** Fills the open step's tool parts with the record's results; a result with no call there is dropped. */
  private takeResults(rec: MessageRec, t: number): void {
    for (const b of rec.blocks) {
      if (b.type !== 'tool_result' || this.ownCall(b.tool_use_id)) continue
      const part = this.open?.info.role === 'assistant' ? this.open.tools.get(b.tool_use_id) : undefined
      if (!part) {
        this.ctx.diagnostics.warn('orphan-result', `tool result ${b.tool_use_id} has no call in the open step; dropped`, { row: rec.id }, this.w.harness)
        continue
      }
      this.fill(part, b, t)
      this.open!.tools.delete(b.tool_use_id)
      this.open!.sawResults = true
    }
  }

  protected async userRecord(rec: MessageRec, t: number, context: boolean): Promise<void> {
    this.takeResults(rec, t)
    const parts: JsonObject[] = []
    for (const b of rec.blocks) {
      if (b.type === 'text') {
        parts.push({ type: 'text', text: b.text, ...(this.synthetic(context, rec) ? { synthetic: true } : {}) })
        if (!context && this.firstUserText === undefined && this.titles(b.text)) this.firstUserText = b.text
      } else if (b.type === 'tool_use') {
        const p = this.userCall(b)
        if (p) parts.push(p)
      } else {
        const f = this.mediaPart(b)
        if (f) parts.push(f)
      }
    }
    if (!parts.length) return
    const m = await this.startUser(rec, t, rec.context_kind === 'summary')
    m.parts.push(...parts)
  }
}

/** A record's usage as a message's `tokens` and `cost`. */
function setTokens(info: JsonObject, u: Usage): void {
  info.tokens = { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, reasoning: u.reasoning_tokens ?? 0, cache: { read: u.cache_read_tokens ?? 0, write: u.cache_write_tokens ?? 0 } }
  if (u.total_tokens !== undefined) info.tokens.total = u.total_tokens
  if (typeof u.cost_usd === 'number') info.cost = u.cost_usd
}
