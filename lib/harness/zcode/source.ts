/**
 * Reading one ZCode session (then its sub-agent sessions) into ferry records.
 *
 * Rows come in ZCode's own load order (docs/formats/zcode.md §Record
 * dissection): messages by `sequence IS NULL, sequence, time_created, rowid`,
 * parts found through `part.session_id` and ordered per message by
 * `sequence IS NULL, sequence, time_created, id`. One `.iterate()` over
 * messages joined with their parts streams them (better-sqlite3 allows no
 * other statement while an iterator is open); records of one ZCode message are
 * built together, so memory is bounded by the largest message.
 *
 * With `native`, each record carries the rows it came from (`native.row` and
 * `native.merged`, every column as stored, `data` as the exact text), the
 * message row always on the message's first record: a ZCode sink replays
 * them byte for byte, in order.
 */
import { Readable } from 'node:stream'
import type Database from 'better-sqlite3'
import {
  recordId,
  sessionKey,
  sessionRecord,
  type Block,
  type FerryRecord,
  type StreamRec,
  type MessageRec,
  type NativePass,
  type ResultPart,
  type SessionLink,
  type StopReason,
  type ThinkingBlock,
  type ToolResultBlock,
  type Usage,
} from '../../model.js'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { columns, dbError } from '../../io/sqlite-readonly.js'
import { borrow } from './handles.js'
import type { OptionsOf, ReadOptions, SessionInfo } from '../types.js'
import { iso, titleSource } from './discover.js'
import { knownMigration } from './schema.js'
import { artifactsRoot, isArtifactUri, readArtifact } from './artifacts.js'
import type { readFlags } from './index.js'
import { readableOf } from '../../io/drain.js'

/** The options every reader takes plus this harness's `readFlags` (`inlineArtifacts`). */
export type ZCodeReadOptions = ReadOptions & OptionsOf<typeof readFlags>

type Json = Record<string, any>
type Row = Record<string, unknown>

/** What ZCode shows the model for a tool call that never finished (its hydrator's text). */
export const INTERRUPTED = '[Tool execution was interrupted before resume]'

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

function dataUrl(url: string): { mime: string; data: string } | null {
  const m = /^data:([^;,]+)?(;base64)?,/.exec(url)
  if (!m || !m[2]) return null
  return { mime: m[1] ?? 'application/octet-stream', data: url.slice(m[0].length) }
}

/** Resolves a `zcode-artifact://` URL to its bytes (null: keep the reference). */
type ArtifactReader = (url: string, mime: string, where: string) => { mime: string; data: string } | null

/** A file part as an image or file block; `zcode-artifact://` URLs read from the artifact store when `art` is given, other URLs stay references. */
function fileBlock(p: Json, art?: ArtifactReader, where = ''): Block {
  const mime = typeof p.mime === 'string' ? p.mime : 'application/octet-stream'
  const url = typeof p.url === 'string' ? p.url : ''
  const inline = dataUrl(url) ?? (art && isArtifactUri(url) ? art(url, mime, where) : null)
  const ref = inline ? undefined : url.startsWith('file://') ? { path: decodeURIComponent(url.slice(7)) } : url ? { url } : undefined
  if (mime.startsWith('image/')) return { type: 'image', mime: inline?.mime ?? mime, ...(inline ? { data: inline.data } : {}), ...(ref ? { ref } : {}) }
  return { type: 'file', mime, ...(typeof p.filename === 'string' ? { name: p.filename } : {}), ...(inline ? { data: inline.data } : {}), ...(ref ? { ref } : {}) }
}

function toolResult(callId: string, state: Json, art?: ArtifactReader, where = ''): ToolResultBlock {
  const status = state.status
  if (status !== 'completed' && status !== 'error') return { type: 'tool_result', tool_use_id: callId, content: INTERRUPTED, is_error: true, structured: { status: String(status ?? 'pending') } }
  const meta = state.metadata && typeof state.metadata === 'object' ? (state.metadata as Json) : undefined
  const isError = status === 'error'
  // What the model was shown: for errors the model content when there is one (ZCode's hydrator).
  const text = isError ? (typeof meta?.modelContent === 'string' ? meta.modelContent : String(state.error ?? '')) : typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? '')
  const images = Array.isArray(state.attachments) ? state.attachments.map((a: Json) => fileBlock(a, art, where)).filter((b: Block) => b.type === 'image') : []
  const content: ToolResultBlock['content'] = images.length ? [{ type: 'text', text }, ...(images as ResultPart[])] : text
  const r: ToolResultBlock = { type: 'tool_result', tool_use_id: callId, content, is_error: isError }
  if (meta && typeof meta.exit === 'number') r.exit_code = meta.exit
  const structured: Json = {}
  if (state.title !== undefined) structured.title = state.title
  if (meta !== undefined) structured.metadata = meta
  if (isError && typeof meta?.modelContent === 'string') structured.error = state.error
  if (Object.keys(structured).length) r.structured = structured
  return r
}

