/**
 * Writing Copilot CLI events: the envelope (`type`, `data`, `agentId`, `id`,
 * `timestamp`, `parentId`: the key order Copilot writes), the linear
 * `parentId` chain, derived event ids, and the conversation rules shared by
 * a session and its sub-agents: one `assistant.message` per model response
 * (consecutive assistant records are one response), its `tool.execution_start`
 * events, every call answered by a `tool.execution_complete` before the next
 * user turn or response, and what Copilot cannot hold made visible.
 */
import { createWriteStream, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { v5 as uuidV5 } from 'uuid'
import { resultText, type Block, type BoundaryRec, type FerryRecord, type MessageRec, type ThinkingBlock, type ToolResultBlock, type Usage, failedResult } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { FERRY_CONTEXT } from './events.js'
import { HARNESS } from './paths.js'

/**
 * ferry's namespace for the name-based (v5) ids it writes into Copilot logs
 * (a fixed random v4). The names hashed in it are part of the format ferry
 * writes: changing either changes every id written.
 */
const FERRY_NS = '0c6e2f9a-41d7-4b8e-9a53-7f2d18c4e6b1'

export function v5(name: string): string {
  return uuidV5(name, FERRY_NS)
}

/** Tool call ids as the Anthropic wire accepts them (Copilot sends them back to the model). */
export function safeToolId(id: string): string {
  const s = id.replace(/[^A-Za-z0-9_-]/g, '_')
  return s || `toolu_ferry_${v5(id).replace(/-/g, '').slice(0, 24)}`
}

const NO_RESULT = '[ferry] No result was recorded for this tool call.'
/** Context another agent injected that Copilot re-creates on its own (or has no use for). */
const DROPPED_CONTEXT: ReadonlySet<string> = new Set(['environment', 'instructions', 'skill', 'attachment'])

const kib = (b64: string | undefined) => (b64 ? `, ${((b64.length * 3) / 4 / 1024).toFixed(1)} KiB` : '')

/** What Copilot CLI cannot hold (images, files: its attachment format is not known), as visible text. */
export function placeholder(b: Block): string | undefined {
  if (b.type === 'image') return `[image: ${b.mime}${kib(b.data)}${b.ref?.path ? `, ${b.ref.path}` : b.ref?.url ? `, ${b.ref.url}` : ''}; not carried into this Copilot CLI session by ferry]`
  if (b.type === 'file') return `[file: ${b.name ?? b.ref?.path ?? b.mime} (${b.mime})${kib(b.data)}; not carried into this Copilot CLI session by ferry]`
  return undefined
}

/** A line file written through one buffer, with backpressure. */
export class LineOut {
  private readonly stream: WriteStream
  private pending = ''
  private error: Error | null = null
  lines = 0

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: 'wx', mode: 0o600 })
    this.stream.on('error', (err) => {
      this.error ??= err
    })
  }

  async line(text: string): Promise<void> {
    if (this.error) throw this.error
    this.pending += text + '\n'
    this.lines++
    if (this.pending.length >= 512 * 1024) await this.flush()
  }

  private async flush(): Promise<void> {
    if (!this.pending) return
    const p = this.pending
    this.pending = ''
    if (!this.stream.write(p)) await once(this.stream, 'drain')
    if (this.error) throw this.error
  }

  async close(): Promise<void> {
    await this.flush()
    this.stream.end()
    await once(this.stream, 'finish')
    if (this.error) throw this.error
  }

  destroy(): void {
    this.stream.destroy()
  }
}

/** An event line with its `parentId` set (the chain around events written from the model). */
export function withParent(text: string, id: string | null): string {
  try {
    const o = JSON.parse(text) as Record<string, unknown>
    if (o.parentId === id) return text
    o.parentId = id
    return JSON.stringify(o)
  } catch {
    return text
  }
}

/** The id of a verbatim event line (the envelope's `"id"`, after `data`). */
export function idOfRaw(raw: string): string | undefined {
  try {
    const o = JSON.parse(raw) as { id?: unknown }
    return typeof o.id === 'string' ? o.id : undefined
  } catch {
    return undefined
  }
}

interface HeldBoundary {
  summary: string
  ts: string
  trigger?: string
  pre_tokens?: number
}

