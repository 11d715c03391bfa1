/**
 * One `events.jsonl` line → common records, for one agent of the log: the
 * main agent (events without `agentId`) or one sub-agent (its `agentId`).
 * Stateful but bounded: the usage record waiting for its assistant message,
 * the trigger of an open compaction, the ids seen (ids must be unique),
 * counts, and the unknown event types met (a few names with their counts).
 */
import type { LineReporter } from '../../io/line-file.js'
import {
  isObj,
  recordId,
  sessionRecord,
  type Block,
  type FerryRecord,
  type JsonObject,
  type MessageRec,
  type NativePass,
  type SessionLink,
  type SessionRec,
  type Usage,
  type Warning,
} from '../../model.js'
import { HARNESS } from './paths.js'

/** Event types whose meaning is modelled, or known and kept as native records (observed on 1.0.102). */
const KNOWN = new Set([
  'session.start', 'session.resume', 'session.shutdown', 'session.model_change', 'session.usage_record', 'session.info', 'session.error',
  'session.compaction_start', 'session.compaction_complete', 'session.truncation',
  'user.message', 'system.message', 'assistant.message', 'assistant.turn_start', 'assistant.turn_end',
  'tool.execution_start', 'tool.execution_complete', 'tool.execution_partial_result', 'tool.user_requested',
  'subagent.started', 'subagent.configured', 'subagent.completed', 'subagent.failed', 'subagent.selected', 'abort',
])

/** The user-message field ferry writes for context it carried from another agent (Copilot ignores fields it does not know). */
export const FERRY_CONTEXT = 'ferryContextKind'

/** Copilot's reasoning providers (`reasoningBlocks.provider`, the wire) → the model's verifier names. */
export function reasoningProvider(p: unknown): string | undefined {
  if (typeof p !== 'string') return undefined
  if (p.startsWith('anthropic')) return 'anthropic'
  if (p.startsWith('openai') || p === 'responses' || p === 'completions') return 'openai'
  return p
}

export function usageOf(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const out: Usage = {}
  const put = (k: keyof Usage, v: unknown) => {
    const x = n(v)
    if (x !== undefined) (out as Record<string, unknown>)[k] = x
  }
  put('input_tokens', u.inputTokens)
  put('output_tokens', u.outputTokens)
  put('cache_read_tokens', u.cacheReadTokens)
  put('cache_write_tokens', u.cacheWriteTokens)
  put('reasoning_tokens', u.reasoningTokens)
  if (Object.keys(out).length === 0) return undefined
  out.scope = 'message'
  return out
}

/**
 * The ids seen, as 32-bit FNV-1a hashes in an open-addressed table off the JS heap's object graph
 * (8 bytes an id at most, growing to 4M ids = 32 MiB): memory stays flat however long the log.
 * `add` is false for a hash already there (a repeated id, or rarely another id's hash) and once full.
 */
class HashSeen {
  private table = new Uint32Array(1 << 12)
  private size = 0
  private static readonly MAX_SLOTS = 1 << 23

  add(id: string): boolean {
    let h = 0x811c9dc5
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
    h = (h >>> 0) || 1
    if ((this.size + 1) * 2 > this.table.length) {
      if (this.table.length >= HashSeen.MAX_SLOTS) return false
      const old = this.table
      this.table = new Uint32Array(old.length * 2)
      this.size = 0
      for (const v of old) if (v) this.insert(v)
    }
    return this.insert(h)
  }

  private insert(h: number): boolean {
    const mask = this.table.length - 1
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = this.table[i]!
      if (v === h) return false
      if (v === 0) {
        this.table[i] = h
        this.size++
        return true
      }
    }
  }
}

export interface AgentSpan {
  agentId: string
  /** 0-based first and last physical line of its events, and the byte offset of the first. */
  firstLine: number
  lastLine: number
  startByte: number
  /** Byte offset just past its last line. */
  endByte: number
}

