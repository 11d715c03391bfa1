/**
 * The Codex sink: common records → a rollout that `codex resume` loads.
 *
 * Same-harness records that still carry their original line (`native.raw`)
 * are written verbatim, so an untouched Codex session comes back byte for
 * byte (keeping its id). Everything else is written as Codex 0.171 writes a
 * new thread, in paginated history mode (`history_mode: "paginated"`, an
 * ordinal on every line): `session_meta`, a `turn_context` per prompt,
 * `response_item` messages, `function_call` / `custom_tool_call` (apply_patch)
 * with their outputs, the turn items as `event_msg` `item_completed`
 * (`UserMessage` per prompt, which listings read; `AgentMessage` beside each
 * assistant text) and `token_count` for usage. Tool calls go through the
 * shared tool table (`toNative`).
 */
import { join } from 'node:path'
import type { StoreContext } from '../../context.js'
import { UnsafePathError } from '../../errors.js'
import { AtomicFile } from '../../io/atomic.js'
import { failedResult, sourceHarness, type Block, type BoundaryRec, type FerryRecord, type MessageRec, type SessionRec, type ToolResultBlock, type ToolUseBlock, typedCommand } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import { readCodexConfig, type CodexConfig } from './config.js'
import { DEFAULT_MODEL, DEFAULT_PROVIDER, type WriteOpts } from './flags.js'
import { FAILED_PREFIX } from './mapping.js'
import { derivedUuidV7, isUuid } from './ids.js'
import { rolloutRelPath, store } from './paths.js'

/** The Codex version whose resume we verified these lines against. */
export const WRITTEN_CLI_VERSION = '0.171.0'
const FLUSH_AT = 256 * 1024

/**
 * Every session is opened by RolloutWriter.open, which throws ExistsError
 * (no force) or UnsafePathError (an id that is not a UUID); SessionSink turns
 * that into the one sink policy (reported, skipped, NotWrittenError at the end).
 */
export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const root = store.root(ctx)
  let config: Promise<CodexConfig> | null = null
  return new SessionSink(ctx, 'codex', async (header) => {
    config ??= readCodexConfig(root, ctx.diagnostics)
    return RolloutWriter.open(ctx, opts.out ?? root, header, opts, await config)
  })
}

