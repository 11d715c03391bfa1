/**
 * One rollout line → common records. Stateful but bounded: it remembers the
 * current turn and model, the open tool calls (to pair outputs and to attach
 * exit codes and code-mode nested commands), and at most one assistant
 * record held back so that the usage line that follows it can be attached.
 *
 * Hot path: lines whose meaning is "native passthrough only" (UI events,
 * world_state) are recognised from their envelope prefix without JSON.parse.
 */
import type { LineReporter } from '../../io/line-file.js'
import { LEAN_LINE_BYTES, parseJsonBytes } from '../../io/json-bytes.js'
import {
  recordId,
  sessionRecord,
  type Block,
  type FerryRecord,
  type MessageRec,
  type NativePass,
  type ResultPart,
  type SessionRec,
  type ToolResultBlock,
  type Usage,
} from '../../model.js'
import { harnessItems, userContextKind } from './context.js'
import { PaginatedItems } from './paginated.js'

export interface MapperOptions {
  sid: string
  nativeId: string
  file: string
  compressed: boolean
  native: boolean
  /** Bad lines go here: it tells a torn last line from a bad one and names the file. */
  reporter: LineReporter
  /** Header fields discovery found cheaply (title, model). */
  title?: string
  /** Where discovery found the title (`custom`: a name the user gave the thread). */
  titleSource?: string
  model?: string
  archived?: boolean
  push: (rec: FerryRecord) => void
}

/** The summary of a remote (encrypted) compaction, as far as anyone but the provider can tell. */
export const ENCRYPTED_SUMMARY = '[ferry] Codex compacted the conversation here. Its summary was made by the provider and is stored encrypted, so it cannot be shown; the turns before this point are kept above.'

/** event_msg payload types that carry something the model lacks. */
const NEEDED_EVENTS = new Set(['token_count', 'item_completed', 'exec_command_end', 'patch_apply_end', 'web_search_end', 'mcp_tool_call_end'])
/** Cap on remembered open calls: a file full of calls without outputs must not grow memory. */
const MAX_OPEN = 4096
/** Native records that may wait behind an assistant record for its usage line. */
const HOLD = 32

const ENVELOPE = /^\{"timestamp":"([^"]*)",(?:"ordinal":(\d+),)?"type":"([a-z_]+)"(?:,"payload":\{"type":"([A-Za-z_]+)")?/

interface OpenCall {
  name: string
  custom: boolean
  nested?: unknown[]
  exit_code?: number
  /** The call's end event says it failed (an MCP call: the output item carries no flag). */
  failed?: boolean
}

/** What ferry writes before a failed call's output where Codex has no flag for it (the sink), read back as `is_error`. */
export const FAILED_PREFIX = '[ferry] This call failed.'

export class RolloutMapper {
  messages = 0
  toolUses = 0
  natives = 0
  skipped = 0
  private readonly o: MapperOptions
  private format = 'codex/jsonl'
  private model: string | undefined
  private turn: string | undefined
  private held: MessageRec | null = null
  private queue: FerryRecord[] = []
  private readonly open = new Map<string, OpenCall>()
  /** Item ids seen in a rollout without ordinals (their `i<id>` locator must be unique). */
  private readonly seenIds = new Set<string>()
  /** Multi-agent: open spawn_agent calls, and the agent path each spawned → that call's id. */
  private readonly spawnCalls = new Set<string>()
  private readonly spawned = new Map<string, string>()
  private sawUsageRecord = false
  private sawSession = false
  /** Paginated history: turn items committed as `item_completed`, ordinals that repeat (paginated.ts). */
  private readonly paginated = new PaginatedItems((role, blocks, loc, ts, no, extra) => {
    // Its line is also a native record, emitted just before: the message names the line without its text.
    const rec = this.message(role, blocks, `${loc}#item`, ts, '', no, extra)
    if (rec.native) delete rec.native.raw
    return rec
  }, (rec) => this.emitMessage(rec))

  constructor(o: MapperOptions) {
    this.o = o
    this.model = o.model
  }