export interface MapperOptions {
  /** The main session's key and native id. */
  sid: string
  nativeId: string
  file: string
  native: boolean
  reporter: LineReporter
  push: (rec: FerryRecord) => void
  /** null: the main agent; else the sub-agent whose events are mapped. */
  agentId: string | null
  /** What discovery knew (a header made without `session.start`, the sub-agents' cwd). */
  info?: { cwd?: string; title?: string; title_source?: string; model?: string; created_at?: string; agent_version?: string }
  /** The main session's key, for a sub-agent's parent link. */
  parentSid?: string
  /** Reports the unknown event types once, at the first one's line (0-based). */
  warn?: (detail: string, line: number) => void
}

export class EventMapper {
  messages = 0
  toolUses = 0
  natives = 0
  skipped = 0
  /** Sub-agents seen by the main pass, in order of their first event. */
  readonly agents = new Map<string, AgentSpan>()
  readonly sid: string
  private readonly o: MapperOptions
  private format = `${HARNESS}/jsonl`
  private headerDone = false
  private usage: { u: Usage; api?: string } | null = null
  private trigger: string | undefined
  private readonly seen = new HashSeen()
  private readonly unknown = new Map<string, number>()
  private firstUnknown: number | undefined

  constructor(o: MapperOptions) {
    this.o = o
    this.sid = o.agentId === null ? o.sid : `${HARNESS}:agent-${o.agentId}`
    if (o.info?.agent_version) this.format = `${HARNESS}/jsonl@${o.info.agent_version}`
  }

  /** One physical line (0-based `no`) at byte `offset`; `unterminated`: the last one, without its newline. */
  line(buf: Buffer, no: number, offset: number, unterminated = false): void {
    const text = buf.toString('utf8')
    let ev: any
    try {
      ev = JSON.parse(text)
    } catch {
      if (text.trim() === '') return
      this.skipped++
      this.o.reporter.bad({ no, unterminated }, 'not a JSON line, skipped')
      return
    }
    if (!isObj(ev)) {
      this.skipped++
      this.o.reporter.bad({ no, unterminated }, 'not an event (not a JSON object), skipped')
      return
    }
    const agent = typeof ev.agentId === 'string' && ev.agentId !== '' ? ev.agentId : null
    if (this.o.agentId === null && agent !== null) {
      const span = this.agents.get(agent)
      if (span) {
        span.lastLine = no
        span.endByte = offset + buf.length + 1
      } else if (this.agents.size < 100_000) this.agents.set(agent, { agentId: agent, firstLine: no, lastLine: no, startByte: offset, endByte: offset + buf.length + 1 })
      return
    }
    if (agent !== this.o.agentId) return
    this.event(ev, text, no)
  }

  private event(ev: JsonObject, text: string, no: number): void {
    const type = typeof ev.type === 'string' ? ev.type : ''
    const data: JsonObject = isObj(ev.data) ? ev.data : {}
    const ts: string | null = typeof ev.timestamp === 'string' ? ev.timestamp : null
    if (!this.headerDone) {
      if (this.o.agentId === null) {
        if (type === 'session.start') return this.header(data, ts, text, no)
        this.o.reporter.bad({ no: 0 }, 'events.jsonl does not start with session.start; Copilot CLI cannot resume it', 'bad-meta')
        this.header({}, null)
      } else this.subHeader(type === 'subagent.started' ? data : {}, ts)
    }
    const loc = this.locator(ev, no)
    switch (type) {
      case 'user.message':
        return this.user(data, loc, ts, text, no)
      case 'system.message': {
        const content = typeof data.content === 'string' ? data.content : ''
        return this.message({ role: 'system', context: true, context_kind: 'instructions', blocks: [{ type: 'text', text: content }] }, loc, ts, text, no)
      }
      case 'assistant.message':
        return this.assistant(data, loc, ts, text, no)
      case 'tool.execution_complete':
        return this.toolResult(data, loc, ts, text, no)
      case 'session.usage_record': {
        const u = usageOf(data.usage)
        this.usage = u ? { u, ...(typeof data.usage?.apiCallId === 'string' ? { api: data.usage.apiCallId } : {}) } : null
        return this.passthrough(type, loc, ts, text, no)
      }
      case 'session.compaction_start':
        this.trigger = typeof data.trigger === 'string' ? data.trigger : undefined
        return this.passthrough(type, loc, ts, text, no)
      case 'session.compaction_complete':
        if (data.success !== false && typeof data.summaryContent === 'string') return this.compaction(data, loc, ts, text, no)
        return this.passthrough(type, loc, ts, text, no)
      default:
        if (!KNOWN.has(type)) {
          this.unknown.set(type || '(no type)', (this.unknown.get(type || '(no type)') ?? 0) + 1)
          this.firstUnknown ??= no
        }
        return this.passthrough(type || 'unknown', loc, ts, text, no)
    }
  }

