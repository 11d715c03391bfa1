/**
 * Writing ferry records as Pi sessions that `pi --session <id>` resumes:
 * `<sessions>/--<cwd>--/<ts>_<uuid v7>.jsonl`, a valid version-3 header on
 * the first line (Pi treats a file without one as empty and rewrites it),
 * then one entry per line chained by `parentId`, the active path ending at
 * the last line (Pi's leaf).
 *
 * Lines that arrive with Pi `native.raw` are written verbatim, so a Pi
 * session read with `native: true` comes back byte for byte. Everything
 * else is written from the modelled fields: consecutive assistant records
 * (one response split by the source) become one assistant message holding
 * all of its tool calls, every assistant message carries `usage` (Pi reads
 * `usage.totalTokens` of each before any request), tool results become
 * `toolResult` messages, a compaction becomes Pi's `compaction` entry, and
 * records off the source's active branch hang off the tree beside it.
 */
import { basename, dirname, join, resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import { ExistsError, UnsafePathError } from '../../errors.js'
import { AtomicFile } from '../../io/atomic.js'
import { scanTop, str } from '../../io/json-bytes.js'
import { resultText, sourceHarness, type Block, type BoundaryRec, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type NativeRec, type SessionRec, type ToolUseBlock, failedResult, typedCommand } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { piStop, piUsage } from './blocks.js'
import { entryIdFor, isSafeSessionId, uuidV7For } from './ids.js'
import { HARNESS, projectDirName, sessionFileName, sessionsDir } from './paths.js'

/** Pi's `api` for a session from another agent, by the agent it came from (the wire its model spoke). */
const API_OF: Record<string, string> = { 'claude-code': 'anthropic-messages', codex: 'openai-responses' }
/**
 * Pi's provider id for it: Pi resumes with the last assistant message's provider and model when that
 * provider has credentials, and falls back to the configured default model otherwise.
 */
const PROVIDER_OF: Record<string, string> = { 'claude-code': 'anthropic', codex: 'openai' }
const ID_KEY = new Set(['id'])

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  // Session key → file written in this run: a sub-agent session names its parent's file as `parentSession`.
  const written = new Map<string, string>()
  return new SessionSink(ctx, HARNESS, async (header) => {
    try {
      const w = await PiWriter.open(ctx, opts, header, written.get(header.parent?.sid ?? ''))
      written.set(header.sid, w.path)
      return w
    } catch (err) {
      // A parent already in the store (an earlier run) is still the file its sub-agents name.
      if (err instanceof ExistsError && err.position?.file) written.set(header.sid, err.position.file)
      throw err
    }
  })
}

const isPiRaw = (r: FerryRecord): boolean => 'native' in r && typeof r.native?.raw === 'string' && r.native.format.startsWith(`${HARNESS}/`)
const ms = (ts: string | null | undefined): number | undefined => {
  const t = ts ? Date.parse(ts) : NaN
  return Number.isFinite(t) ? t : undefined
}

interface Held {
  rec: MessageRec
  content: JsonObject[]
  calls: string[]
}

class PiWriter implements SessionWriter {
  private readonly ids = new Set<string>()
  /** Record id → entry id, for parents and compaction's first kept entry. */
  private readonly entryOf = new Map<string, string>()
  /** The last entry on the active path, and the last entry of the file. */
  private leaf: string | null = null
  private lastLine: string | null = null
  private lastMs: number
  private held: Held | null = null
  private readonly openCalls = new Set<string>()
  private compaction: BoundaryRec | null = null
  /** The id the entry after a compaction gets: its `firstKeptEntryId`. */
  private reserved: string | null = null
  private model: string | undefined
  private readonly same: boolean
  private title: string | undefined

  private constructor(
    private readonly ctx: StoreContext,
    private readonly opts: WriteOpts,
    private readonly header: SessionRec,
    private readonly file: AtomicFile,
    private readonly id: string,
    private readonly cwd: string,
  ) {
    this.same = sourceHarness(header) === HARNESS
    this.lastMs = ms(header.created_at) ?? Date.now()
    this.model = header.model
    this.title = header.title
  }