  /**
   * One physical line (0-based `no`) of the decompressed stream; `unterminated`: the last one, without its newline.
   * The caller gives `buf` up: a huge line is unescaped in place (parseJsonBytes).
   */
  line(buf: Buffer, no: number, unterminated = false): void {
    if (no > 0 && !this.sawSession) {
      this.noMeta()
      this.header(undefined, undefined)
    }
    // A last line without its newline may be cut anywhere: it is parsed, never sniffed.
    if (no > 0 && buf.length > 40 && !unterminated) {
      const head = buf.toString('latin1', 0, Math.min(buf.length, 200))
      const m = ENVELOPE.exec(head)
      if (m && (m[3] === 'world_state' || (m[3] === 'event_msg' && m[4] !== undefined && !NEEDED_EVENTS.has(m[4])))) {
        const loc = m[2] !== undefined ? this.paginated.ordinalLoc(Number(m[2]), no) : `l${no}`
        const type = m[3] === 'event_msg' ? `event_msg:${m[4]}` : m[3]!
        const rec: FerryRecord = { kind: 'native', sid: this.o.sid, id: recordId(this.o.sid, loc), native_type: `codex/${type}`, ts: m[1]! }
        if (this.o.native) rec.native = this.nativeOf(buf.toString('utf8'), no)
        this.paginated.release()
        this.natives++
        this.emit(rec)
        return
      }
    }
    // Without native text the line string is not needed: a huge line is parsed from its bytes.
    const lean = !this.o.native && buf.length >= LEAN_LINE_BYTES
    const text = lean ? '' : buf.toString('utf8')
    let obj: any
    try {
      obj = lean ? parseJsonBytes(buf) : JSON.parse(text)
      if (obj instanceof Error) throw obj
    } catch {
      // A line with a quote is never blank (and the lean parse may have overwritten one).
      if (lean ? buf.indexOf(0x22) < 0 && buf.toString('utf8').trim() === '' : text.trim() === '') {
        if (this.o.native) this.emitNative({}, no, text, 'codex/blank', `l${no}`)
        return
      }
      this.skipped++
      this.o.reporter.bad({ no, unterminated }, 'not a JSON line, skipped')
      return
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      this.skipped++
      this.o.reporter.bad({ no, unterminated }, 'not a rollout record (not a JSON object), skipped')
      return
    }
    if (no === 0) return this.first(obj, text)
    this.record(obj, text, no)
  }

  /** Flushes the held record and emits `end`. */
  finish(complete: boolean): void {
    if (!this.sawSession) this.header(undefined, undefined)
    this.paginated.finish()
    this.flush()
    this.o.push({
      kind: 'end',
      sid: this.o.sid,
      id: recordId(this.o.sid, 'end'),
      complete,
      counts: { messages: this.messages, tool_uses: this.toolUses, native: this.natives, skipped_lines: this.skipped },
    })
  }

  private first(obj: any, text: string): void {
    if (obj.type !== 'session_meta' || typeof obj.payload !== 'object' || obj.payload === null) {
      this.noMeta()
      this.header(undefined, undefined)
      this.record(obj, text, 0)
      return
    }
    this.header(obj.payload, text)
  }

  private noMeta(): void {
    this.o.reporter.bad({ no: 0 }, 'rollout does not start with session_meta; Codex cannot resume it', 'bad-meta')
  }

  private header(meta: any, text: string | undefined): void {
    this.sawSession = true
    const p = meta ?? {}
    this.paginated.meta(p)
    if (typeof p.cli_version === 'string') this.format = `codex/jsonl@${p.cli_version}`
    const x: Record<string, unknown> = {}
    for (const k of ['originator', 'source', 'thread_source', 'forked_from_id', 'history_base', 'parent_thread_id', 'agent_nickname', 'agent_role']) {
      if (p[k] !== undefined && p[k] !== null) x[`codex.${k}`] = p[k]
    }
    if (this.o.archived) x['codex.archived'] = true
    const git = p.git && typeof p.git === 'object' ? p.git : undefined
    const rec: SessionRec = sessionRecord({
      sid: this.o.sid,
      source: {
        harness: 'codex',
        ...(typeof p.cli_version === 'string' ? { agent_version: p.cli_version } : {}),
        locator: { path: this.o.file, ...(this.o.compressed ? { compressed: true } : {}) },
      },
      native_id: this.o.nativeId,
      ...(typeof p.cwd === 'string' ? { cwd: p.cwd } : {}),
      ...(this.o.title ? { title: this.o.title, title_source: this.o.titleSource ?? 'first_prompt' } : {}),
      ...(this.model ? { model: this.model } : {}),
      ...(typeof p.model_provider === 'string' ? { provider: p.model_provider } : {}),
      ...(git ? { git: stripUndef({ branch: git.branch ?? undefined, commit: git.commit_hash ?? undefined, remote: redactUrl(git.repository_url) }) } : {}),
      ...(typeof p.timestamp === 'string' ? { created_at: p.timestamp } : {}),
      ...(typeof p.forked_from_id === 'string'
        ? { parent: { sid: `codex:${p.forked_from_id}`, kind: 'fork' as const } }
        : spawnParent(p)),
      ...(Object.keys(x).length ? { x } : {}),
    })
    if (this.o.native && text !== undefined) rec.native = this.nativeOf(text, 0)
    this.o.push(rec)
  }

