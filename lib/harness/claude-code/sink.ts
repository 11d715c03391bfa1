/**
 * Writing sessions as Claude Code transcripts that `claude --resume` loads.
 *
 * Two modes per session, chosen by where the records came from:
 *  - a Claude Code record carrying `native.raw` is written back verbatim
 *    (byte-identical round trip, side files included);
 *  - anything else is written from its modelled fields: one line per user or
 *    assistant entry, a linear uuid chain, every tool_use answered before the
 *    next assistant entry, tool names mapped through the shared tool table,
 *    thinking without a genuine Anthropic signature turned into text (or
 *    dropped), and a title anchored to the last entry.
 * Sub-agent sessions whose parent was written in the same run go to
 * `<parent id>/subagents/agent-<id>.jsonl` with their `.meta.json`.
 */
import { holdsHugeString, joinText, jsonPieces, type JoinedText } from '../../interchange/stringify.js'
import { createHash } from 'node:crypto'
import { chmod, rm } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { v5 as uuidV5, validate as isUuid } from 'uuid'
import type { StoreContext } from '../../context.js'
import { ExistsError, UnsafePathError } from '../../errors.js'
import { AtomicFile, StagedFile } from '../../io/atomic.js'
import {
  isObj, sourceHarness, type Block, type JsonObject, type BoundaryRec, type EndRec, type FerryRecord, type MessageRec, type ResultPart,
  type SessionRec, type ToolResultBlock, type ToolUseBlock,
  failedResult,
} from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { HARNESS, projectsDir, store } from './paths.js'
import { scanTop, str } from '../../io/json-bytes.js'
import { isSafeSlug, projectSlug } from './slug.js'

/**
 * ferry's namespace for the name-based (v5) UUIDs it writes (a fixed random
 * v4). Changing it, or the names hashed in it, changes every id ferry has
 * written, so re-writing a session would no longer find the same file.
 */
const FERRY_NS = '6f1d4c2a-8b3e-4f5a-9c7d-2e1b0a9f8c6d'

function v5(name: string): string {
  return uuidV5(name, FERRY_NS)
}

/** Short derived ids (agent ids, tool ids, message ids): a hex prefix of SHA-1. */
function shortHash(name: string, hexChars: number): string {
  return createHash('sha1').update(name, 'utf8').digest('hex').slice(0, hexChars)
}

/** Written as `version` when the source is another harness (the client we verified against). */
export const DEFAULT_VERSION = '2.1.332'
/** Context kinds a foreign harness injected that Claude Code re-creates on its own. */
const DROPPED_CONTEXT: ReadonlySet<string> = new Set(['environment', 'instructions', 'skill', 'attachment'])
const SAFE_FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}$/
const NO_RESULT = '[ferry] No result was recorded for this tool call.'

interface WrittenTarget {
  projectDir: string
  sessionId: string
  /** A written sub-agent (a sub-agent it spawned goes beside it, naming it `parentAgentId`). */
  agentId?: string
  /** Its `spawnDepth` (1: spawned by the main session). */
  depth?: number
}

export function safeToolId(id: string): string {
  const s = id.replace(/[^A-Za-z0-9_-]/g, '_')
  return s ? s : `toolu_ferry_${shortHash(id, 24)}`
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const dir = opts.out ? resolve(opts.out) : store.root(ctx)
  const written = new Map<string, WrittenTarget>()
  return new SessionSink(ctx, HARNESS, async (header) => ClaudeWriter.open(ctx, dir, header, opts, written))
}