function usageOf(data: Json): Usage | undefined {
  const t = data.tokens
  if (!t || typeof t !== 'object') return undefined
  const u: Usage = { scope: 'step' }
  if (typeof t.input === 'number') u.input_tokens = t.input
  if (typeof t.output === 'number') u.output_tokens = t.output
  if (typeof t.reasoning === 'number') u.reasoning_tokens = t.reasoning
  if (typeof t.cache?.read === 'number') u.cache_read_tokens = t.cache.read
  if (typeof t.cache?.write === 'number') u.cache_write_tokens = t.cache.write
  if (typeof t.total === 'number') u.total_tokens = t.total
  if (typeof data.cost === 'number') u.cost_usd = data.cost
  return u
}

function thinking(p: Json): ThinkingBlock {
  const b: ThinkingBlock = { type: 'thinking', text: p.text }
  const m = p.metadata && typeof p.metadata === 'object' ? (p.metadata as Json) : {}
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

/** User-message context: what ZCode injected rather than what a person typed. */
function userContext(data: Json): { context: boolean; kind?: string } {
  const sem = data.semantics && typeof data.semantics === 'object' ? (data.semantics as Json) : {}
  const kind = typeof sem.kind === 'string' ? sem.kind : undefined
  if (kind === 'compact_summary') return { context: true, kind: 'summary' }
  const injected = data.synthetic === true || typeof data.source === 'string' || sem.providerVisibility === 'hidden' || data.visibility === 'model-only' || (typeof sem.origin === 'string' && sem.origin !== 'real_user' && sem.origin !== 'import')
  if (!injected) return { context: false }
  return { context: true, kind: kind === 'system_reminder' ? 'reminder' : kind === 'slash_command' ? 'command' : 'other' }
}

interface Counts {
  messages: number
  tool_uses: number
  native: number
  skipped_rows: number
  /** Messages off the active branch (`session.revert`). */
  inactive: number
}

interface PartItem {
  pid: string
  prow: Row | null
  part: Json
  superseded?: boolean
}

/**
 * The parts of one message in the order ZCode's resume gives the model (its
 * `selectToolPartsForHistory`): of tool parts sharing a `callID` only the last
 * counts (the others are marked `superseded`, kept in place), and when every
 * kept tool part has a `declarationIndex` the tool parts take that order in
 * the places tool parts hold. Other parts keep their place.
 */
export function historyOrder(items: PartItem[]): PartItem[] {
  const tools = items.filter((x) => x.part.type === 'tool')
  if (tools.length < 2) return items
  const last = new Map<string, PartItem>()
  for (const x of tools) if (typeof x.part.callID === 'string') last.set(x.part.callID, x)
  const kept = tools.filter((x) => typeof x.part.callID !== 'string' || last.get(x.part.callID) === x)
  const ordered = kept.every((x) => typeof x.part.declarationIndex === 'number') ? [...kept].sort((a, b) => a.part.declarationIndex - b.part.declarationIndex) : kept
  let k = 0
  return items.map((x) => {
    if (x.part.type !== 'tool') return x
    if (!kept.includes(x)) return { ...x, superseded: true }
    return ordered[k++]!
  })
}

/**
 * The ids of the messages on the active branch after a rewind, chosen from
 * `session.revert` as ZCode's `selectActiveConversationBranch` chooses them;
 * null when every message is on it (no revert, or one without a target).
 */
function activeBranch(db: Database.Database, sessionId: string, revertText: unknown, order: string): Set<string> | null {
  const revert = parse(revertText)
  const target = typeof revert?.targetMessageID === 'string' ? revert.targetMessageID : undefined
  if (!revert || !target) return null
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const ids = (db.prepare(`SELECT m.id AS id FROM message m WHERE m.session_id = ? ORDER BY ${order}`).all(sessionId) as Array<{ id: string }>).map((r) => r.id)
  const at = (mid: string | undefined) => (mid === undefined ? -1 : ids.indexOf(mid))
  const targetAt = at(target)
  const keptIds = Array.isArray(revert.keptMessageIDs) ? revert.keptMessageIDs.filter((x: unknown): x is string => typeof x === 'string') : undefined
  const known = new Set(ids)
  const kept = keptIds ? keptIds.filter((x: string) => known.has(x)) : targetAt >= 0 ? ids.slice(0, targetAt) : ids
  const tail = (from: number) => (from >= 0 ? ids.slice(from) : [])
  let active: string[]
  const cut = str(revert.branchCutAfterMessageID)
  const created = at(str(revert.createdMessageID))
  if (cut !== undefined) {
    const c = at(cut)
    active = c >= 0 ? [...kept, ...ids.slice(c + 1)] : kept
  } else if (keptIds) active = created >= 0 ? [...kept, ...tail(created)] : kept
  else if (targetAt < 0) return null
  else active = created >= 0 ? [...kept, ...tail(created)] : kept
  return new Set(active)
}

interface RowRef {
  key: string
  row: Row
}

/** Builds the records of one ZCode message from its parts, in part order. */
class MessageBuilder {
  readonly out: FerryRecord[] = []
  private blocks: Block[] = []
  private firstPid: string | null = null
  private results: ToolResultBlock[] = []
  private resultPid: string | null = null
  private resultTs: string | null = null
  private afterTool = false
  private context = false
  private contextKind: string | undefined
  private lastAssistant: MessageRec | null = null
  /** Rows not yet attached to a record (native mode); the message row first. */
  private pending: RowRef[] = []
  private readonly role: 'user' | 'assistant'
  private readonly msgContext: { context: boolean; kind?: string }

  constructor(
    private readonly sid: string,
    private readonly mid: string,
    private readonly data: Json,
    private readonly nativeFormat: string | null,
    private readonly counts: Counts,
    mrow: Row | null,
    private readonly art?: ArtifactReader,
  ) {
    this.role = data.role === 'user' ? 'user' : 'assistant'
    this.msgContext = this.role === 'user' ? userContext(data) : { context: false }
    if (mrow) this.pending.push({ key: `message:${mid}`, row: mrow })
  }

  private get ts(): string | null {
    return iso(this.data.time?.created) ?? null
  }

  /** Attaches every pending row to `rec`. */
  private attach(rec: Exclude<FerryRecord, StreamRec>): void {
    if (!this.nativeFormat || !this.pending.length) return
    const [first, ...rest] = this.pending
    const i = first!.key.indexOf(':')
    const n: NativePass = { format: this.nativeFormat, table: first!.key.slice(0, i), pk: first!.key.slice(i + 1), row: first!.row }
    if (rest.length) n.merged = rest.map((r) => ({ pk: r.key, row: r.row }))
    rec.native = n
    this.pending = []
  }

  private push(rec: Exclude<FerryRecord, StreamRec>): void {
    this.attach(rec)
    this.out.push(rec)
  }

  private pend(pid: string, prow: Row | null): void {
    if (prow) this.pending.push({ key: `part:${pid}`, row: prow })
  }

  flush(): void {
    if (this.blocks.length) {
      const first = this.out.every((r) => r.kind !== 'message')
      const locator = first ? `message:${this.mid}` : `part:${this.firstPid}`
      const rec: MessageRec = { kind: 'message', sid: this.sid, id: recordId(this.sid, locator), role: this.role, ts: this.ts, blocks: this.blocks }
      const ctx = this.context || this.msgContext.context
      if (ctx) {
        rec.context = true
        rec.context_kind = this.context ? (this.contextKind ?? 'reminder') : (this.msgContext.kind ?? 'other')
      }
      if (this.role === 'assistant') {
        if (typeof this.data.parentID === 'string') {
          if (first) rec.parent = recordId(this.sid, `message:${this.data.parentID}`)
          rec.turn = this.data.parentID
        }
        const model = typeof this.data.modelId === 'string' ? this.data.modelId : typeof this.data.modelID === 'string' ? this.data.modelID : undefined
        if (model) rec.model = model
        this.lastAssistant = rec
      }
      this.push(rec)
      this.counts.messages++
    }
    if (this.results.length) {
      const rec: MessageRec = { kind: 'message', sid: this.sid, id: recordId(this.sid, `part:${this.resultPid}#result`), role: 'user', ts: this.resultTs ?? this.ts, blocks: this.results }
      // Derived from the tool parts on the record before: it carries no row of its own.
      if (this.nativeFormat) rec.native = { format: this.nativeFormat, table: 'part', pk: `${this.resultPid}#result` }
      this.out.push(rec)
      this.counts.messages++
    }
    for (const d of this.deferred) {
      if (d.row) this.pending.push(d.row)
      this.push(d.rec)
    }
    this.deferred = []
    this.blocks = []
    this.results = []
    this.firstPid = null
    this.resultPid = null
    this.resultTs = null
    this.afterTool = false
    this.context = false
    this.contextKind = undefined
  }

  private add(pid: string, prow: Row | null, block: Block, context = false, kind?: string): void {
    if (this.afterTool || (this.blocks.length && context !== this.context)) this.flush()
    if (!this.blocks.length) {
      this.firstPid = pid
      this.context = context
      this.contextKind = kind
    }
    this.blocks.push(block)
    this.pend(pid, prow)
  }

  /**
   * A part with no conversational content: its own native record. Inside a run
   * of blocks it waits until the run is emitted, so it never splits a message.
   */
  private nativeRecord(pid: string, prow: Row | null, type: string, ts: string | null): void {
    const rec: FerryRecord = { kind: 'native', sid: this.sid, id: recordId(this.sid, `part:${pid}`), native_type: `zcode/${type}`, ts }
    this.counts.native++
    if (this.blocks.length) {
      this.deferred.push({ rec, row: prow ? { key: `part:${pid}`, row: prow } : null })
      return
    }
    this.pend(pid, prow)
    this.push(rec)
  }

  private deferred: Array<{ rec: Exclude<FerryRecord, StreamRec>; row: RowRef | null }> = []

  /** A tool part a later one with the same `callID` replaces (ZCode resumes only the last): kept, in place, as native. */
  superseded(pid: string, prow: Row | null, p: Json): void {
    this.nativeRecord(pid, prow, 'tool-superseded', iso(p.state?.time?.start) ?? this.ts)
  }

  part(pid: string, prow: Row | null, p: Json): void {
    const type = typeof p.type === 'string' ? p.type : 'unknown'
    switch (type) {
      case 'text':
        if (typeof p.text !== 'string' || p.ignored === true) return this.nativeRecord(pid, prow, 'text-ignored', this.ts)
        if (p.synthetic === true) return this.add(pid, prow, { type: 'text', text: p.text }, true, 'reminder')
        return this.add(pid, prow, { type: 'text', text: p.text })
      case 'reasoning':
        if (typeof p.text !== 'string') return this.nativeRecord(pid, prow, type, this.ts)
        return this.add(pid, prow, thinking(p))
      case 'file':
        return this.add(pid, prow, fileBlock(p, this.art, `part:${pid}`))
      case 'tool': {
        const state: Json = p.state && typeof p.state === 'object' ? p.state : {}
        const callId = typeof p.callID === 'string' && p.callID ? p.callID : `${recordId(this.sid, `part:${pid}`)}#call`
        const shown = typeof p.metadata?.providerToolName === 'string' ? p.metadata.providerToolName : String(p.tool ?? 'unknown')
        if (this.blocks.length && this.context) this.flush()
        if (!this.blocks.length) this.firstPid = pid
        this.blocks.push({ type: 'tool_use', id: callId, name: shown, ...(shown !== p.tool && typeof p.tool === 'string' ? { native_name: p.tool } : {}), input: state.input ?? {} })
        this.pend(pid, prow)
        this.counts.tool_uses++
        if (!this.results.length) this.resultPid = pid
        this.results.push(toolResult(callId, state, this.art, `part:${pid}`))
        this.resultTs = iso(state.time?.end) ?? this.resultTs
        this.afterTool = true
        return
      }
      case 'compaction': {
        this.flush()
        this.pend(pid, prow)
        const pre = typeof p.tokensBefore === 'number' ? p.tokensBefore : typeof p.preTokens === 'number' ? p.preTokens : undefined
        this.push({
          kind: 'boundary',
          sid: this.sid,
          id: recordId(this.sid, `part:${pid}`),
          type: 'compaction',
          ts: this.ts,
          trigger: p.auto === true ? 'auto' : typeof p.trigger === 'string' ? p.trigger : 'manual',
          replaces_history: true,
          ...(pre !== undefined ? { pre_tokens: pre } : {}),
        })
        return
      }
      default:
        // step-start/-finish, retry, agent, subtask, timeline, snapshot, patch and part
        // types this reader does not know: no conversational content, kept in place.
        return this.nativeRecord(pid, prow, type, iso(p.time?.start ?? p.time?.created) ?? this.ts)
    }
  }

  end(): FerryRecord[] {
    this.flush()
    if (this.role === 'assistant') {
      const last = this.lastAssistant
      const err = this.data.error && typeof this.data.error === 'object' ? (this.data.error as Json) : undefined
      if (last) {
        const usage = usageOf(this.data)
        if (usage) last.usage = usage
        const finish = typeof this.data.finish === 'string' ? this.data.finish : undefined
        if (err) {
          last.stop_reason = err.data?.turnResult === 'cancelled' || /Abort/.test(String(err.name)) ? 'aborted' : 'error'
          last.native_stop_reason = finish ?? String(err.name ?? 'error')
          last.x = { ...last.x, 'zcode.error': err }
        } else if (finish) {
          last.stop_reason = stopReason(finish)
          last.native_stop_reason = finish
        }
      }
    }
    if (this.pending.length || !this.out.length) {
      let lastRec: Exclude<FerryRecord, StreamRec> | undefined
      for (const r of this.out) if (r.kind !== 'stream' && r.native?.row !== undefined) lastRec = r
      if (lastRec && this.nativeFormat && !this.pending.some((r) => r.key.startsWith('message:'))) {
        lastRec.native!.merged = [...(lastRec.native!.merged ?? []), ...this.pending.map((r) => ({ pk: r.key, row: r.row }))]
        this.pending = []
      } else {
        // A message with no content of its own (an empty or failed step): kept as a native record.
        this.push({ kind: 'native', sid: this.sid, id: recordId(this.sid, `message:${this.mid}`), native_type: this.data.error ? 'zcode/message-error' : 'zcode/message', ts: this.ts })
        this.counts.native++
      }
    }
    return this.out
  }
}

function parse(text: unknown): Json | null {
  if (typeof text !== 'string') return null
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null
  } catch {
    return null
  }
}