  private nativeOf(raw: string, no: number): NativePass {
    return { format: this.format, line: no, raw }
  }

  private locator(obj: any, no: number): string {
    if (typeof obj.ordinal === 'number') return this.paginated.ordinalLoc(obj.ordinal, no)
    const id = obj.payload?.id
    if (typeof id === 'string' && id !== '' && !this.seenIds.has(id)) {
      this.seenIds.add(id)
      return `i${id}`
    }
    return `l${no}`
  }

  private record(obj: any, text: string, no: number): void {
    const loc = this.locator(obj, no)
    const p = obj.payload ?? {}
    const ts: string | null = typeof obj.timestamp === 'string' ? obj.timestamp : null
    if (obj.type !== 'response_item') this.paginated.release()
    switch (obj.type) {
      case 'response_item':
        this.paginated.responseItem(p)
        return this.responseItem(p, loc, ts, text, no)
      case 'turn_context':
        if (typeof p.model === 'string') this.model = p.model
        if (typeof p.turn_id === 'string') this.turn = p.turn_id
        this.paginated.newTurn(p.turn_id)
        return this.emitNative(obj, no, text, 'codex/turn_context', loc)
      case 'event_msg':
        this.event(p)
        this.emitNative(obj, no, text, `codex/event_msg:${p.type}`, loc)
        if (p.type === 'item_completed') this.paginated.completed(p, loc, ts, no)
        return
      case 'session_meta':
        // A resumed rollout repeats it: the mode it names holds from here.
        this.paginated.meta(p)
        return this.emitNative(obj, no, text, 'codex/session_meta', loc)
      case 'token_usage_record':
        this.sawUsageRecord = true
        this.attachUsage(p.usage)
        return this.emitNative(obj, no, text, 'codex/token_usage_record', loc)
      case 'compacted':
        return this.compacted(p, loc, ts, text, no)
      default:
        return this.emitNative(obj, no, text, `codex/${typeof obj.type === 'string' ? obj.type : 'unknown'}`, loc)
    }
  }

  private emitNative(obj: any, no: number, text: string, type: string, loc: string): void {
    const rec: FerryRecord = { kind: 'native', sid: this.o.sid, id: recordId(this.o.sid, loc), native_type: type, ts: typeof obj.timestamp === 'string' ? obj.timestamp : null }
    if (this.o.native) rec.native = this.nativeOf(text, no)
    this.natives++
    this.emit(rec)
  }

  private message(role: MessageRec['role'], blocks: Block[], loc: string, ts: string | null, text: string, no: number, extra: Partial<MessageRec> = {}): MessageRec {
    const rec: MessageRec = { kind: 'message', sid: this.o.sid, id: recordId(this.o.sid, loc), role, ts, blocks, ...extra }
    if (this.o.native) rec.native = this.nativeOf(text, no)
    return rec
  }

  private assistantExtra(p: any): Partial<MessageRec> {
    const turn = p.internal_chat_message_metadata_passthrough?.turn_id ?? this.turn
    return {
      ...(this.model ? { model: this.model } : {}),
      ...(typeof p.id === 'string' ? { api_message_id: p.id } : {}),
      ...(typeof turn === 'string' ? { turn } : {}),
    }
  }