  /**
   * Event ids are UUIDs; a missing or repeated one is located by its line instead (so is one whose
   * hash an earlier id shares, and every one once the table is full: the same file always gives
   * the same locators, and no locator twice).
   */
  private locator(ev: JsonObject, no: number): string {
    const id = ev.id
    if (typeof id === 'string' && id !== '' && id.length <= 200 && this.seen.add(id)) return id
    return `l${no}`
  }

  private nativeOf(raw: string, no: number): NativePass {
    return { format: this.format, line: no, raw }
  }

  private header(data: JsonObject, ts: string | null, text?: string, no?: number): void {
    this.headerDone = true
    const info = this.o.info ?? {}
    const version = typeof data.copilotVersion === 'string' ? data.copilotVersion : info.agent_version
    if (version) this.format = `${HARNESS}/jsonl@${version}`
    const cwd = typeof data.context?.cwd === 'string' && data.context.cwd ? data.context.cwd : info.cwd
    const model = typeof data.selectedModel === 'string' ? data.selectedModel : info.model
    const created = typeof data.startTime === 'string' ? data.startTime : ts ?? info.created_at
    const x: Record<string, unknown> = {}
    if (typeof data.producer === 'string') x['copilot.producer'] = data.producer
    const rec: SessionRec = sessionRecord({
      sid: this.sid,
      source: { harness: HARNESS, ...(version ? { agent_version: version } : {}), locator: { path: this.o.file } },
      native_id: this.o.nativeId,
      ...(cwd ? { cwd } : {}),
      ...(info.title ? { title: info.title, title_source: info.title_source ?? 'first_prompt' } : {}),
      ...(model ? { model } : {}),
      ...(created ? { created_at: created } : {}),
      ...(Object.keys(x).length ? { x } : {}),
    })
    if (this.o.native && text !== undefined) rec.native = this.nativeOf(text, no ?? 0)
    this.o.push(rec)
  }

  private subHeader(data: JsonObject, ts: string | null): void {
    this.headerDone = true
    const agentId = this.o.agentId!
    const info = this.o.info ?? {}
    const title = [data.agentDescription, data.agentDisplayName, data.agentName].find((v): v is string => typeof v === 'string' && v.trim() !== '')
    const parent: SessionLink = { sid: this.o.parentSid ?? this.o.sid, kind: 'subagent', agent_id: agentId, ...(typeof data.toolCallId === 'string' ? { tool_use_id: data.toolCallId } : {}) }
    const x: Record<string, unknown> = {}
    for (const k of ['agentName', 'agentDisplayName', 'agentType', 'executionMode']) if (typeof data[k] === 'string') x[`copilot.${k}`] = data[k]
    this.o.push(
      sessionRecord({
        sid: this.sid,
        source: { harness: HARNESS, ...(info.agent_version ? { agent_version: info.agent_version } : {}), locator: { path: this.o.file } },
        native_id: `agent-${agentId}`,
        ...(info.cwd ? { cwd: info.cwd } : {}),
        ...(title ? { title, title_source: 'subagent' } : {}),
        ...(typeof data.model === 'string' ? { model: data.model } : {}),
        ...(ts ? { created_at: ts } : {}),
        parent,
        ...(Object.keys(x).length ? { x } : {}),
      }),
    )
  }