/** The parent's tool call that launched a sub-agent session (its part names the child's id). */
function findTaskCall(db: Database.Database, parentId: string, childId: string, partSession: boolean): string | undefined {
  const where = partSession ? 'session_id = ?' : 'message_id IN (SELECT id FROM message WHERE session_id = ?)'
  const row = db
    .prepare(
      `SELECT CASE WHEN json_valid(data) THEN json_extract(data, '$.callID') END AS call FROM part
        WHERE ${where} AND instr(data, ?) > 0
          AND CASE WHEN json_valid(data) THEN json_extract(data, '$.type') = 'tool' ELSE 0 END
        ORDER BY id LIMIT 1`,
    )
    .get(parentId, childId) as { call?: string | null } | undefined
  return row?.call ?? undefined
}

/** The last `runtime/model_selection` entry's model, the way ZCode picks a resumed session's model. */
function modelSelection(entries: Row[]): { providerId?: string; modelId?: string } {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!
    if (e.type !== 'runtime/model_selection') continue
    const sel = parse(e.data)?.modelSelection
    if (sel && typeof sel === 'object') return { ...(typeof sel.providerId === 'string' ? { providerId: sel.providerId } : {}), ...(typeof sel.modelId === 'string' ? { modelId: sel.modelId } : {}) }
  }
  return {}
}