  get path(): string {
    return this.file.path
  }

  static async open(ctx: StoreContext, opts: WriteOpts, header: SessionRec, parentPath?: string): Promise<PiWriter> {
    const same = sourceHarness(header) === HARNESS
    const sessions = opts.out ? { dir: join(resolve(opts.out), 'sessions'), flat: false } : sessionsDir(ctx)
    const cwd = header.cwd && /^[/\\]|^[A-Za-z]:[/\\]/.test(header.cwd) && !header.cwd.includes('\0') ? header.cwd : ctx.home
    const created = ms(header.created_at) ?? Date.now()
    const id = same && isSafeSessionId(header.native_id) ? header.native_id : uuidV7For(header.sid, created)
    const rawHeader = same && typeof header.native?.raw === 'string' && header.native.format.startsWith(`${HARNESS}/`) ? header.native.raw : undefined
    // A Pi file keeps its name; any other gets Pi's name from its header's time and id.
    const original = same && header.source.locator?.path ? basename(header.source.locator.path) : undefined
    const name = original && original.endsWith(`_${id}.jsonl`) && !original.startsWith('.') ? original : sessionFileName(new Date(created).toISOString(), id)
    const path = sessions.flat ? join(sessions.dir, name) : join(sessions.dir, projectDirName(cwd), name)
    if (dirname(sessions.flat ? path : dirname(path)) !== sessions.dir) throw new UnsafePathError(`a session path would leave the store: ${path}`, path)
    // The agent dir (or --out), not its sessions folder, is the root: a symlinked `sessions` must not carry the session out
    // of it. $PI_CODING_AGENT_SESSION_DIR is a root of its own.
    const root = sessions.flat ? sessions.dir : dirname(sessions.dir)
    const file = await AtomicFile.create(path, { force: opts.force === true, root })
    const w = new PiWriter(ctx, opts, header, file, id, cwd)
    const h: JsonObject = { type: 'session', version: 3, id, timestamp: new Date(created).toISOString(), cwd }
    const ps = header.x?.['pi.parent_session']
    if (same && typeof ps === 'string') h.parentSession = ps
    // Pi has no sub-agents: one from another agent is a session of its own that names the session it served.
    else if (parentPath) h.parentSession = parentPath
    await w.file.write(`${rawHeader ?? JSON.stringify(h)}\n`)
    return w
  }

  private async line(text: string): Promise<void> {
    await this.file.write(`${text}\n`)
  }