  private responseItem(p: any, loc: string, ts: string | null, text: string, no: number): void {
    switch (p.type) {
      case 'message':
        return this.chatMessage(p, loc, ts, text, no)
      case 'reasoning': {
        const summary = Array.isArray(p.summary) ? p.summary.map((s: any) => (typeof s?.text === 'string' ? s.text : '')).filter(Boolean) : []
        const content = Array.isArray(p.content) ? p.content.map((s: any) => (typeof s?.text === 'string' ? s.text : '')).filter(Boolean) : []
        const block: Block = { type: 'thinking', text: (summary.length ? summary : content).join('\n\n'), provider: 'openai' }
        if (typeof p.encrypted_content === 'string') block.encrypted = p.encrypted_content
        return this.emitMessage(this.message('assistant', [block], loc, ts, text, no, this.assistantExtra(p)))
      }
      case 'function_call': {
        const callId = typeof p.call_id === 'string' ? p.call_id : `${recordId(this.o.sid, loc)}#call`
        let input: unknown = p.arguments
        if (typeof p.arguments === 'string') {
          try {
            input = JSON.parse(p.arguments)
          } catch {
            input = p.arguments
          }
        }
        const x = typeof p.namespace === 'string' ? { 'codex.namespace': p.namespace } : undefined
        return this.toolUse(callId, String(p.name ?? ''), input, false, p, loc, ts, text, no, x)
      }
      case 'custom_tool_call': {
        const callId = typeof p.call_id === 'string' ? p.call_id : `${recordId(this.o.sid, loc)}#call`
        return this.toolUse(callId, String(p.name ?? ''), p.input ?? '', true, p, loc, ts, text, no, { 'codex.item': 'custom_tool_call' })
      }
      case 'local_shell_call': {
        const callId = typeof p.call_id === 'string' ? p.call_id : typeof p.id === 'string' ? p.id : `${recordId(this.o.sid, loc)}#call`
        return this.toolUse(callId, 'local_shell', p.action ?? {}, false, p, loc, ts, text, no, { 'codex.item': 'local_shell_call' })
      }
      case 'web_search_call': {
        const synth = typeof p.call_id !== 'string'
        const callId = synth ? `${recordId(this.o.sid, loc)}#call` : p.call_id
        return this.toolUse(callId, 'web_search', p.action ?? {}, false, p, loc, ts, text, no, { 'codex.item': 'web_search_call', ...(synth ? { 'codex.synthetic_call_id': true } : {}) })
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        return this.toolOutput(p, loc, ts, text, no)
      case 'agent_message':
        return this.agentMessage(p, loc, ts, text, no)
      default:
        return this.emitNative({ timestamp: ts }, no, text, `codex/response_item:${p.type}`, loc)
    }
  }

  private chatMessage(p: any, loc: string, ts: string | null, text: string, no: number): void {
    const blocks = contentBlocks(p.content)
    const role = p.role
    if (role === 'assistant') {
      const extra = this.assistantExtra(p)
      if (typeof p.phase === 'string') extra.x = { 'codex.phase': p.phase }
      return this.emitMessage(this.message('assistant', blocks, loc, ts, text, no, extra))
    }
    if (role === 'user') {
      const injected = harnessItems(p)
      if (injected) {
        // Injected items and the person's words in one message: the context is its own record, the words stay a prompt.
        const ctxBlocks = blocks.filter((_, i) => injected.has(i))
        const kind = userContextKind({}, ctxBlocks.map((b) => (b.type === 'text' ? b.text : '')).join('')) ?? 'other'
        this.emit({ kind: 'message', sid: this.o.sid, id: recordId(this.o.sid, `${loc}#context`), role: 'user', ts, context: true, context_kind: kind, blocks: ctxBlocks })
        return this.emitMessage(this.message('user', blocks.filter((_, i) => !injected.has(i)), loc, ts, text, no))
      }
      const plain = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
      const kind = userContextKind(p, plain)
      const extra: Partial<MessageRec> = kind ? { context: true, context_kind: kind } : {}
      if (typeof p.internal_chat_message_metadata_passthrough?.turn_id === 'string') extra.turn = p.internal_chat_message_metadata_passthrough.turn_id
      return this.emitMessage(this.message('user', blocks, loc, ts, text, no, extra))
    }
    // developer / system: harness instructions, not conversation.
    const extra: Partial<MessageRec> = { context: true, context_kind: 'instructions', x: { 'codex.role': String(role) } }
    return this.emitMessage(this.message('system', blocks, loc, ts, text, no, extra))
  }

  private toolUse(callId: string, name: string, input: unknown, custom: boolean, p: any, loc: string, ts: string | null, text: string, no: number, x?: Record<string, unknown>): void {
    if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value as string)
    this.open.set(callId, { name, custom })
    if (name === 'spawn_agent' && this.spawnCalls.size < MAX_OPEN) this.spawnCalls.add(callId)
    this.toolUses++
    const extra = this.assistantExtra(p)
    if (x) extra.x = x
    return this.emitMessage(this.message('assistant', [{ type: 'tool_use', id: callId, name, input }], loc, ts, text, no, extra))
  }