  private message(fields: Omit<MessageRec, 'kind' | 'sid' | 'id' | 'ts'>, loc: string, ts: string | null, text: string, no: number): void {
    const rec: MessageRec = { kind: 'message', sid: this.sid, id: recordId(this.sid, loc), ts, ...fields }
    if (this.o.native) rec.native = this.nativeOf(text, no)
    this.messages++
    this.o.push(rec)
  }

  private passthrough(type: string, loc: string, ts: string | null, text: string, no: number): void {
    const rec: FerryRecord = { kind: 'native', sid: this.sid, id: recordId(this.sid, loc), native_type: `${HARNESS}/${type}`, ts }
    if (this.o.native) rec.native = this.nativeOf(text, no)
    this.natives++
    this.o.push(rec)
  }

  private user(data: JsonObject, loc: string, ts: string | null, text: string, no: number): void {
    let content = typeof data.content === 'string' ? data.content : ''
    if (!content && typeof data.transformedContent === 'string') content = data.transformedContent
    const blocks: Block[] = [{ type: 'text', text: content }]
    const extra: Partial<MessageRec> = {}
    if (typeof data[FERRY_CONTEXT] === 'string') {
      extra.context = true
      extra.context_kind = data[FERRY_CONTEXT]
    }
    const x: Record<string, unknown> = {}
    if (Array.isArray(data.attachments) && data.attachments.length) x['copilot.attachments'] = data.attachments
    if (typeof data.source === 'string') x['copilot.source'] = data.source
    if (Object.keys(x).length) extra.x = x
    this.message({ role: 'user', blocks, ...extra }, loc, ts, text, no)
  }

  private assistant(data: JsonObject, loc: string, ts: string | null, text: string, no: number): void {
    const blocks: Block[] = []
    const provider = reasoningProvider(data.reasoningBlocks?.provider)
    const rb = Array.isArray(data.reasoningBlocks?.blocks) ? data.reasoningBlocks.blocks.filter((b: unknown) => isObj(b) && b.type === 'thinking' && typeof b.thinking === 'string') : []
    if (rb.length) {
      for (const b of rb) blocks.push({ type: 'thinking', text: b.thinking, ...(typeof b.signature === 'string' && b.signature ? { signature: b.signature } : {}), ...(provider ? { provider } : {}) })
    } else if (typeof data.reasoningText === 'string' || typeof data.encryptedContent === 'string') {
      const t: Block = { type: 'thinking', text: typeof data.reasoningText === 'string' ? data.reasoningText : '' }
      if (typeof data.reasoningOpaque === 'string' && data.reasoningOpaque) t.signature = data.reasoningOpaque
      if (typeof data.encryptedContent === 'string') t.encrypted = data.encryptedContent
      const p = provider ?? (t.encrypted ? 'openai' : undefined)
      if (p) t.provider = p
      blocks.push(t)
    }
    if (typeof data.content === 'string' && data.content !== '') blocks.push({ type: 'text', text: data.content })
    for (const r of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
      if (!isObj(r)) continue
      const id = typeof r.toolCallId === 'string' && r.toolCallId ? r.toolCallId : `${recordId(this.sid, loc)}#call${blocks.length}`
      blocks.push({ type: 'tool_use', id, name: typeof r.name === 'string' ? r.name : '', input: r.arguments ?? {} })
      this.toolUses++
    }
    const extra: Partial<MessageRec> = {}
    if (typeof data.model === 'string') extra.model = data.model
    if (typeof data.apiCallId === 'string') extra.api_message_id = data.apiCallId
    if (typeof data.turnId === 'string') extra.turn = data.turnId
    if (this.usage && (this.usage.api === undefined || data.apiCallId === undefined || this.usage.api === data.apiCallId)) extra.usage = this.usage.u
    this.usage = null
    this.message({ role: 'assistant', blocks, ...extra }, loc, ts, text, no)
  }

