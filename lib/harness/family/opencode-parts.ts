/**
 * OpenCode's part model read into records: a message's parts (`text`,
 * `reasoning`, `file`, `tool`, `compaction`, and the rest kept native) become
 * the blocks of one or more message records. `PartsBuilder` is what every
 * reader of the schema shares; `OpenCodeMessage` is OpenCode's reading of it
 * (Kilo's too), and a fork that reads parts differently (ZCode) extends
 * `PartsBuilder` with its own hooks.
 */
import {
  isObj,
  recordId,
  type Block,
  type BoundaryRec,
  type FerryRecord,
  type JsonObject,
  type MessageRec,
  type NativePass,
  type NativeRec,
  type ResultPart,
  type StopReason,
  type ThinkingBlock,
  type ToolResultBlock,
  type Usage,
} from '../../model.js'
import { iso } from './opencode-rows.js'

/** A message's `finish` → common stop reason (the native spelling is kept beside it). */
export function stopReason(finish: string): StopReason {
  switch (finish) {
    case 'stop':
    case 'end_turn':
      return 'end_turn'
    case 'tool-calls':
    case 'tool_calls':
    case 'tool_use':
      return 'tool_use'
    case 'length':
    case 'max_tokens':
      return 'max_tokens'
    case 'content-filter':
      return 'refusal'
    case 'error':
      return 'error'
    default:
      return 'other'
  }
}

/** `data:<mime>;base64,<payload>` → mime + payload; null for other URLs. */
function dataUrl(url: string): { mime: string; data: string } | null {
  const m = /^data:([^;,]+)?(;base64)?,/.exec(url)
  if (!m || !m[2]) return null
  return { mime: m[1] ?? 'application/octet-stream', data: url.slice(m[0].length) }
}