function selectList(cols: Set<string>, alias: string, prefix: string): string {
  return [...cols].map((c) => `${alias}."${c}" AS "${prefix}${c}"`).join(', ')
}

function pick(r: Row, prefix: string): Row {
  const out: Row = {}
  for (const [k, v] of Object.entries(r)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v
  return out
}

async function* sessionRecords(ctx: StoreContext, db: Database.Database, dbPath: string, id: string, opts: ZCodeReadOptions, seen: Set<string>): AsyncGenerator<FerryRecord> {
  seen.add(id)
  const scols = columns(db, 'session')
  const row = db.prepare('SELECT * FROM session WHERE id = ?').get(id) as Row | undefined
  if (!row) throw new FerryError(`session ${id} not found`, { code: 'no-session', position: { file: dbPath, row: `session:${id}` }, source: 'zcode' })
  const sid = sessionKey('zcode', id)
  const mcols = columns(db, 'message')
  const pcols = columns(db, 'part')
  const partSession = pcols.has('session_id')
  const ecols = columns(db, 'session_entry')
  const entries = ecols.has('session_id') ? (db.prepare(`SELECT * FROM session_entry WHERE session_id = ? ORDER BY time_created, id`).all(id) as Row[]) : []
  const sel = modelSelection(entries)
  let parent: SessionLink | undefined
  const parentId = typeof row.parent_id === 'string' ? row.parent_id : undefined
  if (parentId) {
    parent = { sid: sessionKey('zcode', parentId), kind: row.task_type === 'fork' ? 'fork' : 'subagent' }
    const call = findTaskCall(db, parentId, id, partSession)
    if (call) parent.tool_use_id = call
  }
  const version = typeof row.version === 'string' && row.version ? row.version : undefined
  const cwd = (typeof row.directory === 'string' && row.directory) || (typeof row.path === 'string' && row.path) || undefined
  const title = typeof row.title === 'string' && row.title ? row.title : undefined
  const header = sessionRecord({
    sid,
    source: { harness: 'zcode', ...(version ? { agent_version: version } : {}), locator: { db: dbPath, table: 'session', pk: id } },
    native_id: id,
    ...(cwd ? { cwd } : {}),
    ...(title ? { title, title_source: titleSource(row.title_source as string | null) } : {}),
    ...(sel.modelId ? { model: sel.modelId } : {}),
    ...(sel.providerId ? { provider: sel.providerId } : {}),
    ...(iso(row.time_created) ? { created_at: iso(row.time_created)! } : {}),
    ...(iso(row.time_updated) ? { updated_at: iso(row.time_updated)! } : {}),
    ...(parent ? { parent } : {}),
  })
  const nativeFormat = opts.native ? `zcode/sqlite@${version ?? 'unknown'}` : null
  if (nativeFormat) header.native = { format: nativeFormat, table: 'session', pk: id, row }
  yield header

  for (const e of entries) {
    const eid = String(e.id)
    const rec: FerryRecord = { kind: 'native', sid, id: recordId(sid, `session_entry:${eid}`), native_type: `zcode/session_entry`, ts: iso(e.time_created) ?? null, x: { 'zcode.entry_type': e.type } }
    if (nativeFormat) rec.native = { format: nativeFormat, table: 'session_entry', pk: eid, row: e }
    yield rec
  }

  const counts: Counts = { messages: 0, tool_uses: 0, native: 0, skipped_rows: 0, inactive: 0 }
  // What ZCode's resume does with an artifact reference: reads it from the artifact store.
  const root = opts.inlineArtifacts === false ? null : artifactsRoot(ctx)
  const art: ArtifactReader | undefined = root
    ? (url, mime, where) => {
        const got = readArtifact(root, url, mime)
        if ('data' in got) return got
        ctx.diagnostics.warn('side-file', `artifact ${url} kept as a reference: ${got.reason}`, { file: dbPath, row: where }, 'zcode')
        return null
      }
    : undefined
  const seq = (a: string, c: Set<string>) => (c.has('sequence') ? `${a}.sequence IS NULL, ${a}.sequence, ` : '')
  const msgOrder = `${seq('m', mcols)}m.time_created, m.rowid`
  const active = activeBranch(db, id, row.revert, msgOrder)
  const join = partSession ? 'p.message_id = m.id AND p.session_id = m.session_id' : 'p.message_id = m.id'
  const stmt = db.prepare(
    `SELECT ${selectList(mcols, 'm', 'm_')}, ${selectList(pcols, 'p', 'p_')}
       FROM message m LEFT JOIN part p ON ${join}
      WHERE m.session_id = ?
      ORDER BY ${msgOrder}, ${seq('p', pcols)}p.time_created, p.id`,
  )
  // One message's rows at a time: ZCode decides tool parts per message (the last of a callID,
  // declarationIndex order), so its parts are gathered before any record is built.
  let msg = null as { mid: string; data: Json | null; mrow: Row | null; off: boolean; parts: PartItem[] } | null
  const finishMessage = function* (): Generator<FerryRecord> {
    if (!msg || !msg.data) return
    if (msg.off) {
      counts.inactive++
      if (!nativeFormat) return
      // Off the active branch (a rewind cut it): ZCode keeps the rows but does not resume them.
      const rec: FerryRecord = { kind: 'native', sid, id: recordId(sid, `message:${msg.mid}`), native_type: 'zcode/message-inactive', ts: iso(msg.data.time?.created) ?? null, x: { 'zcode.inactive': true } }
      rec.native = { format: nativeFormat, table: 'message', pk: msg.mid, row: msg.mrow!, ...(msg.parts.length ? { merged: msg.parts.map((x) => ({ pk: `part:${x.pid}`, row: x.prow! })) } : {}) }
      counts.native++
      yield rec
      return
    }
    const builder = new MessageBuilder(sid, msg.mid, msg.data, nativeFormat, counts, msg.mrow, art)
    for (const x of historyOrder(msg.parts)) {
      if (x.superseded) builder.superseded(x.pid, x.prow, x.part)
      else builder.part(x.pid, x.prow, x.part)
    }
    yield* builder.end()
  }
  for (const r of stmt.iterate(id) as IterableIterator<Row>) {
    const mid = String(r.m_id)
    if (mid !== msg?.mid) {
      yield* finishMessage()
      const data = parse(r.m_data)
      msg = { mid, data, mrow: nativeFormat ? pick(r, 'm_') : null, off: active !== null && !active.has(mid), parts: [] }
      if (!data) {
        ctx.diagnostics.error('bad-row', 'message data is not a JSON object; the message and its parts are skipped', { file: dbPath, row: `message:${mid}` }, 'zcode')
        counts.skipped_rows++
      }
    }
    if (!msg.data || r.p_id == null) continue
    const pid = String(r.p_id)
    const part = parse(r.p_data)
    if (!part) {
      ctx.diagnostics.error('bad-row', 'part data is not a JSON object; the part is skipped', { file: dbPath, row: `part:${pid}` }, 'zcode')
      counts.skipped_rows++
      continue
    }
    msg.parts.push({ pid, prow: nativeFormat ? pick(r, 'p_') : null, part })
  }
  yield* finishMessage()
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: true, counts: { ...counts } }

  if (!scols.has('parent_id')) return
  const children = db.prepare(`SELECT id FROM session WHERE parent_id = ? ORDER BY ${scols.has('time_created') ? 'time_created, ' : ''}id`).all(id) as Array<{ id: string }>
  for (const c of children) if (!seen.has(c.id)) yield* sessionRecords(ctx, db, dbPath, c.id, opts, seen)
}

/** Warns once when the ledger holds migrations this ferry does not know (a newer ZCode): read as far as understood. */
function checkLedger(ctx: StoreContext, db: Database.Database, dbPath: string): void {
  if (!columns(db, 'schema_migration').has('id')) return
  const ids = (db.prepare('SELECT id FROM schema_migration ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id).filter((m) => !knownMigration(m))
  if (ids.length) ctx.diagnostics.warn('unsupported', `database has migrations this ferry does not know (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}): read as far as understood`, { file: dbPath }, 'zcode')
}

/** All records of a session, then of its sub-agent sessions (depth first). */
export function readSession(ctx: StoreContext, info: SessionInfo, opts: ZCodeReadOptions = {}): Readable {
  const dbPath = info.locator.db ?? info.path
  async function* gen(): AsyncGenerator<FerryRecord> {
    const { h, release } = borrow(dbPath)
    try {
      checkLedger(ctx, h.db, dbPath)
      yield* sessionRecords(ctx, h.db, dbPath, info.id, opts, new Set())
    } catch (err) {
      throw dbError(err, dbPath, 'zcode')
    } finally {
      release()
    }
  }
  return readableOf(gen())
}
