/**
 * Writing ferry records as Qwen Code sessions that `qwen --resume` loads from
 * the session's cwd: `<root>/projects/<sanitized cwd>/chats/<id>.jsonl`, one
 * `uuid`/`parentUuid` chain of `user`, `assistant` (role `model`) and
 * `tool_result` records carrying Gemini `Content`; sub-agents in
 * `subagents/<parent id>/agent-<type>-<call id>.jsonl` with their `.meta.json`.
 *
 * Consecutive assistant messages are one `assistant` record (the Chat
 * Completions wire wants each call's response right after it); every call
 * gets one `tool_result` record, an unanswered one an error response. Records
 * off the active branch are written on a side branch of the chain, so Qwen
 * follows the active one. Lines with Qwen `native.raw` are written verbatim.
 */
import { isAbsolute, join, resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AtomicFile, writeWholeFile } from '../../io/atomic.js'
import { insideRoot } from '../../io/inside-root.js'
import { isObj, resultText, sourceHarness, type Block, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type NativePass, type SessionRec, type ToolResultBlock, failedResult } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { blocksToParts, functionResponsePart, metadataOfUsage, type Part } from '../family/gemini-parts.js'
import { CompactionSpan, SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { agentStem, projectPath, sanitizeCwd, store, uuidFor } from './paths.js'

/** The Qwen Code version the written sessions were verified with. */
const WRITTEN_VERSION = '0.24.4'

function isoOr(v: string | null | undefined, fallback: string): string {
  const t = v ? Date.parse(v) : NaN
  return Number.isFinite(t) ? new Date(t).toISOString() : fallback
}

interface Parent {
  id: string
  project: string
  cwd: string
}

class QwenWriter implements SessionWriter {
  private buffer = ''
  private last: string | null = null
  /** The last record of the active chain: where an inactive run branches off and the next active record continues. */
  private lastActive: string | null = null
  private lastTs: string
  private turn: { uuid: string; ts: string; parts: Part[]; model?: string; usage?: Record<string, number>; inactive: boolean } | null = null
  /** Calls of the written turns still without a response: id → name. */
  private open = new Map<string, string>()
  private compaction = new CompactionSpan()
  private counter = 0

  constructor(
    private readonly file: AtomicFile,
    private readonly header: SessionRec,
    private readonly sessionId: string,
    private readonly cwd: string,
    private readonly source: string,
    private readonly envelopeExtra: JsonObject,
    private readonly force: boolean,
    private readonly metaFile: { path: string; text: string } | null,
    private readonly root: string,
    private readonly written: WrittenSession,
  ) {
    this.lastTs = isoOr(header.created_at, new Date().toISOString())
  }

  static async open(ctx: StoreContext, root: string, header: SessionRec, opts: WriteOpts, parents: Map<string, Parent>): Promise<QwenWriter> {
    const source = sourceHarness(header)
    const parent = header.parent?.kind === 'subagent' ? parents.get(header.parent.sid) : undefined
    const cwd = parent?.cwd ?? (header.cwd && isAbsolute(header.cwd) ? resolve(header.cwd) : resolve(ctx.home))
    const project = parent?.project ?? sanitizeCwd(cwd)
    let path: string
    let sessionId: string
    let envelopeExtra: JsonObject = {}
    let metaFile: { path: string; text: string } | null = null
    let id: string
    if (parent) {
      sessionId = parent.id
      const callId = header.parent?.tool_use_id ?? uuidFor(header.sid)
      const stem = source === 'qwen' && /^agent-[A-Za-z0-9._-]+$/.test(header.native_id) ? header.native_id : agentStem('general-purpose', callId)
      id = stem
      const agentId = stem.slice('agent-'.length)
      const type = source === 'qwen' ? agentId.slice(0, Math.max(0, agentId.length - callId.length - 1)) || 'general-purpose' : 'general-purpose'
      path = projectPath(root, project, 'subagents', parent.id, `${stem}.jsonl`)
      envelopeExtra = { agentId, agentName: type, isSidechain: true }
      const n = header.native
      const ownMeta = source === 'qwen' && n && typeof n.format === 'string' && n.format.startsWith('qwen/') && n.file === 'meta.json' && typeof n.raw === 'string' ? n.raw : null
      const meta = { agentId, agentType: type, description: header.title ?? '', parentSessionId: parent.id, toolUseId: callId, parentAgentId: null, createdAt: isoOr(header.created_at, new Date().toISOString()), status: 'completed', isBackgrounded: false, subagentName: type, resumeCount: 0, depth: 0 }
      metaFile = { path: projectPath(root, project, 'subagents', parent.id, `${stem}.meta.json`), text: ownMeta ?? JSON.stringify(meta, null, 2) }
    } else {
      sessionId = id = uuidFor(source === 'qwen' ? header.native_id : header.sid)
      path = projectPath(root, project, 'chats', `${id}.jsonl`)
      parents.set(header.sid, { id, project, cwd })
    }
    await insideRoot(root, path)
    const file = await AtomicFile.create(path, { force: opts.force === true, root })
    const written: WrittenSession = { harness: 'qwen', id, path, from: header.sid, cwd, note: `Qwen Code finds a session only from its directory: resume it from ${cwd}`, ...(header.title ? { title: header.title } : {}) }
    return new QwenWriter(file, header, sessionId, cwd, source, envelopeExtra, opts.force === true, metaFile, root, written)
  }

  private ownRaw(rec: { native?: NativePass }): string | null | undefined {
    const n = rec.native
    if (!n || this.source !== 'qwen' || typeof n.format !== 'string' || !n.format.startsWith('qwen/') || n.file === 'meta.json') return undefined
    return typeof n.raw === 'string' ? n.raw : null
  }

  private async out(text: string): Promise<void> {
    this.buffer += text
    if (this.buffer.length >= 256 * 1024) {
      const b = this.buffer
      this.buffer = ''
      await this.file.write(b)
    }
  }

  private uuid(rec: { id: string }): string {
    const tail = rec.id.startsWith(this.header.sid + ':') ? rec.id.slice(this.header.sid.length + 1) : rec.id
    return this.source === 'qwen' && /^[0-9a-f-]{36}$/.test(tail) ? tail : uuidFor(`${this.header.sid}/${rec.id}/${this.counter++}`)
  }

  /** One record of the chain: active ones continue the active chain, inactive ones branch off it. */
  private record(uuid: string, ts: string, type: string, message: JsonObject, inactive: boolean, extra: JsonObject = {}): string {
    const parentUuid = inactive ? this.last : this.lastActive
    const rec = { uuid, parentUuid, sessionId: this.sessionId, timestamp: ts, type, cwd: this.cwd, version: WRITTEN_VERSION, ...this.envelopeExtra, ...extra, message }
    this.last = uuid
    if (!inactive) this.lastActive = uuid
    return JSON.stringify(rec) + '\n'
  }

  async write(rec: FerryRecord): Promise<void> {
    const raw = this.ownRaw(rec as { native?: NativePass })
    if (raw !== undefined) {
      // Qwen's own line; a record without bytes (a context split off a prompt) is inside another one.
      if (raw !== null) {
        await this.flushTurn()
        await this.out(raw + '\n')
      }
      return
    }
    if (rec.kind === 'boundary' && rec.type === 'compaction') {
      // Another agent's compaction: Qwen's own (chat_compression) would drop every turn before it on
      // resume, so it stays visible as its summary or a note (session-sink.ts, CompactionSpan).
      await this.note(this.compaction.start(rec), rec.ts)
      return
    }
    if (rec.kind !== 'message') return
    const [note, keep] = this.compaction.message(rec)
    await this.note(note, rec.ts)
    if (keep) await this.message(rec)
  }

  /** A compaction's note, as a user record of its own. */
  private async note(text: string | null, ts: string | null | undefined): Promise<void> {
    if (text === null) return
    await this.flushTurn()
    await this.out(this.record(uuidFor(`${this.header.sid}/compaction/${this.counter++}`), isoOr(ts, this.lastTs), 'user', { role: 'user', parts: [{ text }] }, false))
  }

  private async message(m: MessageRec): Promise<void> {
    const inactive = m.branch?.active === false
    const ts = isoOr(m.ts, this.lastTs)
    this.lastTs = ts
    // A summary (OpenCode writes it as an assistant step) is a turn of its own, after the turns it sums up.
    if (m.context_kind === 'summary') await this.flushTurn()
    if (m.role === 'assistant') {
      if (this.turn && this.turn.inactive !== inactive) await this.flushTurn()
      const t = (this.turn ??= { uuid: this.uuid(m), ts, parts: [], inactive })
      if (m.model && !t.model) t.model = m.model
      const usage = metadataOfUsage(m.usage)
      if (usage) t.usage = usage
      const blocks: Block[] = []
      for (const b of m.blocks) {
        if (b.type === 'tool_use') {
          const n = toNative('qwen', b, this.source)
          blocks.push({ ...b, name: n.name, input: isObj(n.input) ? n.input : { input: n.input } })
        } else if (b.type !== 'tool_result') blocks.push(b)
      }
      for (const p of blocksToParts(blocks)) {
        t.parts.push(p)
        if (isObj(p.functionCall)) this.open.set(String(p.functionCall.id), String(p.functionCall.name))
      }
      return
    }
    if (m.role === 'system') return
    await this.flushTurn()
    const rest: Block[] = []
    for (const b of m.blocks) {
      if (b.type === 'tool_result' && this.open.has(b.tool_use_id)) await this.result(b, ts, inactive)
      else if (b.type === 'tool_result') rest.push({ type: 'text', text: resultText(b.content) })
      else if (b.type === 'tool_use') rest.push({ type: 'text', text: `[${b.name}] ${JSON.stringify(b.input)}` })
      else rest.push(b)
    }
    if (rest.length === 0) return
    await this.answerOpen(ts, inactive)
    const parts = blocksToParts(rest)
    if (parts.length === 0) return
    await this.out(this.record(this.uuid(m), ts, 'user', { role: 'user', parts }, inactive))
  }

  private async result(b: ToolResultBlock, ts: string, inactive: boolean): Promise<void> {
    const name = this.open.get(b.tool_use_id) ?? ''
    this.open.delete(b.tool_use_id)
    // Qwen keeps a tool's result as text: an image the tool returned is named in it, never dropped.
    const content = Array.isArray(b.content) ? b.content.map((p) => (p.type === 'image' ? { type: 'text' as const, text: `[image: ${p.mime}; Qwen Code keeps tool results as text]` } : p)) : b.content
    const parts: Part[] = [functionResponsePart(b.tool_use_id, name, { ...b, content } as ToolResultBlock)]
    const status = failedResult(b) ? 'error' : 'success'
    await this.out(this.record(uuidFor(`${this.header.sid}/result/${b.tool_use_id}/${this.counter++}`), ts, 'tool_result', { role: 'user', parts }, inactive, { toolCallResult: { callId: b.tool_use_id, status, executionStatus: status } }))
  }

  /** Calls that never got a response: an error one each (the wire refuses a call without its response). */
  private async answerOpen(ts: string, inactive: boolean): Promise<void> {
    for (const id of [...this.open.keys()]) await this.result({ type: 'tool_result', tool_use_id: id, content: 'No result was recorded for this call.', is_error: true }, ts, inactive)
  }

  private async flushTurn(): Promise<void> {
    const t = this.turn
    if (!t) return
    this.turn = null
    if (t.parts.length === 0) return
    await this.out(this.record(t.uuid, t.ts, 'assistant', { role: 'model', parts: t.parts }, t.inactive, { ...(t.model ? { model: t.model } : {}), ...(t.usage ? { usageMetadata: t.usage } : {}) }))
  }

  async finish(_end?: EndRec): Promise<WrittenSession> {
    await this.note(this.compaction.end(), this.lastTs)
    await this.flushTurn()
    if (this.open.size) await this.answerOpen(this.lastTs, false)
    // Another agent's title as Qwen's own title record (as 0.24.4 appends one): its session list, and ferry's, show it
    // rather than the first user text, which from another agent may be injected context (`<user_info>`).
    const title = this.header.title?.trim()
    if (title && this.source !== 'qwen' && !this.metaFile) {
      const rec = { uuid: uuidFor(`${this.header.sid}/title`), parentUuid: this.lastActive, sessionId: this.sessionId, timestamp: this.lastTs, type: 'system', subtype: 'custom_title', cwd: this.cwd, version: WRITTEN_VERSION, ...this.envelopeExtra, systemPayload: { customTitle: title, titleSource: 'auto' } }
      await this.out(JSON.stringify(rec) + '\n')
    }
    await this.file.write(this.buffer)
    this.buffer = ''
    if (this.metaFile) await writeWholeFile(this.metaFile.path, this.metaFile.text, { force: this.force, root: this.root })
    await this.file.commit({ force: this.force })
    return this.written
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const root = opts.out ? resolve(opts.out) : store.root(ctx)
  const parents = new Map<string, Parent>()
  return new SessionSink(ctx, 'qwen', (header) => QwenWriter.open(ctx, root, header, opts, parents))
}