const ORDINAL_PREFIX = /^(\{"timestamp":"[^"]*",)"ordinal":(\d+),/

class RolloutWriter implements SessionWriter {
  private pending = ''
  private lineNo = 0
  private lastTs: string
  private turnNo = 0
  private turnOpen = false
  private turnId = ''
  private items = 0
  private lastRawLine = -1
  private compaction: { payload: Record<string, unknown>; ts: string; history: unknown[] } | null = null
  private skipReplacement = false
  private readonly customCalls = new Set<string>()

  private constructor(
    private readonly file: AtomicFile,
    private readonly header: SessionRec,
    private readonly id: string,
    private readonly source: string,
    private readonly useOrdinals: boolean,
    private readonly model: string,
    private readonly cwd: string,
    private readonly force: boolean,
  ) {
    this.lastTs = isoOr(header.created_at, new Date().toISOString())
  }

  static async open(ctx: StoreContext, dir: string, header: SessionRec, opts: WriteOpts, config: CodexConfig): Promise<RolloutWriter> {
    const source = sourceHarness(header)
    const raw = sameFormatRaw(header)
    let id: string
    if (raw !== undefined) {
      // Restoring a Codex session verbatim: its session_meta names its id, so the file must too.
      id = header.native_id.toLowerCase()
      if (!isUuid(id)) throw new UnsafePathError(`codex: session id ${JSON.stringify(header.native_id)} is not a UUID; refusing to use it in a path`)
    }
    const created = new Date(isoOr(header.created_at, new Date().toISOString()))
    id ??= derivedUuidV7(header.sid, created)
    const path = join(dir, rolloutRelPath(id, created))
    const file = await AtomicFile.create(path, { force: opts.force === true, root: dir })
    const model = opts.model || (source === 'codex' && header.model) || config.model || DEFAULT_MODEL
    const cwd = header.cwd && header.cwd.startsWith('/') ? header.cwd : ctx.home
    // Ours are written as 0.171 writes (paginated, with ordinals); a verbatim restore keeps what its lines had.
    const useOrdinals = raw === undefined || ORDINAL_PREFIX.test(raw.slice(0, 120))
    const w = new RolloutWriter(file, header, id, source, useOrdinals, model, cwd, opts.force === true)
    if (raw !== undefined) {
      w.writeRaw(raw)
      w.lastRawLine = header.native?.line ?? 0
    } else {
      const provider = opts.provider || config.model_provider || DEFAULT_PROVIDER
      w.line(w.lastTs, 'session_meta', w.sessionMeta(provider))
    }
    return w
  }

  private sessionMeta(provider: string): Record<string, unknown> {
    const h = this.header
    const x = h.x ?? {}
    const meta: Record<string, unknown> = {
      id: this.id,
      timestamp: this.lastTs,
      cwd: this.cwd,
      originator: this.source === 'codex' && typeof x['codex.originator'] === 'string' ? x['codex.originator'] : 'codex_cli_rs',
      cli_version: WRITTEN_CLI_VERSION,
      // `cli` so the interactive picker lists it, whatever wrote the source.
      source: 'cli',
      model_provider: provider,
      base_instructions: null,
      history_mode: 'paginated',
    }
    const git: Record<string, string> = {}
    if (h.git?.commit) git.commit_hash = h.git.commit
    if (h.git?.branch) git.branch = h.git.branch
    if (h.git?.remote) git.repository_url = h.git.remote
    if (Object.keys(git).length) meta.git = git
    return meta
  }

  // ---- output helpers ------------------------------------------------------

  private async out(text: string): Promise<void> {
    this.pending += text
    if (this.pending.length >= FLUSH_AT) await this.drain()
  }

  private async drain(): Promise<void> {
    if (!this.pending) return
    const p = this.pending
    this.pending = ''
    await this.file.write(p)
  }

  private line(ts: string, type: string, payload: unknown): Promise<void> {
    const env = this.useOrdinals ? { timestamp: ts, ordinal: this.lineNo, type, payload } : { timestamp: ts, type, payload }
    this.lineNo++
    return this.out(JSON.stringify(env) + '\n')
  }

  private writeRaw(raw: string): Promise<void> {
    let text = raw
    if (this.useOrdinals) {
      const m = ORDINAL_PREFIX.exec(raw.slice(0, 120))
      // Keep ordinals contiguous when records were dropped or added on the way.
      if (m && Number(m[2]) !== this.lineNo) text = `${m[1]}"ordinal":${this.lineNo},${raw.slice(m[0].length)}`
    }
    this.lineNo++
    return this.out(text + '\n')
  }

  // ---- records -------------------------------------------------------------

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'stream' || rec.kind === 'session' || rec.kind === 'end') return
    const raw = sameFormatRaw(rec)
    if (this.compaction && raw === undefined && rec.kind === 'message' && rec.context === true && rec.context_kind === 'summary' && rec.x?.['codex.replacement'] !== true) {
      // Another agent's summary message right after its boundary (Claude Code's isCompactSummary line):
      // it is the summary of the `compacted` record, which Codex turns into the summary message on resume.
      const text = rec.blocks.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n')
      if (text) this.compaction.payload.message = text
      return this.flushCompaction()
    }
    if (this.compaction && !(rec.kind === 'message' && rec.x?.['codex.replacement'] === true)) await this.flushCompaction()
    if (raw !== undefined) {
      this.skipReplacement = rec.kind === 'boundary'
      this.lastRawLine = rec.native?.line ?? -1
      if (rec.kind === 'message' && rec.role === 'user' && !rec.context) this.turnOpen = true
      return this.writeRaw(raw)
    }
    // A second record made from a line already written verbatim.
    if (rec.native?.format?.startsWith('codex/') && rec.native.line === this.lastRawLine) return
    if (rec.kind === 'message' && rec.x?.['codex.replacement'] === true) {
      if (this.skipReplacement) return
      if (this.compaction) {
        this.compaction.history.push(...this.replacementItems(rec))
        return
      }
    }
    this.skipReplacement = false
    if ((rec.kind === 'message' || rec.kind === 'boundary') && rec.ts) this.lastTs = rec.ts
    switch (rec.kind) {
      case 'message':
        return this.message(rec)
      case 'boundary':
        return this.boundary(rec)
      default:
        // native records without their line, unknown kinds: nothing Codex can use.
        return
    }
  }

  private boundary(rec: BoundaryRec): void {
    if (rec.type !== 'compaction') return
    this.compaction = { payload: { message: rec.summary ?? '' }, ts: this.lastTs, history: [] }
  }

  private async flushCompaction(): Promise<void> {
    const c = this.compaction
    if (!c) return
    this.compaction = null
    await this.line(c.ts, 'compacted', c.history.length ? { ...c.payload, replacement_history: c.history } : c.payload)
  }

  private replacementItems(rec: MessageRec): unknown[] {
    const role = rec.role === 'system' ? String(rec.x?.['codex.role'] ?? 'developer') : rec.role
    const content = this.contentParts(rec.blocks, rec.role === 'assistant')
    return content.length ? [{ type: 'message', role, content }] : []
  }

  private async message(rec: MessageRec): Promise<void> {
    const ts = rec.ts ?? this.lastTs
    if (rec.role === 'assistant') return this.assistant(rec, ts)
    if (rec.context) {
      // Foreign injected context means nothing to Codex (it injects its own); summaries do.
      if (this.source !== 'codex' && rec.context_kind !== 'summary') return
      const role = rec.role === 'system' ? String(rec.x?.['codex.role'] ?? 'developer') : 'user'
      const content = this.contentParts(rec.blocks, false)
      if (content.length) await this.line(ts, 'response_item', { type: 'message', role, content })
      return
    }
    if (rec.role === 'system') return
    let run: Block[] = []
    const flushRun = async () => {
      if (!run.length) return
      const blocks = run
      run = []
      const content = this.contentParts(blocks, false)
      if (!content.length) return
      await this.startTurn(ts)
      await this.line(ts, 'response_item', { type: 'message', role: 'user', content })
      const input = blocks.flatMap((b): Record<string, unknown>[] => (b.type === 'text' ? [{ type: 'text', text: b.text, text_elements: [] }] : b.type === 'image' && b.data ? [{ type: 'image', image_url: `data:${b.mime};base64,${b.data}` }] : []))
      await this.turnItem(ts, { type: 'UserMessage', id: this.itemId(ts), content: input })
    }
    for (const b of rec.blocks) {
      if (b.type === 'tool_result') {
        await flushRun()
        await this.toolResult(b, ts, rec)
      } else if (b.type === 'tool_use') run.push({ type: 'text', text: typedCommand(b) })
      else run.push(b)
    }
    await flushRun()
  }

  private async startTurn(ts: string): Promise<void> {
    this.turnNo++
    this.turnOpen = true
    const turnId = derivedUuidV7(`${this.id}:turn:${this.turnNo}`, new Date(ts))
    this.turnId = turnId
    await this.line(ts, 'turn_context', {
      turn_id: turnId,
      cwd: this.cwd,
      approval_policy: 'on-request',
      sandbox_policy: { type: 'workspace-write' },
      model: this.model,
      summary: 'auto',
    })
  }

  private async assistant(rec: MessageRec, ts: string): Promise<void> {
    if (!this.turnOpen) await this.startTurn(ts)
    let text: Block[] = []
    const flushText = async () => {
      if (!text.length) return
      const content = this.contentParts(text, true)
      text = []
      if (content.length) {
        // The turn item first, then the response item with its id (as 0.171 writes them).
        const id = `msg_${this.itemId(ts)}`
        const said = content.flatMap((c: any) => (c?.type === 'output_text' ? [{ type: 'Text', text: c.text }] : []))
        if (said.length) await this.turnItem(ts, { type: 'AgentMessage', id, content: said })
        const item: Record<string, unknown> = { type: 'message', role: 'assistant', content, ...(said.length ? { id } : {}) }
        if (this.source === 'codex' && typeof rec.x?.['codex.phase'] === 'string') item.phase = rec.x['codex.phase']
        await this.line(ts, 'response_item', item)
      }
    }
    for (const b of rec.blocks) {
      if (b.type === 'text' || b.type === 'image' || b.type === 'unknown') {
        text.push(b)
        continue
      }
      await flushText()
      if (b.type === 'thinking') {
        // Reasoning is provider-bound: only a Codex/OpenAI block with its encrypted payload goes back.
        if (this.source === 'codex' && b.provider === 'openai' && b.encrypted) {
          await this.line(ts, 'response_item', {
            type: 'reasoning',
            summary: b.text ? [{ type: 'summary_text', text: b.text }] : [],
            content: null,
            encrypted_content: b.encrypted,
          })
        }
      } else if (b.type === 'tool_use') await this.toolUse(b, ts, rec)
    }
    await flushText()
    if (rec.usage) {
      const u = rec.usage
      const last: Record<string, number> = {
        input_tokens: (u.input_tokens ?? 0) + (u.cache_read_tokens ?? 0),
        cached_input_tokens: u.cache_read_tokens ?? 0,
        output_tokens: u.output_tokens ?? 0,
        total_tokens: u.total_tokens ?? (u.input_tokens ?? 0) + (u.cache_read_tokens ?? 0) + (u.output_tokens ?? 0),
      }
      // Only what the source knew, so a second read gives the same usage.
      if (u.cache_write_tokens !== undefined) last.cache_write_input_tokens = u.cache_write_tokens
      if (u.reasoning_tokens !== undefined) last.reasoning_output_tokens = u.reasoning_tokens
      await this.line(ts, 'event_msg', { type: 'token_count', info: { total_token_usage: last, last_token_usage: last, model_context_window: null }, rate_limits: null })
    }
  }

  /** A turn item of paginated history (`event_msg` `item_completed`). */
  private turnItem(ts: string, item: Record<string, unknown>): Promise<void> {
    const ms = new Date(ts).getTime()
    return this.line(ts, 'event_msg', { type: 'item_completed', thread_id: this.id, turn_id: this.turnId, item, started_at_ms: ms, completed_at_ms: ms })
  }

  /** A stable id for the next item of this session. */
  private itemId(ts: string): string {
    return derivedUuidV7(`${this.id}:item:${++this.items}`, new Date(ts))
  }

  private async toolUse(b: ToolUseBlock, ts: string, rec: MessageRec): Promise<void> {
    const item = this.source === 'codex' ? rec.x?.['codex.item'] : undefined
    const { name, input } = toNative('codex', b, this.source)
    if (item === 'local_shell_call') {
      return this.line(ts, 'response_item', { type: 'local_shell_call', call_id: b.id, status: 'completed', action: input })
    }
    if (item === 'web_search_call') {
      const p: Record<string, unknown> = { type: 'web_search_call', status: 'completed', action: input }
      if (rec.x?.['codex.synthetic_call_id'] !== true) p.call_id = b.id
      return this.line(ts, 'response_item', p)
    }
    if (typeof input === 'string' && (item === 'custom_tool_call' || name === 'apply_patch')) {
      this.customCalls.add(b.id)
      return this.line(ts, 'response_item', { type: 'custom_tool_call', status: 'completed', call_id: b.id, name, input })
    }
    const p: Record<string, unknown> = { type: 'function_call', name, arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}), call_id: b.id }
    if (this.source === 'codex' && typeof rec.x?.['codex.namespace'] === 'string') p.namespace = rec.x['codex.namespace']
    return this.line(ts, 'response_item', p)
  }

  private toolResult(b: ToolResultBlock, ts: string, rec: MessageRec): Promise<void> {
    const custom = this.customCalls.delete(b.tool_use_id) || (this.source === 'codex' && rec.x?.['codex.item'] === 'custom_tool_call_output')
    // Content-part arrays are what Codex itself writes for code-mode outputs; keep the shape.
    let output: unknown = typeof b.content === 'string' ? b.content : this.contentParts(b.content, false)
    // Codex keeps no success flag on an output: a foreign failure is said in its text, as Codex's own shell says it.
    if (this.source !== 'codex' && failedResult(b)) output = failureText(b, output)
    return this.line(ts, 'response_item', { type: custom ? 'custom_tool_call_output' : 'function_call_output', call_id: b.tool_use_id, output })
  }

  /** Content parts of a Responses-API message. */
  private contentParts(blocks: Block[], assistant: boolean): unknown[] {
    const parts: unknown[] = []
    for (const b of blocks) {
      if (b.type === 'text') parts.push({ type: assistant ? 'output_text' : 'input_text', text: b.text })
      else if (b.type === 'image') {
        if (b.data) parts.push({ type: 'input_image', image_url: `data:${b.mime};base64,${b.data}` })
        else if (b.ref?.url) parts.push({ type: 'input_image', image_url: b.ref.url })
        else parts.push({ type: 'input_text', text: `[image: ${b.ref?.path ?? b.mime}]` })
      } else if (b.type === 'unknown' && this.source === 'codex' && b.native_type.startsWith('codex/')) parts.push(b.value)
    }
    return parts
  }

  async finish(): Promise<WrittenSession> {
    await this.flushCompaction()
    await this.drain()
    await this.file.commit({ force: this.force })
    return {
      harness: 'codex',
      id: this.id,
      path: this.file.path,
      from: this.header.sid,
      ...(this.header.title ? { title: this.header.title } : {}),
    }
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

/** The original line, when the record came from a Codex rollout and still has it. */
function sameFormatRaw(rec: FerryRecord): string | undefined {
  const n = (rec as { native?: { format?: string; raw?: string } }).native
  return n && typeof n.raw === 'string' && typeof n.format === 'string' && n.format.startsWith('codex/') ? n.raw : undefined
}

/** A failed result's output with the failure stated first (`Exit code: N`, which Codex's shell writes, or FAILED_PREFIX). */
function failureText(b: ToolResultBlock, output: unknown): unknown {
  const head = b.exit_code !== undefined && b.exit_code !== 0 ? `Exit code: ${b.exit_code}` : FAILED_PREFIX
  if (typeof output === 'string') return `${head}\n${output}`
  return [{ type: 'input_text', text: head }, ...(output as unknown[])]
}

function isoOr(s: string | null | undefined, fallback: string): string {
  if (!s) return fallback
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? fallback : d.toISOString()
}