/** A malformed escape (`%zz`) keeps the path as written rather than failing the whole read. */
function decodePath(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Resolves a URL a format keeps elsewhere (ZCode's artifacts) to its bytes; null keeps the reference. */
export type Inliner = (url: string, mime: string, where: string) => { mime: string; data: string } | null

/** A `file` part as an image or file block: `data:` URLs inline, `inline` for URLs it knows, other URLs stay references. */
export function fileBlock(p: JsonObject, inline?: Inliner, where = ''): Block {
  const mime = typeof p.mime === 'string' ? p.mime : 'application/octet-stream'
  const url = typeof p.url === 'string' ? p.url : ''
  const data = dataUrl(url) ?? (inline ? inline(url, mime, where) : null)
  const ref = data ? undefined : url.startsWith('file://') ? { path: decodePath(url.slice(7)) } : url ? { url } : undefined
  if (mime.startsWith('image/')) return { type: 'image', mime: data?.mime ?? mime, ...(data ? { data: data.data } : {}), ...(ref ? { ref } : {}) }
  return { type: 'file', mime, ...(typeof p.filename === 'string' ? { name: p.filename } : {}), ...(data ? { data: data.data } : {}), ...(ref ? { ref } : {}) }
}

/** How a format's tool states read as results. */
export interface ResultReading {
  /** The text of a call that never finished (ZCode's resume shows the model one); absent: such a call has no result. */
  unfinished?: string
  /** OpenCode's mark of an output cut short (`Full output saved to: <path>`, `metadata.outputPath`) → `truncated`. */
  savedOutput?: boolean
  inline?: Inliner
}

const SAVED = /Full output saved to: (\S+)/

/** A tool part's state as the result block the model was shown (null: no result yet). */
export function toolResult(callId: string, state: JsonObject, how: ResultReading, where = ''): ToolResultBlock | null {
  const status = state.status
  if (status !== 'completed' && status !== 'error') {
    if (how.unfinished === undefined) return null
    return { type: 'tool_result', tool_use_id: callId, content: how.unfinished, is_error: true, structured: { status: String(status ?? 'pending') } }
  }
  const meta = isObj(state.metadata) ? state.metadata : undefined
  const isError = status === 'error'
  // An error's text is the model content when there is one (ZCode's hydrator).
  const text = isError ? (typeof meta?.modelContent === 'string' ? meta.modelContent : String(state.error ?? '')) : typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? '')
  const images = Array.isArray(state.attachments) ? state.attachments.map((a: JsonObject) => fileBlock(a, how.inline, where)).filter((b: Block) => b.type === 'image') : []
  const content: ToolResultBlock['content'] = images.length ? [{ type: 'text', text }, ...(images as ResultPart[])] : text
  // A command that exited non-zero is a failed call although OpenCode keeps it `completed` (failedResult).
  const exitFailed = !isError && typeof meta?.exit === 'number' && meta.exit !== 0
  const r: ToolResultBlock = { type: 'tool_result', tool_use_id: callId, content, is_error: isError || exitFailed }
  if (typeof meta?.exit === 'number') r.exit_code = meta.exit
  const structured: JsonObject = {}
  if (exitFailed) structured.status = 'completed'
  if (state.title !== undefined) structured.title = state.title
  if (meta !== undefined) structured.metadata = meta
  if (isError && typeof meta?.modelContent === 'string') structured.error = state.error
  if (Object.keys(structured).length) r.structured = structured
  const saved = how.savedOutput ? (typeof meta?.outputPath === 'string' && meta.outputPath) || SAVED.exec(text)?.[1] : undefined
  if (saved && (meta?.truncated === true || SAVED.test(text))) r.truncated = { ref: { path: saved } }
  return r
}

/** A message's `tokens` and `cost`: for the whole message (OpenCode) or its one step (ZCode). */
export function usageOf(data: JsonObject, scope: Usage['scope']): Usage | undefined {
  const t = data.tokens
  if (!t || typeof t !== 'object') return undefined
  const u: Usage = { scope }
  if (typeof t.input === 'number') u.input_tokens = t.input
  if (typeof t.output === 'number') u.output_tokens = t.output
  if (typeof t.reasoning === 'number') u.reasoning_tokens = t.reasoning
  if (typeof t.cache?.read === 'number') u.cache_read_tokens = t.cache.read
  if (typeof t.cache?.write === 'number') u.cache_write_tokens = t.cache.write
  if (typeof t.total === 'number') u.total_tokens = t.total
  if (typeof data.cost === 'number') u.cost_usd = data.cost
  return u
}

/** A `reasoning` part with the provider's signature or encrypted content from its metadata. */
export function thinking(p: JsonObject): ThinkingBlock {
  const b: ThinkingBlock = { type: 'thinking', text: p.text }
  const m = isObj(p.metadata) ? p.metadata : {}
  if (typeof m.anthropic?.signature === 'string') {
    b.signature = m.anthropic.signature
    b.provider = 'anthropic'
  } else if (typeof m.openai?.reasoningEncryptedContent === 'string') {
    b.encrypted = m.openai.reasoningEncryptedContent
    b.provider = 'openai'
  }
  if (typeof m.anthropic?.redactedData === 'string') {
    b.encrypted = m.anthropic.redactedData
    b.redacted = true
    b.provider = 'anthropic'
  }
  return b
}

/** The end record's counts of one session's reading. */
export type Counts = { messages: number; tool_uses: number; native: number; skipped_rows: number } & Record<string, number>

/** What every message of one session's reading shares. */
export interface Reading {
  /** The harness id: native record types `<id>/<type>`, the `<id>.error` extension. */
  harness: string
  sid: string
  /** `native.format` when the reader carries native data, else null. */
  nativeFormat: string | null
  counts: Counts
}

/**
 * Builds the records of one message from its parts, in the order given: a run
 * of content parts is one message record, tool calls end a run and their
 * results follow as one user record. `S` is what a format keeps of a row for
 * native data (OpenCode its text, ZCode the whole row).
 */
export abstract class PartsBuilder<S> {
  readonly out: FerryRecord[] = []
  protected blocks: Block[] = []
  protected firstPid: string | null = null
  protected results: ToolResultBlock[] = []
  protected resultPid: string | null = null
  protected resultTs: string | null = null
  protected afterTool = false
  protected context = false
  protected contextKind: string | undefined
  protected lastAssistant: MessageRec | null = null
  protected readonly role: 'user' | 'assistant'

  /** `#use` on the id of a record that opens with a tool call (OpenCode's record ids). */
  protected abstract readonly useSuffix: boolean
  /** Messages marked `summary` are compaction summaries (OpenCode's). */
  protected abstract readonly summaries: boolean
  protected abstract readonly usageScope: Usage['scope']
  protected abstract readonly resultReading: ResultReading

  constructor(
    protected readonly r: Reading,
    protected readonly mid: string,
    protected readonly data: JsonObject,
  ) {
    this.role = data.role === 'user' ? 'user' : 'assistant'
  }

  protected get ts(): string | null {
    return iso(this.data.time?.created) ?? null
  }

  /** Whether the whole message is context (what the agent injected, not what a person typed). */
  protected messageContext(): { context: boolean; kind?: string } {
    return { context: false }
  }

  /** Keeps the row of a part whose block joins the open run. */
  protected abstract keep(pid: string, src: S): void
  /** Emits a message record of the run (`first`: the message's first one), with its native data. */
  protected abstract emit(rec: MessageRec, first: boolean): void
  /** The native data of a run's results record. */
  protected resultsNative(): NativePass | undefined {
    return undefined
  }
  /** After a run and its results are emitted. */
  protected afterFlush(): void {}
  protected abstract text(pid: string, src: S, p: JsonObject): void
  protected abstract reasoning(pid: string, src: S, p: JsonObject): void
  protected abstract compaction(pid: string, src: S, p: JsonObject): void
  /** A part with no conversational content (step-start/-finish, snapshot, patch, unknown types). */
  protected abstract other(pid: string, src: S, type: string, p: JsonObject): void
  /** The last assistant record's stop reason from the message's `finish` and `error`. */
  protected abstract stop(last: MessageRec, finish: string | undefined, err: JsonObject | undefined): void
  /** After the last record: what a message with nothing emitted (or rows left over) becomes. */
  protected abstract close(): void
  protected inline(): Inliner | undefined {
    return undefined
  }

  /** Emits the open run of blocks (and tool results behind it). */
  flush(): void {
    if (this.blocks.length) {
      const first = this.out.every((r) => r.kind !== 'message')
      const locator = first ? `message:${this.mid}` : `part:${this.firstPid}${this.useSuffix && this.blocks[0]?.type === 'tool_use' ? '#use' : ''}`
      const rec: MessageRec = { kind: 'message', sid: this.r.sid, id: recordId(this.r.sid, locator), role: this.role, ts: this.ts, blocks: this.blocks }
      const whole = this.messageContext()
      if (this.context || whole.context) {
        rec.context = true
        rec.context_kind = this.context ? (this.contextKind ?? 'reminder') : (whole.kind ?? 'other')
      }
      if (this.role === 'assistant') {
        const parent = typeof this.data.parentID === 'string' ? this.data.parentID : undefined
        if (first && parent !== undefined) rec.parent = recordId(this.r.sid, `message:${parent}`)
        const model = typeof this.data.modelId === 'string' ? this.data.modelId : typeof this.data.modelID === 'string' ? this.data.modelID : undefined
        if (model !== undefined) rec.model = model
        if (parent !== undefined) rec.turn = parent
        if (this.summaries && this.data.summary === true) {
          rec.context = true
          rec.context_kind = 'summary'
        }
        this.lastAssistant = rec
      }
      this.emit(rec, first)
      this.r.counts.messages++
    }
    if (this.results.length) {
      const rec: MessageRec = { kind: 'message', sid: this.r.sid, id: recordId(this.r.sid, `part:${this.resultPid}#result`), role: 'user', ts: this.resultTs ?? this.ts, blocks: this.results }
      const n = this.resultsNative()
      if (n) rec.native = n
      this.out.push(rec)
      this.r.counts.messages++
    }
    this.afterFlush()
    this.blocks = []
    this.results = []
    this.firstPid = null
    this.resultPid = null
    this.resultTs = null
    this.afterTool = false
    this.context = false
    this.contextKind = undefined
  }

  protected add(pid: string, src: S, block: Block, context = false, kind?: string): void {
    if (this.afterTool || (this.blocks.length && context !== this.context)) this.flush()
    if (!this.blocks.length) {
      this.firstPid = pid
      this.context = context
      this.contextKind = kind
    }
    this.blocks.push(block)
    this.keep(pid, src)
  }

  /** A native record of one part (its native data is the caller's). */
  protected nativeRecord(pid: string, type: string, ts: string | null): NativeRec {
    this.r.counts.native++
    return { kind: 'native', sid: this.r.sid, id: recordId(this.r.sid, `part:${pid}`), native_type: `${this.r.harness}/${type}`, ts }
  }

  /** A `compaction` part as a boundary; `replaces`: the format resumes from it, the history before it dropped. */
  protected boundary(pid: string, p: JsonObject, replaces: boolean): BoundaryRec {
    const pre = typeof p.tokensBefore === 'number' ? p.tokensBefore : typeof p.preTokens === 'number' ? p.preTokens : undefined
    return {
      kind: 'boundary',
      sid: this.r.sid,
      id: recordId(this.r.sid, `part:${pid}`),
      type: 'compaction',
      ts: this.ts,
      trigger: p.auto === true ? 'auto' : typeof p.trigger === 'string' ? p.trigger : 'manual',
      ...(replaces ? { replaces_history: true } : {}),
      ...(pre !== undefined ? { pre_tokens: pre } : {}),
    }
  }

  part(pid: string, src: S, p: JsonObject): void {
    const type = typeof p.type === 'string' ? p.type : 'unknown'
    switch (type) {
      case 'text':
        return this.text(pid, src, p)
      case 'reasoning':
        return this.reasoning(pid, src, p)
      case 'file':
        return this.add(pid, src, fileBlock(p, this.inline(), `part:${pid}`))
      case 'tool':
        return this.tool(pid, src, p)
      case 'compaction':
        return this.compaction(pid, src, p)
      default:
        return this.other(pid, src, type, p)
    }
  }

  private tool(pid: string, src: S, p: JsonObject): void {
    const state: JsonObject = p.state && typeof p.state === 'object' ? p.state : {}
    const callId = typeof p.callID === 'string' && p.callID ? p.callID : `${recordId(this.r.sid, `part:${pid}`)}#call`
    // The name the model used, when a provider's differs from the stored one (ZCode keeps it in metadata).
    const shown = typeof p.metadata?.providerToolName === 'string' ? p.metadata.providerToolName : String(p.tool ?? 'unknown')
    if (this.blocks.length && this.context) this.flush()
    if (!this.blocks.length) this.firstPid = pid
    this.blocks.push({ type: 'tool_use', id: callId, name: shown, ...(shown !== p.tool && typeof p.tool === 'string' ? { native_name: p.tool } : {}), input: state.input ?? {} })
    this.keep(pid, src)
    this.r.counts.tool_uses++
    const result = toolResult(callId, state, this.resultReading, `part:${pid}`)
    if (result) {
      if (!this.results.length) this.resultPid = pid
      this.results.push(result)
      this.resultTs = iso(state.time?.end) ?? this.resultTs
    }
    this.afterTool = true
  }

  /** Closes the message: the turn's usage and finish go on its last assistant record. */
  end(): FerryRecord[] {
    this.flush()
    const last = this.lastAssistant
    if (this.role === 'assistant' && last) {
      const usage = usageOf(this.data, this.usageScope)
      if (usage) last.usage = usage
      const err = this.data.error && typeof this.data.error === 'object' ? (this.data.error as JsonObject) : undefined
      this.stop(last, typeof this.data.finish === 'string' ? this.data.finish : undefined, err)
    }
    this.close()
    return this.out
  }
}

/**
 * OpenCode's reading of a message: native data is the rows' text (the message
 * row and its content parts on the first record), other parts are native
 * records in place, a failed or aborted turn with no content one as well.
 */
export class OpenCodeMessage extends PartsBuilder<string> {
  protected readonly useSuffix = true
  protected readonly summaries = true
  protected readonly usageScope = 'message'
  protected readonly resultReading: ResultReading = { savedOutput: true }
  private kept: Array<{ pk: string; raw: string }> = []

  constructor(
    r: Reading,
    mid: string,
    data: JsonObject,
    private readonly mraw: string,
  ) {
    super(r, mid, data)
  }

  private native(table: string, pk: string, raw: string, merged?: Array<{ pk: string; raw: string }>): NativePass | undefined {
    if (!this.r.nativeFormat) return undefined
    return { format: this.r.nativeFormat, table, pk, raw, ...(merged?.length ? { merged } : {}) }
  }

  protected keep(pid: string, raw: string): void {
    this.kept.push({ pk: pid, raw })
  }

  protected emit(rec: MessageRec, first: boolean): void {
    const k = this.kept
    const nat = first ? this.native('message', this.mid, this.mraw, k) : this.native('part', k[0]!.pk, k[0]!.raw, k.slice(1))
    if (nat) rec.native = nat
    this.out.push(rec)
  }

  protected override afterFlush(): void {
    this.kept = []
  }

  protected text(pid: string, raw: string, p: JsonObject): void {
    if (typeof p.text === 'string') this.add(pid, raw, { type: 'text', text: p.text }, p.synthetic === true || p.ignored === true, 'other')
  }

  protected reasoning(pid: string, raw: string, p: JsonObject): void {
    if (typeof p.text === 'string' && p.text !== '') this.add(pid, raw, { type: 'thinking', text: p.text })
  }

  protected compaction(pid: string, raw: string, p: JsonObject): void {
    this.flush()
    const b = this.boundary(pid, p, false)
    const nat = this.native('part', pid, raw)
    if (nat) b.native = nat
    this.out.push(b)
  }

  protected other(pid: string, raw: string, type: string): void {
    this.flush()
    const rec = this.nativeRecord(pid, type, this.ts)
    const nat = this.native('part', pid, raw)
    if (nat) rec.native = nat
    this.out.push(rec)
  }

  protected stop(last: MessageRec, finish: string | undefined, err: JsonObject | undefined): void {
    if (finish) {
      last.stop_reason = stopReason(finish)
      last.native_stop_reason = finish
    } else if (err) {
      last.stop_reason = err.name === 'MessageAbortedError' ? 'aborted' : 'error'
      last.native_stop_reason = String(err.name ?? 'error')
    }
    if (err) last.x = { ...last.x, [`${this.r.harness}.error`]: err }
  }

  protected close(): void {
    if (this.role !== 'assistant' || this.lastAssistant) return
    // An assistant turn with no content (failed or aborted request): kept as a native record.
    const rec: NativeRec = { kind: 'native', sid: this.r.sid, id: recordId(this.r.sid, `message:${this.mid}`), native_type: `${this.r.harness}/${this.data.error && typeof this.data.error === 'object' ? 'message-error' : 'message'}`, ts: this.ts }
    const nat = this.native('message', this.mid, this.mraw)
    if (nat) rec.native = nat
    this.out.push(rec)
    this.r.counts.native++
  }
}