class ClaudeWriter implements SessionWriter {
  private lastUuid: string | null = null
  /** Raw text of the last chain line written verbatim; its uuid is read only when needed. */
  private lastRawChain: string | null = null
  private lastTs: string
  private lastAssistantUuid: string | null = null
  /** The last line written is an assistant line of ours (a following assistant record continues its response). */
  private lastLineAssistant = false
  private lastApiId: string | null = null
  /** Source tool_use id → written id, for calls not yet answered. */
  private readonly open = new Map<string, string>()
  private pendingCmd: string | null = null
  /** User content held back while tool calls are open (results must come first). */
  private deferred: Array<{ rec: MessageRec; content: JsonObject[]; isMeta: boolean }> = []
  private pendingSummary: string | null = null
  /** Summary text of the last compaction boundary, while the records after it are its kept history. */
  private boundarySummary: string | null = null
  private modelled = false
  /** A title record was among the lines written verbatim: do not add another. */
  private rawTitle = false
  private lines = 0
  private metaRaw: string | undefined
  /** Side files (tool-results, sub-agent meta), staged under temp names and committed with the session. */
  private readonly sideFiles: StagedFile[] = []
  private title: string | undefined
  private readonly source: string

  private constructor(
    private readonly ctx: StoreContext,
    private readonly header: SessionRec,
    private readonly opts: WriteOpts,
    private readonly file: AtomicFile,
    private readonly target: WrittenTarget,
    private readonly written: Map<string, WrittenTarget>,
    private readonly same: boolean,
    private readonly agentId: string | undefined,
    startTs: string,
    private readonly nest: { parentAgentId?: string; depth: number } = { depth: 1 },
  ) {
    this.source = sourceHarness(header)
    this.lastTs = startTs
    this.title = header.title
  }

  static async open(ctx: StoreContext, root: string, header: SessionRec, opts: WriteOpts, written: Map<string, WrittenTarget>): Promise<ClaudeWriter> {
    const same = sourceHarness(header) === HARNESS
    const startTs = header.created_at ?? header.updated_at ?? new Date().toISOString()
    const parent = header.parent?.kind === 'subagent' ? written.get(header.parent.sid) : undefined
    // (A sub-agent whose parent failed in this run never gets here: SessionSink skips it with its parent.)
    let path: string
    let target: WrittenTarget
    let agentId: string | undefined
    if (parent) {
      const fromName = same ? /^agent-([A-Za-z0-9_-]{1,64})$/.exec(header.native_id)?.[1] : undefined
      const fromLink = header.parent?.agent_id && /^[A-Za-z0-9_-]{1,64}$/.test(header.parent.agent_id) ? header.parent.agent_id : undefined
      agentId = fromName ?? fromLink ?? `a${shortHash(header.sid, 16)}`
      target = { projectDir: parent.projectDir, sessionId: parent.sessionId }
      path = join(parent.projectDir, parent.sessionId, 'subagents', `agent-${agentId}.jsonl`)
    } else {
      const sessionId = same && isUuid(header.native_id) ? header.native_id : v5(`session:${header.sid}`)
      const original = same && header.source.locator?.path ? basename(dirname(header.source.locator.path)) : undefined
      const dirName = original && isSafeSlug(original) && !header.parent ? original : projectSlug(header.cwd || ctx.home)
      target = { projectDir: join(projectsDir(root), dirName), sessionId }
      path = join(target.projectDir, `${sessionId}.jsonl`)
    }
    insideStore(root, path)
    let file: AtomicFile
    try {
      // The store root, not its projects folder: a symlinked `projects` must not carry the session out of it.
      file = await AtomicFile.create(path, { force: opts.force === true, root })
    } catch (err) {
      // The parent is already in the store (a re-run, or a run cut between parent and sub-agent):
      // its sub-agents still go under it, so a re-run completes the store instead of skipping them.
      if (err instanceof ExistsError) written.set(header.sid, agentId === undefined ? target : { ...target, agentId, depth: (parent?.depth ?? 0) + 1 })
      throw err
    }
    // Sub-agents of sub-agents sit in the same folder; their meta names the agent that spawned them.
    const nest = { ...(parent?.agentId ? { parentAgentId: parent.agentId } : {}), depth: (parent?.depth ?? 0) + 1 }
    return new ClaudeWriter(ctx, header, opts, file, target, written, same, agentId, startTs, nest)
  }

  private get sessionDir(): string {
    return join(this.target.projectDir, this.target.sessionId)
  }