  private toolOutput(p: any, loc: string, ts: string | null, text: string, no: number): void {
    const callId = typeof p.call_id === 'string' ? p.call_id : ''
    const call = this.open.get(callId)
    this.open.delete(callId)
    let content: ToolResultBlock['content'] = outputContent(p.output)
    if (this.spawnCalls.delete(callId) && typeof content === 'string') {
      // `{"task_name":"/root/x"}` (multi-agent v2; `/root` is the agent tree's top, not a path) or `{"agent_id":"…"}` (v1): who answers later.
      try {
        const o = JSON.parse(content)
        const who = typeof o?.task_name === 'string' ? o.task_name : typeof o?.agent_id === 'string' ? o.agent_id : undefined
        if (who && this.spawned.size < MAX_OPEN) this.spawned.set(who, callId)
      } catch {
        /* not JSON: an error text */
      }
    }
    let exit: number | undefined = call?.exit_code
    if (typeof content === 'string') {
      // Older shell tools wrapped the output as JSON: {"output": "...", "metadata": {"exit_code": N}}.
      if (content.startsWith('{"output":')) {
        try {
          const w = JSON.parse(content)
          if (typeof w.output === 'string') {
            content = w.output as string
            if (typeof w.metadata?.exit_code === 'number') exit ??= w.metadata.exit_code
          }
        } catch {
          /* keep as is */
        }
      }
      if (exit === undefined) exit = exitFromText(content)
    }
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: callId, content }
    if (exit !== undefined) {
      block.exit_code = exit
      block.is_error = exit !== 0
    } else if (Array.isArray(content) && content[0]?.type === 'text' && /^Script (failed|error)/i.test(content[0].text)) {
      block.is_error = true
    }
    if (call?.failed || (typeof content === 'string' && content.startsWith(FAILED_PREFIX))) block.is_error = true
    if (call?.nested?.length) block.structured = { 'codex.nested': call.nested }
    const x = p.type === 'custom_tool_call_output' ? { 'codex.item': 'custom_tool_call_output' } : undefined
    return this.emitMessage(this.message('user', [block], loc, ts, text, no, x ? { x } : {}))
  }

  /**
   * Multi-agent messages (`agent_message`, author → recipient): the task a
   * sub-agent thread starts with (`NEW_TASK`, its prompt), and the answer
   * it sends back to its parent (`FINAL_ANSWER`). In the parent the answer
   * is injected context of kind `subagent`, linked to the spawn_agent call
   * that started the sender (`codex.tool_use_id`). Encrypted payload parts
   * stay opaque (`unknown` blocks).
   */
  private agentMessage(p: any, loc: string, ts: string | null, text: string, no: number): void {
    const blocks = contentBlocks(p.content)
    const plain = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
    const type = /^Message Type: ([A-Z_]+)/.exec(plain)?.[1]
    const sender = typeof p.author === 'string' ? p.author : /^Sender: (.+)$/m.exec(plain)?.[1]
    const x: Record<string, unknown> = { 'codex.item': 'agent_message' }
    if (type) x['codex.message_type'] = type
    if (sender) x['codex.author'] = sender
    if (typeof p.recipient === 'string') x['codex.recipient'] = p.recipient
    const call = sender ? this.spawned.get(sender) : undefined
    if (call) x['codex.tool_use_id'] = call
    const extra: Partial<MessageRec> = { x }
    if (type !== 'NEW_TASK') [extra.context, extra.context_kind] = [true, 'subagent']
    const turn = p.internal_chat_message_metadata_passthrough?.turn_id
    if (typeof turn === 'string') extra.turn = turn
    return this.emitMessage(this.message('user', blocks, loc, ts, text, no, extra))
  }

  private event(p: any): void {
    switch (p.type) {
      case 'token_count':
        if (!this.sawUsageRecord) this.attachUsage(p.info?.last_token_usage)
        return
      case 'mcp_tool_call_end': {
        // `result` is `{"Ok": CallToolResult}` or `{"Err": "…"}`; a tool error is `Ok` with `isError`.
        const c = this.open.get(p.call_id)
        const r = p.result
        if (c && (p.status === 'failed' || (r && typeof r === 'object' && ('Err' in r || r.Ok?.isError === true || r.Ok?.is_error === true)))) c.failed = true
        return
      }
      case 'exec_command_end': {
        const c = this.open.get(p.call_id)
        if (c && typeof p.exit_code === 'number') c.exit_code = p.exit_code
        return
      }
      case 'item_completed': {
        const it = p.item
        // 0.171 ends an MCP call with a turn item (`McpToolCall`, `status: failed`, `result.isError`) and no
        // mcp_tool_call_end: its output item carries no flag either.
        if (it?.type === 'McpToolCall') {
          const c = this.open.get(it.id)
          if (c && (it.status === 'failed' || it.result?.isError === true || (it.error != null && it.error !== false))) c.failed = true
          return
        }
        if (!it || (it.type !== 'CommandExecution' && it.type !== 'FileChange')) return
        const direct = this.open.get(it.id)
        if (direct) {
          if (typeof it.exit_code === 'number') direct.exit_code = it.exit_code
          return
        }
        // Code mode: the nested call has its own id; it belongs to the open `exec` script call.
        const exec = this.lastOpenCustom()
        if (!exec) return
        exec.nested ??= []
        exec.nested.push(
          it.type === 'CommandExecution'
            ? stripUndef({ type: 'command', command: it.command, cwd: it.cwd, output: it.aggregated_output, exit_code: it.exit_code })
            : stripUndef({ type: 'file_change', changes: it.changes, status: it.status }),
        )
        return
      }
      default:
        return
    }
  }

  private lastOpenCustom(): OpenCall | undefined {
    let found: OpenCall | undefined
    for (const c of this.open.values()) if (c.custom && c.name === 'exec') found = c
    return found
  }

  private compacted(p: any, loc: string, ts: string | null, text: string, no: number): void {
    const history: any[] = Array.isArray(p.replacement_history) ? p.replacement_history : []
    let summary: string | undefined = typeof p.message === 'string' && p.message.trim() !== '' ? p.message : undefined
    // Remote compaction: the summary is an encrypted `compaction` item only the provider can read.
    // Never silence: the boundary says so in words a reader (and another client's model) can see.
    const encrypted = history.some((i) => i?.type === 'compaction' || i?.type === 'compaction_summary')
    if (summary === undefined && encrypted) summary = ENCRYPTED_SUMMARY
    const b: FerryRecord = {
      kind: 'boundary',
      sid: this.o.sid,
      id: recordId(this.o.sid, loc),
      type: 'compaction',
      ts,
      ...(summary !== undefined ? { summary } : {}),
      // Encrypted: the rollout still holds every earlier item, and they stay the live history in
      // another agent (the replacement history would leave it the prompts and an unreadable summary).
      replaces_history: !encrypted,
      ...(encrypted ? { x: { 'codex.encrypted_summary': true } } : {}),
    }
    if (this.o.native) b.native = this.nativeOf(text, no)
    this.emit(b)
    if (!Array.isArray(p.replacement_history) || encrypted) return
    let i = 0
    for (const item of p.replacement_history) {
      i++
      if (item?.type !== 'message') continue
      const role = item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system'
      const blocks = contentBlocks(item.content)
      // Same line as the boundary: no native of its own (the boundary's raw line covers it).
      this.emit({
        kind: 'message',
        sid: this.o.sid,
        id: recordId(this.o.sid, `${loc}#${i}`),
        role,
        ts,
        context: true,
        // The history the compaction kept (the summary message, earlier prompts): sinks tell the
        // summary itself by the boundary's summary text.
        context_kind: 'summary',
        blocks,
        x: { 'codex.replacement': true, ...(role === 'system' ? { 'codex.role': String(item.role) } : {}) },
      })
    }
  }

  private attachUsage(u: any): void {
    if (!u || typeof u !== 'object' || !this.held || this.held.usage) return
    this.held.usage = mapUsage(u)
  }

  private emitMessage(rec: MessageRec): void {
    this.messages++
    this.emit(rec)
  }

  /**
   * An assistant record waits, together with the native lines after it
   * (agent_message, token_count…), until a modelled record comes: the usage
   * line that belongs to it may be among them. At most HOLD records wait.
   */
  private emit(rec: FerryRecord): void {
    if (this.held) {
      if (rec.kind === 'native' && this.queue.length < HOLD) {
        this.queue.push(rec)
        return
      }
      this.flush()
    }
    if (rec.kind === 'message' && rec.role === 'assistant') this.held = rec
    else this.o.push(rec)
  }

  private flush(): void {
    if (!this.held) return
    const h = this.held
    this.held = null
    this.o.push(h)
    const q = this.queue
    this.queue = []
    for (const r of q) this.o.push(r)
  }
}

