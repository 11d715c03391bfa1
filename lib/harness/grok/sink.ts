/**
 * Writing ferry records as Grok session directories that `grok --resume`
 * can load: `<root>/sessions/<encoded cwd>/<uuid>/` with `summary.json`
 * (`chat_format_version: 1`, every field Grok's `Summary` requires),
 * `chat_history.jsonl` (what the model sees) and `updates.jsonl` (what the
 * screen replays), consistent with each other, user images under `assets/`.
 *
 * The whole directory is built in an AtomicDir and renamed into place. Lines
 * that arrive with Grok `native.raw` are written verbatim, so a Grok session
 * read with `native: true` comes back byte for byte; everything else is
 * written from the modelled fields. Because `updates.jsonl` raw lines follow
 * the conversation in the stream, both the raw and a generated display log
 * are spooled into the temp dir and one is kept at the end.
 */
import { createHash } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { chmod, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import { dirname, join, resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import { validate as isUuid } from 'uuid'
import { UnsafePathError } from '../../errors.js'
import { AtomicDir, exists, writeWholeFile } from '../../io/atomic.js'
import { resultText, sourceHarness, type Block, type BoundaryRec, type EndRec, type FerryRecord, type ImageBlock, type MessageRec, type SessionRec, type ToolUseBlock, failedResult, typedCommand } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { encodeCwdDirname, insideSession, sessionDirPath, store, uuidFor } from './paths.js'
import { extForMime, imageFilesBlock, wrapQuery } from './text.js'

/** Grok 1.0.6's built-in default model (xai-grok-models/default_models.json), used when the source model is not a Grok one. */
export const DEFAULT_MODEL = 'grok-4.6'

const SYNTHETIC_REASON: Record<string, string> = {
  reminder: 'system_reminder',
  instructions: 'project_instructions',
  summary: 'compaction_meta',
  environment: 'system_reminder',
}

/** ACP `kind` of a tool call on screen, from its Grok name. */
function acpKind(name: string): string {
  if (/^(read_file|Read|read_file_v2)$/.test(name)) return 'read'
  if (/^(search_replace|StrReplace|Write|write|edit_file|Edit|MultiEdit)$/.test(name)) return 'edit'
  if (/^(run_terminal_cmd|Shell|Bash)$/.test(name)) return 'execute'
  if (/^(grep|Grep|Glob|glob_file_search|list_dir|LS)$/.test(name)) return 'search'
  if (/^(web_search|WebSearch|WebFetch|web_fetch)$/.test(name)) return 'fetch'
  if (/^(Delete|delete_file)$/.test(name)) return 'delete'
  return 'other'
}

function stopToNative(m: MessageRec): string {
  if (m.native_stop_reason) return m.native_stop_reason
  switch (m.stop_reason) {
    case 'aborted':
      return 'cancelled'
    case 'max_tokens':
      return 'max_tokens'
    case 'refusal':
      return 'refusal'
    case 'error':
      return 'error'
    default:
      return 'end_turn'
  }
}

const isGrokNative = (r: FerryRecord): boolean => 'native' in r && r.native?.raw !== undefined && r.native.format.startsWith('grok/')

class Spool {
  readonly stream: WriteStream
  lines = 0
  // The first write error (ENOSPC, EIO): thrown by line()/close(), so the session fails and is aborted; never an unhandled event.
  private error: Error | null = null
  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: 'wx', mode: 0o600 })
    this.stream.on('error', (err) => {
      this.error ??= err
    })
  }
  async line(text: string): Promise<void> {
    if (this.error) throw this.error
    this.lines++
    if (!this.stream.write(text + '\n') && !this.error) await once(this.stream, 'drain')
    if (this.error) throw this.error
  }
  async close(): Promise<void> {
    if (!this.stream.closed) {
      this.stream.end()
      await once(this.stream, 'close')
    }
    if (this.error) throw this.error
  }
}

/**
 * A session that exists (without force) or whose path would be unsafe makes
 * openSession throw; SessionSink applies the one sink policy to it.
 */
export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const root = store.root(ctx)
  return new SessionSink(ctx, 'grok', (header) => openSession(ctx, opts, root, header))
}