  private async line(obj: JsonObject | string): Promise<void> {
    this.lines++
    if (typeof obj !== 'string' && holdsHugeString(obj)) {
      for (const p of jsonPieces(obj)) await this.file.write(p)
      await this.file.write('\n')
      return
    }
    await this.file.write(`${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`)
  }

  private parentUuid(): string | null {
    if (this.lastRawChain !== null) {
      const f = scanTop(Buffer.from(this.lastRawChain, 'utf8'), new Set(['uuid']))
      this.lastUuid = str(f?.uuid) ?? this.lastUuid
      this.lastRawChain = null
    }
    return this.lastUuid
  }

  private uuidFor(rec: { id: string }, k: number): string {
    const prefix = `${this.header.sid}:u`
    if (this.same && k === 0 && rec.id.startsWith(prefix) && isUuid(rec.id.slice(prefix.length))) return rec.id.slice(prefix.length)
    return v5(`${this.target.sessionId}:${rec.id}#${k}`)
  }

  private envelope(type: string, uuid: string, ts: string | null | undefined): JsonObject {
    if (ts) this.lastTs = ts
    const e: JsonObject = {
      parentUuid: this.parentUuid(),
      isSidechain: this.agentId !== undefined,
      userType: 'external',
      cwd: this.header.cwd || this.ctx.home,
      sessionId: this.target.sessionId,
      version: (this.same && this.header.source.agent_version) || DEFAULT_VERSION,
      gitBranch: this.header.git?.branch ?? '',
    }
    if (this.agentId !== undefined) e.agentId = this.agentId
    e.type = type
    return e
  }