  /** One modelled entry: its id, its parent, its line; the active path advances unless it is off it. */
  private async entry(rec: { id: string; ts?: string | null; parent?: string; branch?: { active?: boolean } }, type: string, fields: JsonObject, k = 0): Promise<string> {
    const t = ms(rec.ts)
    if (t !== undefined) this.lastMs = t
    let id: string
    const own = this.same && k === 0 ? rec.id.slice(rec.id.lastIndexOf(':') + 1) : ''
    if (this.reserved && rec.branch?.active !== false) {
      id = this.reserved
      this.reserved = null
    } else if (/^[0-9a-f]{8}$/.test(own) && !this.ids.has(own)) id = own
    else id = entryIdFor(`${this.id}:${rec.id}#${k}`, this.ids)
    this.ids.add(id)
    const inactive = rec.branch?.active === false
    const mapped = rec.parent !== undefined ? this.entryOf.get(rec.parent) : undefined
    // The source's own tree when it is Pi's (or an inactive branch whose parent is known), else the active path.
    const parentId = k > 0 ? this.lastLine : this.same && mapped !== undefined ? mapped : inactive ? (mapped ?? this.lastLine) : this.leaf
    await this.line(JSON.stringify({ type, id, parentId: parentId ?? null, timestamp: new Date(this.lastMs).toISOString(), ...fields }))
    if (k === 0) this.entryOf.set(rec.id, id)
    this.lastLine = id
    if (!inactive) this.leaf = id
    return id
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'stream' || rec.kind === 'session' || rec.kind === 'end') return
    if (!(rec.kind === 'message' && rec.role === 'assistant' && !this.same && !isPiRaw(rec))) await this.flushHeld()
    if (rec.kind === 'boundary') return this.boundary(rec)
    if (this.compaction) await this.writeCompaction(rec.kind === 'message' ? rec : null)
    if (rec.kind === 'message' && this.skipSummary) {
      this.skipSummary = false
      if (rec.context && rec.context_kind === 'summary') return this.keep(rec, 'summary')
    }
    if (isPiRaw(rec)) return this.raw(rec)
    if (rec.kind === 'native') return this.nativeEntry(rec)
    if (rec.role === 'assistant') return this.assistant(rec)
    if (rec.role === 'system') return this.keep(rec, 'system')
    return this.user(rec)
  }

  private skipSummary = false

  /** A Pi line written as it was read; its id and the active path are taken from it. */
  private async raw(rec: MessageRec | NativeRec | BoundaryRec): Promise<void> {
    const text = rec.native!.raw!
    await this.line(text)
    const id = str(scanTop(Buffer.from(text, 'utf8'), ID_KEY)?.id)
    if (rec.kind === 'native' && rec.native_type === 'pi/unparsable') return
    if (id) {
      this.ids.add(id)
      this.entryOf.set(rec.id, id)
      this.lastLine = id
      const inactive = (rec.kind === 'message' && rec.branch?.active === false) || (rec.kind !== 'message' && rec.x?.['pi.inactive'] === true)
      if (!inactive) this.leaf = id
    }
  }

  /** A Pi setting or bookkeeping entry read without its raw line (its fields were kept). */
  private async nativeEntry(rec: Extract<FerryRecord, { kind: 'native' }>): Promise<void> {
    const fields = rec.x?.['pi.fields']
    if (!this.same || typeof fields !== 'object' || fields === null || !rec.native_type.startsWith(`${HARNESS}/`)) return
    await this.entry({ id: rec.id, ts: rec.ts, parent: rec.x?.['pi.parent'] as string | undefined, branch: rec.x?.['pi.inactive'] ? { active: false } : undefined }, rec.native_type.slice(HARNESS.length + 1), fields as JsonObject)
  }

  /** Context from another agent that is not the conversation: kept as a `custom` entry (Pi never sends those to the model). */
  private async keep(rec: MessageRec, kind: string): Promise<void> {
    const text = rec.blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? resultText(b.content) : '')).filter(Boolean).join('\n\n')
    if (!text) return
    await this.entry(rec, 'custom', { customType: 'ferry', data: { role: rec.role, kind: rec.context_kind ?? kind, text } })
  }

  private async user(m: MessageRec): Promise<void> {
    let k = 0
    for (const b of m.blocks) {
      if (b.type === 'tool_use') {
        // A command the user ran in the agent (Claude Code's `/review look at …`): Pi has no such call, so it is the
        // typed text in the user's message below (never dropped); its output stays a `custom` entry out of the model's context.
        this.commands.add(b.id)
        continue
      }
      if (b.type !== 'tool_result') continue
      const content = resultParts(b.content)
      if (this.commands.delete(b.tool_use_id)) {
        await this.entry(m, 'custom', { customType: 'ferry', data: { role: 'user', kind: 'command-result', text: resultText(b.content) } }, k++)
        continue
      }
      if (!this.openCalls.delete(b.tool_use_id)) {
        // A result whose call is not in this session: the model would reject it as a tool result, so it is user text.
        this.ctx.diagnostics.warn('orphan-result', `tool result ${b.tool_use_id} has no call in the session; written as text`, { file: this.file.path }, HARNESS)
        await this.entry(m, 'message', { message: { role: 'user', content: [{ type: 'text', text: `[tool result ${b.tool_use_id}]\n${resultText(b.content)}` }], timestamp: this.lastMs } }, k++)
        continue
      }
      const msg: JsonObject = { role: 'toolResult', toolCallId: b.tool_use_id, toolName: this.callNames.get(b.tool_use_id) ?? 'unknown', content, isError: failedResult(b), timestamp: this.lastMs }
      if (this.same && b.structured !== undefined) msg.details = b.structured
      await this.entry(m, 'message', { message: msg }, k++)
    }
    const rest = m.blocks.flatMap((b) => (b.type === 'text' || b.type === 'image' ? [b] : b.type === 'tool_use' ? [{ type: 'text' as const, text: typedCommand(b) }] : []))
    if (!rest.length) return
    if (m.context && !this.same) {
      // A compaction summary or a sub-agent's answer is what the user saw: the model sees it too. Other injected context stays out of it.
      if (m.context_kind === 'summary' || m.context_kind === 'subagent') {
        await this.entry(m, 'custom_message', { customType: 'ferry', content: contentOf(rest), display: true }, k)
        return
      }
      return this.keep(m, 'context')
    }
    if (m.context && this.same) {
      const ct = m.x?.['pi.custom_type']
      if (typeof ct === 'string') {
        await this.entry(m, 'custom_message', { customType: ct, content: contentOf(rest), display: m.x?.['pi.display'] ?? true, ...(m.x?.['pi.details'] !== undefined ? { details: m.x['pi.details'] } : {}) }, k)
        return
      }
    }
    await this.entry(m, 'message', { message: { role: 'user', content: contentOf(rest), timestamp: this.lastMs } }, k)
  }

  private readonly callNames = new Map<string, string>()
  /** Commands the user ran (tool calls in user messages), whose results are kept beside them. */
  private readonly commands = new Set<string>()

  private assistant(m: MessageRec): Promise<void> | void {
    const content: JsonObject[] = []
    const calls: string[] = []
    for (const b of m.blocks) {
      if (b.type === 'text') {
        if (b.text) content.push({ type: 'text', text: b.text })
      } else if (b.type === 'thinking') {
        // A signature verifies only with the provider and model that made it: kept for Pi's own, else plain reasoning.
        const sig = this.same && b.signature ? { thinkingSignature: b.signature } : {}
        if (b.text || sig.thinkingSignature) content.push({ type: 'thinking', thinking: b.text, ...sig, ...(this.same && b.redacted ? { redacted: true } : {}) })
      } else if (b.type === 'tool_use') {
        const n = toNative(HARNESS, b as ToolUseBlock, sourceHarness(this.header))
        content.push({ type: 'toolCall', id: b.id, name: n.name, arguments: typeof n.input === 'object' && n.input !== null ? n.input : { input: n.input } })
        calls.push(b.id)
        this.callNames.set(b.id, n.name)
      } else if (b.type === 'image' && b.data) content.push({ type: 'image', data: b.data, mimeType: b.mime })
    }
    if (m.model) this.model = m.model
    if (this.same) return this.writeAssistant({ rec: m, content, calls })
    if (this.held && m.branch?.active !== false && this.held.rec.branch?.active !== false) {
      this.held.content.push(...content)
      this.held.calls.push(...calls)
      if (!this.held.rec.usage && m.usage) this.held.rec = { ...this.held.rec, usage: m.usage }
      this.held.rec = { ...this.held.rec, stop_reason: m.stop_reason ?? this.held.rec.stop_reason, native_stop_reason: m.native_stop_reason }
      return
    }
    return this.flushHeld().then(() => {
      this.held = { rec: m, content, calls }
    })
  }

  private async flushHeld(): Promise<void> {
    const h = this.held
    this.held = null
    if (h) await this.writeAssistant(h)
  }

  private async writeAssistant(h: Held): Promise<void> {
    const m = h.rec
    if (!h.content.length) return
    for (const c of h.calls) this.openCalls.add(c)
    const source = sourceHarness(this.header)
    const api = (this.same && typeof m.x?.['pi.api'] === 'string' ? m.x['pi.api'] : undefined) ?? API_OF[source] ?? 'openai-completions'
    const provider = this.opts.provider ?? (this.same && typeof m.x?.['pi.provider'] === 'string' ? m.x['pi.provider'] : undefined) ?? this.header.provider ?? PROVIDER_OF[source] ?? source
    const model = this.opts.model ?? m.model ?? this.model ?? 'unknown'
    const msg: JsonObject = {
      role: 'assistant',
      content: h.content,
      api,
      provider,
      model,
      usage: piUsage(m.usage),
      stopReason: piStop(m.stop_reason, this.same ? m.native_stop_reason : undefined, h.calls.length > 0),
      timestamp: ms(m.ts) ?? this.lastMs,
    }
    if (m.api_message_id) msg.responseId = m.api_message_id
    if (this.same && typeof m.x?.['pi.error'] === 'string') msg.errorMessage = m.x['pi.error']
    await this.entry(m, 'message', { message: msg })
  }

  /** A compaction waits for the next record: when that is the summary message, it is the summary. */
  private async boundary(b: BoundaryRec): Promise<void> {
    if (b.type !== 'compaction') return
    if (this.compaction) await this.writeCompaction(null)
    this.compaction = b
  }

  private async writeCompaction(next: MessageRec | null): Promise<void> {
    const b = this.compaction!
    this.compaction = null
    let summary = b.summary?.trim() ? b.summary : ''
    const nextText = next && next.context && next.context_kind === 'summary' ? next.blocks.map((x) => (x.type === 'text' ? x.text : '')).join('\n') : ''
    // The message after the boundary is its summary (Claude Code) only when the boundary has none or it repeats it;
    // otherwise it is history the compaction kept (Codex's replacement history) and goes on as context.
    if (nextText && (!summary || nextText.includes(summary.trim()))) {
      summary ||= nextText
      this.skipSummary = true
    }
    if (!summary) summary = '[ferry] The conversation was compacted here; the source kept no readable summary.'
    // Everything before the compaction is summarised: the first kept entry is the one after it (Pi's own, when known).
    const kept = this.same && typeof b.x?.['pi.first_kept'] === 'string' ? this.entryOf.get(b.x['pi.first_kept'] as string) : undefined
    const id = entryIdFor(`${this.id}:${b.id}#first-kept`, this.ids)
    const parentRef = typeof b.x?.['pi.parent'] === 'string' ? (b.x['pi.parent'] as string) : undefined
    await this.entry(
      { id: b.id, ts: b.ts, ...(parentRef ? { parent: parentRef } : {}), ...(b.x?.['pi.inactive'] ? { branch: { active: false } } : {}) },
      'compaction',
      { summary, firstKeptEntryId: kept ?? id, tokensBefore: b.pre_tokens ?? 0, ...(this.same && b.x?.['pi.details'] !== undefined ? { details: b.x['pi.details'] } : {}) },
    )
    if (!kept) {
      // Reserved after the compaction entry took its own id: the next entry on the path takes this one.
      this.ids.add(id)
      this.reserved = id
    }
  }

  async finish(end?: EndRec): Promise<WrittenSession> {
    try {
      await this.flushHeld()
      if (this.compaction) await this.writeCompaction(null)
      // Pi resumes from the last line: when the source's last record was off its active branch, end on the active leaf.
      if (this.leaf && this.lastLine !== this.leaf) {
        const id = entryIdFor(`${this.id}:leaf`, this.ids)
        await this.line(JSON.stringify({ type: 'custom', customType: 'ferry', data: { leaf: true }, id, parentId: this.leaf, timestamp: new Date(this.lastMs).toISOString() }))
      }
      await this.file.commit({ force: this.opts.force === true })
      const title = end?.title ?? this.title
      return { harness: HARNESS, id: this.id, path: this.file.path, from: this.header.sid, cwd: this.cwd, ...(title ? { title } : {}) }
    } catch (err) {
      await this.file.abort()
      throw err
    }
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

function contentOf(blocks: Block[]): JsonObject[] {
  const out: JsonObject[] = []
  for (const b of blocks) {
    if (b.type === 'text') out.push({ type: 'text', text: b.text })
    else if (b.type === 'image') out.push(b.data ? { type: 'image', data: b.data, mimeType: b.mime } : { type: 'text', text: `[image: ${b.ref?.url ?? b.ref?.path ?? b.mime}]` })
  }
  return out
}

function resultParts(content: string | Array<{ type: string; text?: string; data?: string; mime?: string }>): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return contentOf(content as Block[])
}