interface PendingAssistant {
  ts: string
  texts: string[]
  thinking: ThinkingBlock[]
  requests: Array<{ toolCallId: string; name: string; arguments: unknown; type: 'function' }>
  model?: string
  api?: string
  usage?: Usage
}

export interface ConversationOptions {
  /** Names the event ids (`<session id>` or `<session id>/<agent id>`): the same input gives the same ids. */
  idBase: string
  agentId?: string
  /** The call in the parent that started this sub-agent (its events carry it as `parentToolCallId`). */
  parentToolCallId?: string
  /** Which harness the records came from (tool names are mapped from its vocabulary). */
  source: string
  startTs: string
  /** Writes one line; `orig` is its line in the source log when written verbatim, else -1. */
  out: (line: string, orig: number) => Promise<void>
  /** Writes compaction `n`'s checkpoint file and gives its path; absent: compactions become visible messages. */
  checkpoint?: (n: number, summary: string) => Promise<string>
}

/** The events of one agent (the session's main agent, or one sub-agent). */
export class Conversation {
  lastId: string | null = null
  /** The id of the first event written (a sub-agent's chain starts from its place in the parent). */
  firstId: string | null = null
  lastTs: string
  /** The first prompt a person typed (the session's name). */
  firstPrompt: string | undefined
  /** Tokens and tool calls written (a sub-agent's `subagent.completed` reports them). */
  tokens = 0
  toolCalls = 0
  private n = 0
  /** Calls whose start event was written from the model (their verbatim start line is then skipped). */
  private readonly started = new Set<string>()
  /** The last verbatim line was a usage record: the response that follows has its usage already. */
  private rawUsage = false
  private lastRaw: string | null = null
  private pending: PendingAssistant | null = null
  private readonly open = new Map<string, string>()
  private boundary: HeldBoundary | null = null
  private compactions = 0
  /** Messages written so far (what a compaction reports as removed) and the model last seen. */
  private messages = 0
  private model: string | undefined
  private turn = 0

  constructor(private readonly o: ConversationOptions) {
    this.lastTs = o.startTs
  }

  /** The id of the last event written (the chain's end). */
  chainId(): string | null {
    if (this.lastRaw !== null) {
      this.lastId = idOfRaw(this.lastRaw) ?? this.lastId
      this.lastRaw = null
    }
    return this.lastId
  }

  async emit(type: string, data: Record<string, unknown>, ts: string = this.lastTs): Promise<string> {
    const id = v5(`${this.o.idBase}:event:${this.n++}`)
    const parentId = this.chainId()
    const env: Record<string, unknown> = { type, data }
    if (this.o.agentId) env.agentId = this.o.agentId
    env.id = id
    env.timestamp = ts
    env.parentId = parentId
    await this.o.out(JSON.stringify(env), -1)
    this.firstId ??= id
    this.lastId = id
    return id
  }

  async raw(raw: string, orig: number): Promise<void> {
    await this.flushAssistant()
    this.open.clear()
    // After events written from the model (a transform changed their records), the chain goes on through them.
    // Lines that a modelled response of the same call already stands for are not written twice.
    if (this.started.size && raw.startsWith('{"type":"tool.execution_start"')) {
      const id = (JSON.parse(raw) as { data?: { toolCallId?: unknown } }).data?.toolCallId
      if (typeof id === 'string' && this.started.delete(id)) return
    }
    this.rawUsage = raw.startsWith('{"type":"session.usage_record"')
    const text = this.lastRaw === null && this.lastId !== null ? withParent(raw, this.lastId) : raw
    await this.o.out(text, text === raw ? orig : -1)
    this.lastRaw = text
    if (this.firstId === null) this.firstId = idOfRaw(raw) ?? null
  }