async function openSession(ctx: StoreContext, opts: WriteOpts, rootIn: string, header: SessionRec): Promise<SessionWriter> {
  const root = resolve(opts.out ?? rootIn)
  const source = sourceHarness(header)
  const same = source === 'grok'
  const id = same && isUuid(header.native_id) ? header.native_id.toLowerCase() : uuidFor(header.sid)
  const cwd = header.cwd && header.cwd.startsWith('/') && !header.cwd.includes('\0') ? header.cwd : ctx.home
  const { name: group, hashed } = encodeCwdDirname(cwd)
  const dir = sessionDirPath(root, group, id)
  const groupDir = dirname(dir)
  await mkdir(groupDir, { recursive: true, mode: 0o700 })
  // A symlinked group dir would let a replace land outside the store.
  if ((await lstat(groupDir)).isSymbolicLink() || (await lstat(dirname(groupDir))).isSymbolicLink()) {
    throw new UnsafePathError(`refusing to write through a symlink: ${groupDir}`, groupDir)
  }
  if (hashed && !(await exists(join(groupDir, '.cwd')))) await writeWholeFile(join(groupDir, '.cwd'), cwd, { mode: 0o600 })
  const force = opts.force === true
  const adir = await AtomicDir.create(dir, { force, root })
  await chmod(adir.tmp, 0o700)
  return new GrokSessionWriter(ctx, header, source, id, cwd, dir, adir, force)
}

class GrokSessionWriter implements SessionWriter {
  private readonly chat: Spool
  private readonly updRaw: Spool
  private readonly updGen: Spool
  private promptIndex = -1
  private turnOpen = false
  private lastAssistant: MessageRec | null = null
  private event = 0
  private lastMs: number
  private firstMs: number | null = null
  private firstPrompt: string | undefined
  private model: string | undefined
  private readonly openCalls = new Map<string, string>()
  /** Calls in user messages (a person's slash commands): written as the typed text, their output is no tool result. */
  private readonly userCommands = new Set<string>()
  /** Every record had Grok raw text: the summary can be written back verbatim too. */
  private allRaw = true
  private sawModelled = false
  private onlyFromUpdates = true
  private messages = 0
  private rebuilt = 0
  private resultsSeen = false
  private assets = 0

  constructor(
    ctx: StoreContext,
    private readonly header: SessionRec,
    private readonly source: string,
    private readonly id: string,
    private readonly cwd: string,
    private readonly dir: string,
    private readonly adir: AtomicDir,
    private readonly force: boolean,
  ) {
    this.chat = new Spool(join(adir.tmp, 'chat_history.jsonl'))
    this.updRaw = new Spool(join(adir.tmp, '.updates.raw'))
    this.updGen = new Spool(join(adir.tmp, '.updates.gen'))
    const created = header.created_at ? Date.parse(header.created_at) : NaN
    this.lastMs = Number.isFinite(created) ? created : Date.now()
    this.model = header.model
  }

  get destination(): string {
    return this.adir.path
  }

  private get same(): boolean {
    return this.source === 'grok'
  }

  private stamp(ts: string | null | undefined): number {
    const t = ts ? Date.parse(ts) : NaN
    if (Number.isFinite(t)) this.lastMs = t
    this.firstMs ??= this.lastMs
    return this.lastMs
  }

  private async update(ms: number, update: Record<string, unknown>, xai = false): Promise<void> {
    this.event++
    const params: Record<string, unknown> = { sessionId: this.id, update }
    if (!xai) params._meta = { eventId: `${this.id}-${String(this.event).padStart(4, '0')}`, agentTimestampMs: ms }
    await this.updGen.line(JSON.stringify({ timestamp: Math.floor(ms / 1000), method: xai ? '_x.ai/session/update' : 'session/update', params }))
  }