  private async chainLine(e: JsonObject, uuid: string, extra: JsonObject = {}): Promise<void> {
    // Key order as the client writes it: envelope, type, message, flags, uuid, timestamp.
    const ts = this.lastTs
    await this.line({ ...e, ...extra, uuid, timestamp: ts })
    this.lastUuid = uuid
    this.lastRawChain = null
    this.modelled = true
    this.lastLineAssistant = false
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'stream') return
    const raw = rec.native?.raw
    if (this.same && raw !== undefined && rec.native!.format.startsWith(`${HARNESS}/`)) return this.writeRaw(rec, raw)
    if (rec.kind === 'message') return this.writeMessage(rec)
    if (rec.kind === 'boundary') return this.writeBoundary(rec)
    // native records of other formats, and unknown kinds: nothing to write.
  }

  private async writeRaw(rec: Exclude<FerryRecord, { kind: 'stream' }>, raw: string): Promise<void> {
    const n = rec.native!
    if (rec.kind === 'native' && rec.native_type === `${HARNESS}/subagent-meta`) {
      this.metaRaw = raw
      return
    }
    if (rec.kind === 'native' && rec.native_type === `${HARNESS}/tool-result-file`) {
      const name = n.file?.startsWith('tool-results/') ? n.file.slice('tool-results/'.length) : ''
      if (!SAFE_FILE.test(name)) {
        this.ctx.diagnostics.warn('side-file', `side file name refused: ${JSON.stringify(n.file)}`, { file: this.file.path }, HARNESS)
        return
      }
      const p = join(this.sessionDir, 'tool-results', name)
      this.sideFiles.push(await StagedFile.create(p, raw, { force: this.opts.force === true, root: dirname(this.target.projectDir) }))
      return
    }
    if (rec.kind === 'message' && rec.role === 'assistant') await this.flushOpen()
    this.lastLineAssistant = false
    if (rec.kind === 'native' && /^claude-code\/(custom-title|ai-title|summary)$/.test(rec.native_type)) this.rawTitle = true
    await this.line(raw)
    let last = raw
    for (const m of n.merged ?? []) {
      if (m.raw === undefined) continue
      await this.line(m.raw)
      last = m.raw
    }
    const inactive = rec.x?.[`${HARNESS}.inactive`] === true
    const chain = rec.kind === 'message' || rec.kind === 'boundary' || (rec.kind === 'native' && /^claude-code\/(system|attachment)/.test(rec.native_type))
    if (chain && !inactive) this.lastRawChain = last
    if (rec.kind === 'message') this.track(rec, true)
  }

  /** Keeps the set of open calls in step with records written verbatim. */
  private track(rec: MessageRec, raw: boolean): void {
    for (const b of rec.blocks) {
      if (b.type === 'tool_use' && rec.role === 'assistant' && raw) this.open.set(b.id, b.id)
      if (b.type === 'tool_result') this.open.delete(b.tool_use_id)
    }
  }

  /** Answers every open call with a synthetic error result (claude-code.md §5.5). */
  private async flushOpen(): Promise<void> {
    if (this.open.size && this.modelled) {
      for (const [, id] of this.open) {
        const uuid = v5(`${this.target.sessionId}:synthetic-result:${id}`)
        const e = this.envelope('user', uuid, null)
        await this.chainLine(e, uuid, {
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: NO_RESULT, is_error: true }] },
          ...(this.lastAssistantUuid ? { sourceToolAssistantUUID: this.lastAssistantUuid } : {}),
        })
      }
    }
    this.open.clear()
    await this.flushDeferred()
  }

  private async flushDeferred(): Promise<void> {
    const d = this.deferred
    this.deferred = []
    for (const item of d) await this.userLine(item.rec, item.content, item.isMeta, 1)
  }

  private async flushSummary(): Promise<void> {
    if (this.pendingSummary === null) return
    const text = this.pendingSummary
    this.pendingSummary = null
    const uuid = v5(`${this.target.sessionId}:summary:${this.lines}`)
    await this.chainLine(this.envelope('user', uuid, null), uuid, { message: { role: 'user', content: text }, isCompactSummary: true, isVisibleInTranscriptOnly: true })
  }

  private async writeBoundary(rec: BoundaryRec): Promise<void> {
    if (rec.type !== 'compaction') return
    await this.flushOpen()
    await this.flushSummary()
    const uuid = this.uuidFor(rec, 0)
    const logical = this.parentUuid()
    const e = this.envelope('system', uuid, rec.ts)
    e.parentUuid = null
    await this.chainLine(e, uuid, {
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      logicalParentUuid: logical,
      compactMetadata: { trigger: rec.trigger ?? 'auto', preTokens: rec.pre_tokens ?? 0 },
    })
    if (rec.summary) this.pendingSummary = rec.summary
    this.boundarySummary = rec.summary?.trim() ? rec.summary.trim() : null
  }

  private thinking(b: Extract<Block, { type: 'thinking' }>): JsonObject | null {
    const anthropic = b.provider === 'anthropic' || (b.provider === undefined && this.same)
    if (anthropic && b.redacted && b.encrypted) return { type: 'redacted_thinking', data: b.encrypted }
    if (anthropic && !b.redacted && b.signature) return { type: 'thinking', thinking: b.text, signature: b.signature }
    if (this.opts.thinking === 'drop' || !b.text.trim()) return null
    return { type: 'text', text: `[thinking]\n${b.text}` }
  }

  private toolUse(b: ToolUseBlock): JsonObject {
    const n = toNative(HARNESS, b, this.source)
    const id = safeToolId(b.id)
    this.open.set(b.id, id)
    const input = isObj(n.input) ? n.input : n.input === undefined || n.input === null ? {} : { input: n.input }
    return { type: 'tool_use', id, name: n.name, input }
  }

  private async writeMessage(rec: MessageRec): Promise<void> {
    if (rec.role === 'assistant') return this.writeAssistant(rec)
    if (rec.context && DROPPED_CONTEXT.has(String(rec.context_kind)) && !(this.same && rec.context_kind === 'summary')) return
    if (rec.role === 'system' && rec.context) return
    // History another agent's compaction kept besides its summary (Codex's replacement history: the
    // earlier prompts) goes after the summary, where the model sees it; the turns are before the boundary.
    const kept = !this.same && rec.context === true && rec.context_kind === 'summary' && this.boundarySummary !== null && !msgText(rec).includes(this.boundarySummary)
    const isSummary = rec.context === true && rec.context_kind === 'summary' && !kept
    if (isSummary) this.pendingSummary = null
    else await this.flushSummary()
    if (!rec.context || rec.context_kind !== 'summary') this.boundarySummary = null

    const results: Array<{ block: ToolResultBlock; id: string }> = []
    const content: JsonObject[] = []
    for (const b of rec.blocks) {
      if (b.type === 'tool_result') {
        const id = this.open.get(b.tool_use_id)
        if (id !== undefined) {
          results.push({ block: b, id })
          this.open.delete(b.tool_use_id)
        } else if (this.pendingCmd !== null && b.tool_use_id === this.pendingCmd) {
          this.pendingCmd = null
          const tag = failedResult(b) ? 'local-command-stderr' : 'local-command-stdout'
          content.push({ type: 'text', text: joinText(`<${tag}>`, resultTextOf(b.content), `</${tag}>`) })
        } else {
          content.push({ type: 'text', text: joinText(`[ferry] Result of an earlier tool call (${b.tool_use_id}):\n`, resultTextOf(b.content)) })
        }
      } else if (b.type === 'tool_use') {
        if (b.name.startsWith('/')) {
          const args = isObj(b.input) && typeof b.input.args === 'string' ? b.input.args : ''
          const name = b.name
          content.push({ type: 'text', text: `<command-name>${name}</command-name>\n            <command-message>${name.slice(1)}</command-message>\n            <command-args>${args}</command-args>` })
          this.pendingCmd = b.id
        } else content.push({ type: 'text', text: `[ferry] Tool call ${b.name}: ${JSON.stringify(b.input)}` })
      } else {
        const c = userBlock(b, this.same)
        if (c) content.push(c)
      }
    }
    let k = 0
    for (const r of results) {
      const uuid = this.uuidFor(rec, k++)
      const e = this.envelope('user', uuid, rec.ts)
      const extra: JsonObject = { message: { role: 'user', content: [resultBlock(r.block, r.id)] } }
      if (this.same && r.block.structured !== undefined) extra.toolUseResult = r.block.structured
      if (this.lastAssistantUuid) extra.sourceToolAssistantUUID = this.lastAssistantUuid
      await this.chainLine(e, uuid, extra)
    }
    if (!content.length) {
      if (!this.open.size) await this.flushDeferred()
      return
    }
    // A sub-agent's answer delivered as a message (Codex multi-agent) is conversation the user saw.
    const isMeta = (rec.context === true && rec.context_kind !== 'subagent') || rec.role === 'system'
    if (this.open.size && !isSummary) {
      this.deferred.push({ rec, content, isMeta })
      return
    }
    await this.flushDeferred()
    await this.userLine(rec, content, isMeta, k, isSummary)
  }

  private async userLine(rec: MessageRec, content: JsonObject[], isMeta: boolean, k: number, isSummary = false): Promise<void> {
    const uuid = this.uuidFor(rec, k)
    const e = this.envelope('user', uuid, rec.ts)
    const only = content.length === 1 && content[0]!.type === 'text' ? (content[0]!.text as string | JoinedText) : null
    const extra: JsonObject = { message: { role: 'user', content: only ?? content } }
    if (isSummary) {
      extra.isCompactSummary = true
      extra.isVisibleInTranscriptOnly = true
    } else if (isMeta) extra.isMeta = true
    await this.chainLine(e, uuid, extra)
  }

  private async writeAssistant(rec: MessageRec): Promise<void> {
    // Assistant records that follow each other with nothing between them are one model response
    // (OpenAI-style sources store each call of a parallel response as an item of its own): they are
    // written the way Claude Code stores a response, one line per record with the same message id,
    // so that every tool_use of the response is answered in the user lines that follow.
    const cont = this.lastLineAssistant && this.deferred.length === 0 && this.lastApiId !== null
    if (!cont) {
      await this.flushOpen()
      await this.flushSummary()
    }
    this.pendingCmd = null
    const content: JsonObject[] = []
    for (const b of rec.blocks) {
      switch (b.type) {
        case 'text':
          if (b.text !== '') content.push({ type: 'text', text: b.text })
          break
        case 'thinking': {
          const t = this.thinking(b)
          if (t) content.push(t)
          break
        }
        case 'tool_use':
          content.push(this.toolUse(b))
          break
        case 'unknown':
          if (this.same && isObj(b.value)) content.push(b.value)
          break
        case 'tool_result':
          this.ctx.diagnostics.warn('unsupported', `tool result inside an assistant message dropped (${rec.id})`, { file: this.file.path }, HARNESS)
          break
        default:
          break
      }
    }
    if (!content.length) return
    const uuid = this.uuidFor(rec, 0)
    const e = this.envelope('assistant', uuid, rec.ts)
    const hasTool = content.some((c) => c.type === 'tool_use')
    const u = rec.usage ?? {}
    const apiId = cont ? this.lastApiId! : rec.api_message_id && /^msg_[A-Za-z0-9_-]+$/.test(rec.api_message_id) ? rec.api_message_id : `msg_ferry_${shortHash(`${this.target.sessionId}:${rec.id}`, 24)}`
    const model = rec.model ?? this.header.model ?? '<synthetic>'
    const stop = hasTool ? 'tool_use' : rec.stop_reason && rec.stop_reason !== 'other' && rec.stop_reason !== 'aborted' && rec.stop_reason !== 'error' ? rec.stop_reason : 'end_turn'
    await this.chainLine(e, uuid, {
      message: {
        id: apiId,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: {
          input_tokens: u.input_tokens ?? 0,
          cache_creation_input_tokens: u.cache_write_tokens ?? 0,
          cache_read_input_tokens: u.cache_read_tokens ?? 0,
          output_tokens: u.output_tokens ?? 0,
        },
      },
      ...(rec.x?.[`${HARNESS}.isApiErrorMessage`] === true ? { isApiErrorMessage: true } : {}),
    })
    this.lastAssistantUuid = uuid
    this.lastLineAssistant = true
    this.lastApiId = apiId
  }

  async finish(end?: EndRec): Promise<WrittenSession | void> {
    try {
      await this.flushOpen()
      await this.flushSummary()
      await this.flushDeferred()
      this.title = end?.title ?? this.title
      const leaf = this.parentUuid()
      if (this.modelled && !this.rawTitle && this.title && leaf && this.agentId === undefined) {
        await this.line({ type: 'summary', summary: this.title, leafUuid: leaf })
        const src = this.header.title_source
        if (src === 'custom') await this.line({ type: 'custom-title', customTitle: this.title, sessionId: this.target.sessionId })
        else if (src !== 'first_prompt') await this.line({ type: 'ai-title', aiTitle: this.title, sessionId: this.target.sessionId })
      }
      if (this.lines === 0) this.ctx.diagnostics.warn('empty-session', `nothing to write for ${this.header.sid}`, { file: this.file.path }, HARNESS)
      await chmod(this.file.tmp, 0o600)
      if (this.agentId !== undefined) await this.writeMeta()
      await this.file.commit({ force: this.opts.force === true })
      this.committed = true
      // Side files after the session: a failure before this point leaves none of them behind.
      for (const f of this.sideFiles) {
        await f.commit({ force: this.opts.force === true })
        this.committedSide.push(f.path)
      }
    } catch (err) {
      await this.abort()
      // Another writer committed the same session first (two runs at once): its sub-agents still go
      // under that stored parent, never beside it as top-level sessions (as when it existed at open).
      if (err instanceof ExistsError && this.agentId === undefined) this.written.set(this.header.sid, this.target)
      throw err
    }
    this.written.set(this.header.sid, this.agentId === undefined ? this.target : { ...this.target, agentId: this.agentId, depth: this.nest.depth })
    return {
      harness: HARNESS,
      id: this.agentId !== undefined ? `agent-${this.agentId}` : this.target.sessionId,
      path: this.file.path,
      from: this.header.sid,
      ...(this.title ? { title: this.title } : {}),
      ...(this.agentId !== undefined ? { note: `sub-agent of ${this.target.sessionId}` } : {}),
    }
  }

  private async writeMeta(): Promise<void> {
    const p = this.file.path.replace(/\.jsonl$/, '.meta.json')
    let text = this.metaRaw
    if (text === undefined) {
      const tu = this.header.parent?.tool_use_id
      const agentType = this.header.x?.[`${HARNESS}.agentType`]
      text = JSON.stringify({
        agentType: typeof agentType === 'string' ? agentType : 'general-purpose',
        description: this.title ?? '',
        ...(tu ? { toolUseId: safeToolId(tu) } : {}),
        ...(this.nest.parentAgentId ? { parentAgentId: this.nest.parentAgentId } : {}),
        spawnDepth: this.nest.depth,
        ...(this.header.model ? { model: this.header.model } : {}),
        finished: true,
      })
    }
    this.sideFiles.push(await StagedFile.create(p, text, { force: this.opts.force === true, root: dirname(this.target.projectDir) }))
  }

  private committed = false
  private readonly committedSide: string[] = []

  async abort(): Promise<void> {
    await this.file.abort()
    for (const f of this.sideFiles.splice(0)) await f.abort()
    // A side file that failed to commit after the session: take the session back out too, never half of it.
    if (this.committed) {
      this.committed = false
      for (const p of this.committedSide.splice(0)) await rm(p, { force: true })
      await rm(this.file.path, { force: true })
    }
  }
}