  private toolResult(data: JsonObject, loc: string, ts: string | null, text: string, no: number): void {
    const id = typeof data.toolCallId === 'string' ? data.toolCallId : `${recordId(this.sid, loc)}#call`
    let content = typeof data.result?.content === 'string' ? data.result.content : ''
    if (!content && typeof data.error?.message === 'string') content = data.error.message
    const block: Block = { type: 'tool_result', tool_use_id: id, content }
    if (data.success === false) block.is_error = true
    if (typeof data.shellExecution?.exitCode === 'number') block.exit_code = data.shellExecution.exitCode
    if (block.exit_code !== undefined && block.exit_code !== 0) block.is_error = true
    const saved = /Saved to: (\/\S+copilot-tool-output-\S+\.txt)/.exec(content.slice(0, 600))
    if (saved) block.truncated = { ref: { path: saved[1]! } }
    this.message({ role: 'user', blocks: [block] }, loc, ts, text, no)
  }

  private compaction(data: JsonObject, loc: string, ts: string | null, text: string, no: number): void {
    const trigger = this.trigger === 'threshold' ? 'auto' : this.trigger
    this.trigger = undefined
    const x: Record<string, unknown> = {}
    if (typeof data.checkpointNumber === 'number') x['copilot.checkpointNumber'] = data.checkpointNumber
    if (typeof data.checkpointPath === 'string') x['copilot.checkpointPath'] = data.checkpointPath
    const rec: FerryRecord = {
      kind: 'boundary',
      sid: this.sid,
      id: recordId(this.sid, loc),
      type: 'compaction',
      ts,
      summary: data.summaryContent,
      ...(trigger ? { trigger } : {}),
      ...(typeof data.preCompactionTokens === 'number' ? { pre_tokens: data.preCompactionTokens } : {}),
      replaces_history: true,
      ...(Object.keys(x).length ? { x } : {}),
    }
    if (this.o.native) rec.native = this.nativeOf(text, no)
    this.o.push(rec)
  }

  /** Pushes `extra` (side files) and the `end` record; `ended`: the file was read to its end. */
  finish(ended: boolean, extra: FerryRecord[] = []): void {
    if (!this.headerDone) {
      if (this.o.agentId === null) this.header({}, null)
      else this.subHeader({}, null)
    }
    for (const r of extra) {
      this.natives++
      this.o.push(r)
    }
    const warnings: Warning[] = []
    if (this.unknown.size) {
      const list = [...this.unknown].slice(0, 8).map(([t, n]) => `${t} (${n})`).join(', ')
      const total = [...this.unknown.values()].reduce((a, b) => a + b, 0)
      const detail = `${total} event${total === 1 ? '' : 's'} of types this version does not model kept as native records: ${list}${this.unknown.size > 8 ? ', …' : ''}`
      const at = `${this.o.file}:${(this.firstUnknown ?? 0) + 1}`
      this.o.warn?.(detail, this.firstUnknown ?? 0)
      warnings.push({ code: 'unsupported', detail, at })
    }
    this.o.push({
      kind: 'end',
      sid: this.sid,
      id: recordId(this.sid, 'end'),
      complete: ended && this.skipped === 0,
      counts: { messages: this.messages, tool_uses: this.toolUses, native: this.natives, skipped_lines: this.skipped, unknown_events: [...this.unknown.values()].reduce((a, b) => a + b, 0) },
      ...(warnings.length ? { warnings } : {}),
    })
  }
}