  private modelId(): string {
    const m = this.model
    return m && /^grok/i.test(m) ? m : DEFAULT_MODEL
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'boundary') return this.boundary(rec)
    if (rec.kind !== 'message' && rec.kind !== 'native') return
    if (!(rec.kind === 'message' && rec.role === 'assistant' && !isGrokNative(rec))) await this.flushHeld()
    if (this.compactionSummary !== null) {
      // The summary message itself follows the boundary (its text holds the summary), or the history
      // the compaction kept does: then the summary goes first.
      const own = rec.kind === 'message' && rec.context === true && rec.context_kind === 'summary' && (this.compactionSummary === '' || rec.blocks.some((b) => b.type === 'text' && b.text.includes(this.compactionSummary!.trim())))
      if (!own) await this.writeSummary()
      else this.compactionSummary = null
    }
    const raw = isGrokNative(rec) ? rec.native! : undefined
    // Messages Grok's rebuild derived from updates.jsonl are carried by its raw lines.
    const rebuilt = rec.kind === 'message' && !raw && rec.native?.file === 'updates' && rec.native.format.startsWith('grok/')
    if (rebuilt) this.rebuilt++
    else if (!raw) this.allRaw = false
    if (rec.kind === 'native') {
      if (!raw) return
      if (raw.file === 'updates') await this.updRaw.line(raw.raw!)
      else if (raw.file === 'chat_history') await this.chat.line(raw.raw!)
      // Empty logs come as whole files; their presence is restored from the header at finish.
      else if (rec.native_type === 'grok/file' && raw.file && raw.file !== 'chat_history.jsonl' && raw.file !== 'updates.jsonl') await this.sidecar(raw.file, raw.raw!, rec.x?.['grok.encoding'] === 'base64')
      return
    }
    this.messages++
    if (rec.native?.file !== 'updates') this.onlyFromUpdates = false
    if (raw && raw.file === 'chat_history') await this.chat.line(raw.raw!)
    else if (rec.native?.file !== 'updates' || !rec.native.format.startsWith('grok/')) this.sawModelled = true
    await this.message(rec, raw !== undefined && raw.file === 'chat_history')
  }

  private async sidecar(rel: string, data: string, base64: boolean): Promise<void> {
    const path = insideSession(this.adir.tmp, rel)
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    await writeFile(path, base64 ? Buffer.from(data, 'base64') : data, { flag: 'wx', mode: 0o600 })
  }

  /** One message: chat lines (unless written raw already) and its display updates. */
  private async message(m: MessageRec, chatWritten: boolean): Promise<void> {
    const ms = this.stamp(m.ts)
    if (m.role === 'system') return
    if (m.role === 'assistant') return this.assistant(m, ms, chatWritten)
    const results = m.blocks.filter((b) => b.type === 'tool_result')
    // A call in the user's own message is a command the person typed (Claude Code's `/review …`): Grok has no such call, so it is the typed text.
    const prompt = m.blocks.flatMap((b) => (b.type === 'text' || b.type === 'image' ? [b] : b.type === 'tool_use' ? (this.userCommands.add(b.id), [{ type: 'text' as const, text: typedCommand(b) }]) : []))
    for (const r of results) {
      if (r.type !== 'tool_result' || this.userCommands.delete(r.tool_use_id)) continue
      this.openCalls.delete(r.tool_use_id)
      this.resultsSeen = true
      const text = resultText(r.content)
      if (!chatWritten) {
        const images = Array.isArray(r.content) ? r.content.filter((p): p is ImageBlock => p.type === 'image' && !!p.data) : []
        await this.chat.line(JSON.stringify({ type: 'tool_result', tool_call_id: r.tool_use_id, content: text, ...(images.length ? { images: images.map((i) => ({ type: 'image', url: `data:${i.mime};base64,${i.data}` })) } : {}) }))
      }
      await this.update(ms, { sessionUpdate: 'tool_call_update', toolCallId: r.tool_use_id, status: failedResult(r) ? 'failed' : 'completed', content: [{ type: 'content', content: { type: 'text', text } }] })
    }
    if (!prompt.length) return
    if (m.context && !this.same && !chatWritten && (m.context_kind === 'summary' || m.context_kind === 'subagent')) {
      // A compaction summary or a sub-agent's answer from another agent: what the user saw, so the model sees it too.
      const text = prompt.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n\n')
      if (text) await this.chat.line(JSON.stringify({ type: 'user', content: [{ type: 'text', text }], synthetic_reason: m.context_kind === 'summary' ? 'compaction_meta' : 'system_reminder' }))
      return
    }
    if (m.context) {
      // Another agent's injected context means nothing to Grok, which builds its own.
      if (!this.same || chatWritten) return
      const reason = typeof m.x?.['grok.synthetic_reason'] === 'string' ? (m.x['grok.synthetic_reason'] as string) : undefined
      const texts = prompt.filter((b) => b.type === 'text').map((b) => ({ type: 'text', text: (b as { text: string }).text }))
      const isPreamble = !reason && texts.some((t) => t.text.trimStart().startsWith('<user_info>'))
      const synthetic = reason ?? (isPreamble ? undefined : (SYNTHETIC_REASON[m.context_kind ?? ''] ?? 'system_reminder'))
      await this.chat.line(JSON.stringify({ type: 'user', content: texts, ...(synthetic ? { synthetic_reason: synthetic } : {}) }))
      return
    }
    await this.closeTurn(ms)
    this.promptIndex++
    this.turnOpen = true
    const text = prompt.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n\n')
    this.firstPrompt ??= text
    const images = prompt.filter((b): b is ImageBlock => b.type === 'image' && typeof b.data === 'string' && b.data !== '')
    if (!chatWritten) {
      const paths: string[] = []
      for (const img of images) {
        this.assets++
        const name = `image-${uuidFor(`${this.id}:${m.id}:${this.assets}`)}.${extForMime(img.mime)}`
        await this.sidecar(`assets/${name}`, img.data!, true)
        paths.push(join(this.dir, 'assets', name))
      }
      const body = (paths.length ? imageFilesBlock(paths) + '\n\n' : '') + wrapQuery(text)
      const content = [{ type: 'text', text: body }, ...images.map((i) => ({ type: 'image', url: `data:${i.mime};base64,${i.data}` }))]
      await this.chat.line(JSON.stringify({ type: 'user', content, prompt_index: this.promptIndex }))
    }
    const meta = { modelId: this.modelId(), promptIndex: this.promptIndex }
    for (const b of prompt) {
      if (b.type === 'text') await this.update(ms, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: b.text }, _meta: meta })
      else if (b.data) await this.update(ms, { sessionUpdate: 'user_message_chunk', content: { type: 'image', data: b.data, mimeType: b.mime }, _meta: meta })
    }
  }

  private async assistant(m: MessageRec, ms: number, chatWritten: boolean): Promise<void> {
    if (m.model) this.model = m.model
    // The model spoke again after results came back: calls still open never got one.
    if (this.resultsSeen) await this.settleCalls(ms)
    const calls: Array<{ id: string; name: string; arguments: string; input: unknown }> = []
    let text = ''
    for (const b of m.blocks) {
      if (b.type === 'thinking') {
        if (!chatWritten && b.encrypted && b.provider === 'xai') {
          const rid = typeof m.x?.['grok.reasoning_id'] === 'string' ? (m.x['grok.reasoning_id'] as string) : `rs_${createHash('sha256').update(m.id).digest('hex').slice(0, 16)}`
          await this.chat.line(JSON.stringify({ type: 'reasoning', id: rid, summary: b.text ? [{ type: 'summary_text', text: b.text }] : [], encrypted_content: b.encrypted }))
        }
        if (b.text) await this.update(ms, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: b.text } })
      } else if (b.type === 'text') {
        text += (text ? '\n\n' : '') + b.text
      } else if (b.type === 'tool_use') {
        const n = toNative('grok', b as ToolUseBlock, this.source)
        // A Grok string input is arguments that never parsed: keep it as it was.
        const args = typeof n.input === 'string' && this.same ? n.input : JSON.stringify(n.input ?? {})
        calls.push({ id: b.id, name: n.name, arguments: args, input: n.input })
      } else if (b.type === 'unknown' && b.native_type === 'grok/backend_tool_call' && this.same && !chatWritten) {
        await this.chat.line(JSON.stringify(b.value))
      }
    }
    if (!chatWritten && (text || calls.length)) {
      // Assistant records that follow each other are one model response (an OpenAI-style source keeps each
      // call of a parallel response as an item of its own): one assistant line holds all of its tool calls.
      const h = this.held
      if (h && !this.same) {
        h.content += (h.content && text ? '\n\n' : '') + text
        h.tool_calls.push(...calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })))
        if (m.model) h.model_id = m.model
      } else {
        await this.flushHeld()
        this.held = {
          type: 'assistant',
          content: text,
          tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
          ...(m.model ? { model_id: m.model } : {}),
          ...(this.same && typeof m.x?.['grok.model_fingerprint'] === 'string' ? { model_fingerprint: m.x['grok.model_fingerprint'] } : {}),
        }
      }
    }
    if (text) await this.update(ms, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
    for (const c of calls) {
      this.openCalls.set(c.id, c.name)
      await this.update(ms, { sessionUpdate: 'tool_call', toolCallId: c.id, title: c.name, kind: acpKind(c.name), status: 'pending', rawInput: c.input ?? {} })
    }
    if (text || calls.length) this.lastAssistant = m
  }

  /** Results for calls that never got one: Grok needs a `tool_result` after every call. */
  private async settleCalls(ms: number): Promise<void> {
    for (const [callId] of this.openCalls) {
      if (this.sawModelled) await this.chat.line(JSON.stringify({ type: 'tool_result', tool_call_id: callId, content: '[interrupted: no result was recorded]' }))
      await this.update(ms, { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: '[interrupted: no result was recorded]' } }] })
    }
    this.openCalls.clear()
    this.resultsSeen = false
  }

  /** Ends the open turn: settles open calls, then `turn_completed`. */
  private async closeTurn(ms: number): Promise<void> {
    await this.settleCalls(ms)
    if (!this.turnOpen) return
    const stop = this.lastAssistant ? stopToNative(this.lastAssistant) : 'cancelled'
    await this.update(ms, { sessionUpdate: 'turn_completed', prompt_id: uuidFor(`${this.id}:prompt:${this.promptIndex}`), stop_reason: stop }, true)
    this.turnOpen = false
    this.lastAssistant = null
  }

  /** The assistant line held back so that the records of one response join it. */
  private held: { type: 'assistant'; content: string; tool_calls: Array<{ id: string; name: string; arguments: string }>; model_id?: string; model_fingerprint?: unknown } | null = null
  /** Summary of a compaction just seen, written unless the summary message follows. */
  private compactionSummary: string | null = null

  private async flushHeld(): Promise<void> {
    const h = this.held
    this.held = null
    if (!h) return
    const { tool_calls, ...rest } = h
    await this.chat.line(JSON.stringify({ ...rest, ...(tool_calls.length ? { tool_calls } : {}) }))
  }

  /**
   * Grok's own compaction records (checkpoints) cannot be written from another
   * agent's session; the summary goes in as the context message Grok uses for
   * one (`synthetic_reason: compaction_meta`): visible, never silence.
   */
  private async boundary(rec: BoundaryRec): Promise<void> {
    if (rec.type !== 'compaction' || this.same) return
    await this.flushHeld()
    if (this.compactionSummary !== null) await this.writeSummary()
    this.compactionSummary = rec.summary?.trim() ? rec.summary : ''
  }

  private async writeSummary(): Promise<void> {
    const s = this.compactionSummary
    this.compactionSummary = null
    const text = s ? `[The conversation was compacted here. Summary of the earlier part:]\n${s}` : '[ferry] The conversation was compacted here; the source kept no readable summary. The turns before this point are kept above.'
    await this.chat.line(JSON.stringify({ type: 'user', content: [{ type: 'text', text }], synthetic_reason: 'compaction_meta' }))
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    try {
      await this.flushHeld()
      if (this.compactionSummary !== null) await this.writeSummary()
      await this.closeTurn(this.lastMs)
      await Promise.all([this.chat.close(), this.updRaw.close(), this.updGen.close()])
      const x = this.header.x ?? {}
      const tmp = this.adir.tmp
      if (this.rebuilt > 0 && this.updRaw.lines === 0) this.allRaw = false
      // The display log: Grok's own lines when they came along, else the one built from the messages.
      let updates: Spool | null = this.updRaw.lines > 0 ? this.updRaw : this.updGen
      if (this.updRaw.lines === 0 && this.allRaw && this.same && x['grok.updates'] !== 'present') updates = null
      if (updates) await rename(updates.path, join(tmp, 'updates.jsonl'))
      else if (x['grok.updates'] === 'empty') await writeFile(join(tmp, 'updates.jsonl'), '', { mode: 0o600 })
      await rm(this.updRaw.path, { force: true })
      await rm(this.updGen.path, { force: true })
      // A session Grok had rebuilt from updates.jsonl only: leave the model log as it was (absent or empty).
      if (this.same && this.updRaw.lines > 0 && this.onlyFromUpdates && x['grok.chat_history'] !== 'present') {
        await rm(this.chat.path, { force: true })
        if (x['grok.chat_history'] === 'empty' && !(await exists(this.chat.path))) await writeFile(this.chat.path, '', { mode: 0o600 })
      }
      const title = end?.title ?? this.header.title
      const summaryRaw = this.header.native?.raw !== undefined && this.header.native.format === 'grok/summary.json' && this.same ? this.header.native.raw : undefined
      const summary = this.allRaw && summaryRaw !== undefined ? summaryRaw : this.summaryJson(summaryRaw, updates?.lines ?? 0, end)
      await writeFile(join(tmp, 'summary.json'), summary, { flag: 'wx', mode: 0o600 })
      await this.adir.commit({ force: this.force })
      return { harness: 'grok', id: this.id, path: this.dir, from: this.header.sid, ...(title ? { title } : {}) }
    } catch (err) {
      await this.adir.abort()
      throw err
    }
  }

  /** summary.json in the field order of Grok's `Summary` struct (serde pretty print, no trailing newline). */
  private summaryJson(raw: string | undefined, numMessages: number, end?: EndRec): string {
    let base: Record<string, unknown> = {}
    if (raw !== undefined) {
      try {
        base = JSON.parse(raw)
      } catch {
        base = {}
      }
    }
    const h = this.header
    const created = h.created_at ?? new Date(this.firstMs ?? this.lastMs).toISOString()
    const updated = end?.updated_at ?? h.updated_at ?? new Date(this.lastMs).toISOString()
    const title = (end?.title ?? h.title)?.trim()
    const firstLine = (this.firstPrompt ?? '').split('\n')[0]!.slice(0, 200)
    const s: Record<string, unknown> = {
      info: { id: this.id, cwd: this.cwd },
      session_summary: typeof base.session_summary === 'string' && base.session_summary ? base.session_summary : firstLine,
      created_at: created,
      updated_at: updated,
      num_messages: numMessages,
      num_chat_messages: this.chat.lines,
      current_model_id: this.same && typeof base.current_model_id === 'string' ? base.current_model_id : this.modelId(),
      next_trace_turn: typeof base.next_trace_turn === 'number' ? base.next_trace_turn : 0,
      chat_format_version: 1,
    }
    const git = h.git ?? {}
    // A title that was only ever Grok's session_summary stays one; others are the display title.
    const fromSummary = h.title_source === 'summary' || !title
    if (fromSummary && title) s.session_summary = title
    const extra: Record<string, unknown> = {
      git_remotes: git.remote ? [git.remote] : undefined,
      head_commit: git.commit,
      head_branch: git.branch,
      last_active_at: updated,
      generated_title: fromSummary ? undefined : title,
      title_is_manual: !fromSummary && h.title_source === 'custom' ? true : undefined,
    }
    const out: Record<string, unknown> = { ...s }
    // Keep what a Grok summary knew (lineage, git root, agent, …) unless ferry restates it.
    for (const [k, v] of Object.entries(base)) if (!(k in out) && !(k in extra)) out[k] = v
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v
    else if (k in base) out[k] = base[k]
    return JSON.stringify(out, null, 2)
  }

  async abort(): Promise<void> {
    await Promise.allSettled([this.chat.close(), this.updRaw.close(), this.updGen.close()])
    await this.adir.abort()
  }
}