/**
 * Every name in a written path is derived or checked (UUIDs, safe slugs,
 * agent ids); this is the last guard that none of them left the store, so a
 * mistake there fails the session (sink policy) instead of writing outside.
 */
function insideStore(store: string, path: string): void {
  const rel = relative(resolve(projectsDir(store)), resolve(path))
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new UnsafePathError(`refusing to write outside ${projectsDir(store)}`, path)
}

function msgText(rec: MessageRec): string {
  return rec.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
}

function resultTextOf(c: ToolResultBlock['content']): string {
  return typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

function imageOut(b: Extract<Block, { type: 'image' }>): JsonObject | null {
  if (b.data) return { type: 'image', source: { type: 'base64', media_type: b.mime, data: b.data } }
  if (b.ref?.url) return { type: 'image', source: { type: 'url', url: b.ref.url } }
  return null
}

function resultBlock(b: ToolResultBlock, id: string): JsonObject {
  let content: string | JsonObject[]
  if (typeof b.content === 'string') content = b.content
  else {
    content = []
    for (const p of b.content as ResultPart[]) {
      if (p.type === 'text') content.push({ type: 'text', text: p.text })
      else {
        const img = imageOut(p)
        content.push(img ?? { type: 'text', text: `[image ${p.mime}${p.ref?.path ? ` at ${p.ref.path}` : ''}]` })
      }
    }
  }
  return { tool_use_id: id, type: 'tool_result', content, ...(failedResult(b) ? { is_error: true } : {}) }
}

function userBlock(b: Block, same: boolean): JsonObject | null {
  switch (b.type) {
    case 'text':
      return b.text === '' ? null : { type: 'text', text: b.text }
    case 'image':
      return imageOut(b) ?? { type: 'text', text: `[image ${b.mime}${b.ref?.path ? ` at ${b.ref.path}` : ''}]` }
    case 'file':
      if (b.data && b.mime === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: b.mime, data: b.data } }
      if (b.data && b.mime.startsWith('text/')) return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(b.data, 'base64').toString('utf8') }, ...(b.name ? { title: b.name } : {}) }
      return { type: 'text', text: `[file ${b.name ?? ''} ${b.mime}${b.ref?.path ? ` at ${b.ref.path}` : ''}]` }
    case 'unknown':
      return same && isObj(b.value) ? b.value : null
    default:
      return null
  }
}