/** A sub-agent thread's link to its parent (`source.subagent.thread_spawn`, or `parent_thread_id`). */
function spawnParent(p: any): { parent?: SessionRec['parent'] } {
  const spawn = p?.source?.subagent?.thread_spawn
  const parent = typeof spawn?.parent_thread_id === 'string' ? spawn.parent_thread_id : typeof p?.parent_thread_id === 'string' ? p.parent_thread_id : undefined
  if (!parent) return {}
  const agent = typeof spawn?.agent_path === 'string' ? spawn.agent_path : typeof p?.agent_path === 'string' ? p.agent_path : undefined
  return { parent: { sid: `codex:${parent}`, kind: 'subagent', ...(agent ? { agent_id: agent } : {}) } }
}

export function mapUsage(u: any): Usage {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const input = num(u.input_tokens)
  const cached = num(u.cached_input_tokens) ?? 0
  return stripUndef({
    input_tokens: input === undefined ? undefined : Math.max(0, input - cached),
    output_tokens: num(u.output_tokens),
    cache_read_tokens: num(u.cached_input_tokens),
    cache_write_tokens: num(u.cache_write_input_tokens),
    reasoning_tokens: num(u.reasoning_output_tokens),
    total_tokens: num(u.total_tokens),
    scope: 'message' as const,
  })
}

function contentBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const out: Block[] = []
  for (const c of content) {
    if (c?.type === 'input_text' || c?.type === 'output_text' || c?.type === 'text') out.push({ type: 'text', text: String(c.text ?? '') })
    else if (c?.type === 'input_image') out.push(imageBlock(c.image_url))
    else out.push({ type: 'unknown', native_type: `codex/${String(c?.type)}`, value: c })
  }
  return out
}

function outputContent(output: unknown): ToolResultBlock['content'] {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) {
    const parts: ResultPart[] = []
    for (const c of output) {
      if (c?.type === 'input_image') parts.push(imageBlock(c.image_url))
      else parts.push({ type: 'text', text: typeof c?.text === 'string' ? c.text : '' })
    }
    return parts
  }
  if (output && typeof output === 'object' && typeof (output as any).content === 'string') return (output as any).content
  return output === undefined || output === null ? '' : JSON.stringify(output)
}

function imageBlock(url: unknown): ResultPart & { type: 'image' } {
  const s = typeof url === 'string' ? url : ''
  const m = /^data:([^;,]+);base64,/.exec(s.slice(0, 200))
  if (m) return { type: 'image', mime: m[1]!, data: s.slice(m[0].length) }
  return { type: 'image', mime: 'application/octet-stream', ref: { url: s } }
}

/** `Process exited with code N` (exec_command) or `Exit code: N` (apply_patch, shell) near the start. */
function exitFromText(s: string): number | undefined {
  const m = /(?:Process exited with code |^Exit code: )(-?\d+)/m.exec(s.length > 400 ? s.slice(0, 400) : s)
  return m ? Number(m[1]) : undefined
}

function redactUrl(u: unknown): string | undefined {
  if (typeof u !== 'string') return undefined
  return u.replace(/\/\/[^/@\s]*@/, '//')
}

function stripUndef<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k]
  return o
}