  private stamp(ts: string | null | undefined): string {
    if (ts && !Number.isNaN(Date.parse(ts))) this.lastTs = ts
    return this.lastTs
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'boundary') return this.onBoundary(rec)
    if (rec.kind !== 'message') return
    if (this.boundary !== null) {
      const b = this.boundary
      this.boundary = null
      // A summary message right after the boundary (Claude Code's user one, OpenCode's assistant one) is that compaction's summary, not a turn.
      // (Only when the boundary has none of its own, or the message repeats it: Codex's carried-over turns are turns.)
      const text = rec.role !== 'system' && rec.context === true && rec.context_kind === 'summary' ? rec.blocks.map((x) => (x.type === 'text' ? x.text : '')).filter(Boolean).join('\n') : undefined
      if (text !== undefined && (!b.summary.trim() || text.includes(b.summary.trim()))) {
        this.stamp(rec.ts)
        return this.compaction({ ...b, summary: text || b.summary })
      }
      await this.compaction(b)
    }
    const ts = this.stamp(rec.ts)
    if (rec.role === 'system') return
    if (rec.role === 'assistant') return this.assistant(rec, ts)
    return this.user(rec, ts)
  }

  private async onBoundary(rec: BoundaryRec): Promise<void> {
    if (rec.type !== 'compaction') return
    if (this.boundary !== null) await this.compaction(this.boundary)
    this.stamp(rec.ts)
    await this.flushAssistant()
    await this.closeOpen()
    this.boundary = { summary: rec.summary ?? '', ts: this.lastTs, ...(rec.trigger ? { trigger: rec.trigger } : {}), ...(rec.pre_tokens !== undefined ? { pre_tokens: rec.pre_tokens } : {}) }
  }

  /**
   * A compaction as Copilot records it (verified: on resume 1.0.102 sends the user's earlier prompts and
   * this summary, then only the events after it), with its checkpoint file where the writer keeps one;
   * without one (a sub-agent) the summary is a visible message. No summary: nothing to replace the
   * history with, so none is dropped.
   */
  private async compaction(b: HeldBoundary): Promise<void> {
    if (!b.summary.trim()) return
    if (!this.o.checkpoint) {
      await this.emit('user.message', { content: `[ferry] The conversation before this point was compacted. Its summary:\n\n${b.summary}`, [FERRY_CONTEXT]: 'summary' }, b.ts)
      return
    }
    const n = ++this.compactions
    const path = await this.o.checkpoint(n, b.summary)
    const attempt = v5(`${this.o.idBase}:compaction:${n}`)
    await this.emit('session.compaction_start', { compactionAttemptId: attempt, model: this.model ?? null, trigger: b.trigger === 'manual' ? 'manual' : 'threshold' }, b.ts)
    await this.emit('session.compaction_complete', {
      success: true,
      outcome: 'applied',
      compactionAttemptId: attempt,
      preCompactionMessagesLength: this.messages,
      messagesRemoved: this.messages,
      summaryContent: b.summary,
      preCompactionTokens: b.pre_tokens ?? 0,
      postCompactionTokens: 0,
      checkpointNumber: n,
      checkpointPath: path,
    }, b.ts)
  }

  private async user(rec: MessageRec, ts: string): Promise<void> {
    let run: string[] = []
    const flushRun = async () => {
      const content = run.join('\n\n')
      run = []
      if (!content.trim()) return
      await this.flushAssistant()
      await this.closeOpen()
      const data: Record<string, unknown> = { content }
      if (rec.context) data[FERRY_CONTEXT] = typeof rec.context_kind === 'string' ? rec.context_kind : 'other'
      else this.firstPrompt ??= content
      if (!rec.context) data.interactionId = v5(`${this.o.idBase}:interaction:${this.turn++}`)
      this.messages++
      await this.emit('user.message', data, ts)
    }
    if (rec.context && this.o.source !== HARNESS && DROPPED_CONTEXT.has(String(rec.context_kind))) return
    for (const b of rec.blocks) {
      if (b.type === 'tool_result') {
        await flushRun()
        await this.result(b, ts)
      } else if (b.type === 'text') run.push(b.text)
      else if (b.type === 'tool_use') {
        // A call the user made (Claude Code's `!` commands): Copilot has no such record the model sees.
        const { name, input } = toNative(HARNESS, b, this.o.source)
        run.push(`[ferry] The user ran ${name}: ${JSON.stringify(input)}`)
      } else {
        const p = placeholder(b)
        if (p) run.push(p)
      }
    }
    await flushRun()
  }

  private async result(b: ToolResultBlock, ts: string): Promise<void> {
    await this.flushAssistant()
    const id = safeToolId(b.tool_use_id)
    let text = resultText(b.content)
    if (Array.isArray(b.content)) for (const p of b.content) if (p.type === 'image') text += (text ? '\n' : '') + placeholder(p)
    if (!this.open.delete(id)) {
      // No request of the model's (a command the user ran, or a result whose call is gone): a visible user turn.
      await this.closeOpen()
      await this.emit('user.message', { content: `[ferry] Tool result${failedResult(b) ? ' (error)' : ''}:\n${text}`, [FERRY_CONTEXT]: 'other' }, ts)
      return
    }
    const data: Record<string, unknown> = { toolCallId: id, success: !failedResult(b), result: { content: text } }
    if (failedResult(b)) data.error = { message: text, code: 'failure' }
    if (typeof b.exit_code === 'number') data.shellExecution = { exitCode: b.exit_code }
    if (this.o.agentId) data.parentToolCallId = this.o.parentToolCallId
    this.messages++
    await this.emit('tool.execution_complete', data, ts)
  }

  /** Calls still open get a visible "no result" answer: the model must see one result per call. */
  async closeOpen(): Promise<void> {
    for (const id of [...this.open.keys()]) {
      this.open.delete(id)
      await this.emit('tool.execution_complete', { toolCallId: id, success: false, result: { content: NO_RESULT }, error: { message: NO_RESULT, code: 'failure' } })
    }
  }

  private async assistant(rec: MessageRec, ts: string): Promise<void> {
    if (!this.pending) {
      await this.closeOpen()
      this.pending = { ts, texts: [], thinking: [], requests: [] }
    }
    const p = this.pending
    if (rec.model) {
      p.model ??= rec.model
      this.model = rec.model
    }
    if (rec.api_message_id) p.api ??= rec.api_message_id
    if (rec.usage) p.usage = rec.usage
    for (const b of rec.blocks) {
      if (b.type === 'text') p.texts.push(b.text)
      else if (b.type === 'thinking') {
        // Reasoning goes back to the model only with a signature its provider can verify.
        if (b.provider === 'anthropic' && b.signature && !b.redacted) p.thinking.push(b)
      } else if (b.type === 'tool_use') {
        const { name, input } = toNative(HARNESS, b, this.o.source)
        p.requests.push({ toolCallId: safeToolId(b.id), name, arguments: input ?? {}, type: 'function' })
      } else {
        const ph = placeholder(b)
        if (ph) p.texts.push(ph)
      }
    }
  }

  async flushAssistant(): Promise<void> {
    const p = this.pending
    if (!p) return
    this.pending = null
    const content = p.texts.filter((t) => t !== '').join('\n\n')
    if (!content && !p.requests.length && !p.thinking.length) return
    if (p.usage && !this.rawUsage) {
      const u = p.usage
      this.tokens += (u.input_tokens ?? 0) + (u.output_tokens ?? 0)
      const usage: Record<string, unknown> = { model: p.model ?? null, inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0, cacheReadTokens: u.cache_read_tokens ?? 0, cacheWriteTokens: u.cache_write_tokens ?? 0 }
      if (u.reasoning_tokens !== undefined) usage.reasoningTokens = u.reasoning_tokens
      if (p.api) usage.apiCallId = p.api
      await this.emit('session.usage_record', { usage }, p.ts)
    }
    const data: Record<string, unknown> = { messageId: v5(`${this.o.idBase}:message:${this.n}`), content, toolRequests: p.requests }
    if (p.model) data.model = p.model
    if (p.thinking.length) {
      data.reasoningText = p.thinking.map((t) => t.text).join('\n\n')
      data.reasoningOpaque = p.thinking.at(-1)!.signature
      data.reasoningBlocks = { provider: 'anthropic-messages', blocks: p.thinking.map((t) => ({ type: 'thinking', thinking: t.text, signature: t.signature })) }
    }
    if (p.api) data.apiCallId = p.api
    if (this.o.agentId) data.parentToolCallId = this.o.parentToolCallId
    this.messages++
    await this.emit('assistant.message', data, p.ts)
    this.rawUsage = false
    for (const r of p.requests) {
      this.toolCalls++
      if (this.o.source === HARNESS && this.started.size < 4096) this.started.add(r.toolCallId)
      this.open.set(r.toolCallId, r.name)
      await this.emit('tool.execution_start', { toolCallId: r.toolCallId, toolName: r.name, arguments: r.arguments, ...(this.o.agentId ? { parentToolCallId: this.o.parentToolCallId } : {}) }, p.ts)
    }
  }

  /** Everything held is written: the summary of a last compaction, the last response, answers for open calls. */
  async finish(): Promise<void> {
    if (this.boundary !== null) await this.compaction(this.boundary)
    this.boundary = null
    await this.flushAssistant()
    await this.closeOpen()
  }
}
