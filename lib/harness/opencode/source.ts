/**
 * Reading one OpenCode session (and its sub-agent sessions) from the SQLite
 * store into ferry records.
 *
 * Rows are streamed with one `.iterate()` over messages joined with their
 * parts, in OpenCode's own load order (messages by `time_created, id`, parts
 * by `id`). better-sqlite3 allows no other statement on a connection while an
 * iterator is open, hence the join instead of a query per message; the
 * message row repeats on each of its parts and is parsed once. Records of one
 * OpenCode message are built together (the turn's usage goes on its last
 * assistant record), so memory is bounded by the largest message.
 */
import { Readable } from 'node:stream'
import type Database from 'better-sqlite3'
import {
  recordId,
  sessionKey,
  sessionRecord,
  type Block,
  type FerryRecord,
  type MessageRec,
  type NativePass,
  type ResultPart,
  type SessionLink,
  type StopReason,
  type ToolResultBlock,
  type Usage,
} from '../../model.js'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import { columns, dbError, openReadOnly } from './db.js'
import { iso, modelOf, realTitle, sessionSelect, type SessionRow } from './discover.js'
import { readableOf } from '../../io/drain.js'

type Json = Record<string, any>

interface Row {
  mid: string
  mtime: number | null
  mdata: string
  pid: string | null
  pdata: string | null
}

/** OpenCode `finish` → common stop reason (the native spelling is kept beside it). */
export function stopReason(finish: string): StopReason {
  switch (finish) {
    case 'stop':
      return 'end_turn'
    case 'tool-calls':
    case 'tool_calls':
    case 'tool_use':
      return 'tool_use'
    case 'length':
      return 'max_tokens'
    case 'error':
      return 'error'
    case 'content-filter':
      return 'refusal'
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

function fileBlock(p: Json): Block | null {
  const mime = typeof p.mime === 'string' ? p.mime : 'application/octet-stream'
  const url = typeof p.url === 'string' ? p.url : ''
  const inline = dataUrl(url)
  const ref = inline ? undefined : url.startsWith('file://') ? { path: decodePath(url.slice(7)) } : url ? { url } : undefined
  if (mime.startsWith('image/')) return { type: 'image', mime: inline?.mime ?? mime, ...(inline ? { data: inline.data } : {}), ...(ref ? { ref } : {}) }
  return { type: 'file', mime, ...(typeof p.filename === 'string' ? { name: p.filename } : {}), ...(inline ? { data: inline.data } : {}), ...(ref ? { ref } : {}) }
}

const SAVED = /Full output saved to: (\S+)/

function toolResult(callId: string, state: Json): ToolResultBlock | null {
  if (state.status !== 'completed' && state.status !== 'error') return null
  const isError = state.status === 'error'
  const text = isError ? String(state.error ?? '') : typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? '')
  const images = Array.isArray(state.attachments) ? state.attachments.map((a: Json) => fileBlock(a)).filter((b: Block | null) => b?.type === 'image') : []
  const content: ToolResultBlock['content'] = images.length ? [{ type: 'text', text }, ...(images as ResultPart[])] : text
  const r: ToolResultBlock = { type: 'tool_result', tool_use_id: callId, content, is_error: isError }
  const meta = state.metadata
  if (meta && typeof meta === 'object' && typeof meta.exit === 'number') r.exit_code = meta.exit
  if (state.title !== undefined || meta !== undefined) r.structured = { ...(state.title !== undefined ? { title: state.title } : {}), ...(meta !== undefined ? { metadata: meta } : {}) }
  const saved = (meta && typeof meta.outputPath === 'string' && meta.outputPath) || SAVED.exec(text)?.[1]
  if (saved && (meta?.truncated === true || SAVED.test(text))) r.truncated = { ref: { path: saved } }
  return r
}

function usageOf(data: Json): Usage | undefined {
  const t = data.tokens
  if (!t || typeof t !== 'object') return undefined
  const u: Usage = { scope: 'message' }
  if (typeof t.input === 'number') u.input_tokens = t.input
  if (typeof t.output === 'number') u.output_tokens = t.output
  if (typeof t.reasoning === 'number') u.reasoning_tokens = t.reasoning
  if (typeof t.cache?.read === 'number') u.cache_read_tokens = t.cache.read
  if (typeof t.cache?.write === 'number') u.cache_write_tokens = t.cache.write
  if (typeof t.total === 'number') u.total_tokens = t.total
  if (typeof data.cost === 'number') u.cost_usd = data.cost
  return u
}

interface Counts {
  messages: number
  tool_uses: number
  native: number
  skipped_rows: number
}

/** Builds the records of one OpenCode message from its parts, in part order. */
class MessageBuilder {
  readonly out: FerryRecord[] = []
  private blocks: Block[] = []
  private blockPks: Array<{ pk: string; raw: string }> = []
  private firstPid: string | null = null
  private results: ToolResultBlock[] = []
  private resultPid: string | null = null
  private resultTs: string | null = null
  private afterTool = false
  private context = false
  private lastAssistant: MessageRec | null = null

  constructor(
    private readonly sid: string,
    private readonly mid: string,
    private readonly data: Json,
    private readonly mdataRaw: string,
    private readonly nativeFormat: string | null,
    private readonly counts: Counts,
  ) {}

  private get role(): 'user' | 'assistant' {
    return this.data.role === 'assistant' ? 'assistant' : 'user'
  }

  private get ts(): string | null {
    return iso(this.data.time?.created) ?? null
  }

  private native(table: string, pk: string, raw: string, merged?: Array<{ pk: string; raw: string }>): NativePass | undefined {
    if (!this.nativeFormat) return undefined
    return { format: this.nativeFormat, table, pk, raw, ...(merged?.length ? { merged } : {}) }
  }

  /** Emits the open run of blocks (and tool results behind it). */
  flush(): void {
    if (this.blocks.length) {
      const first = this.out.every((r) => r.kind !== 'message')
      const locator = first ? `message:${this.mid}` : `part:${this.firstPid}${this.blocks[0]?.type === 'tool_use' ? '#use' : ''}`
      const rec: MessageRec = { kind: 'message', sid: this.sid, id: recordId(this.sid, locator), role: this.role, ts: this.ts, blocks: this.blocks }
      if (this.context) {
        rec.context = true
        rec.context_kind = 'other'
      }
      if (this.role === 'assistant') {
        if (first && typeof this.data.parentID === 'string') rec.parent = recordId(this.sid, `message:${this.data.parentID}`)
        if (typeof this.data.modelID === 'string') rec.model = this.data.modelID
        if (typeof this.data.parentID === 'string') rec.turn = this.data.parentID
        if (this.data.summary === true) {
          rec.context = true
          rec.context_kind = 'summary'
        }
        this.lastAssistant = rec
      }
      const nat = first ? this.native('message', this.mid, this.mdataRaw, this.blockPks) : this.native('part', this.blockPks[0]!.pk, this.blockPks[0]!.raw, this.blockPks.slice(1))
      if (nat) rec.native = nat
      this.out.push(rec)
      this.counts.messages++
    }
    if (this.results.length) {
      const rec: MessageRec = {
        kind: 'message',
        sid: this.sid,
        id: recordId(this.sid, `part:${this.resultPid}#result`),
        role: 'user',
        ts: this.resultTs ?? this.ts,
        blocks: this.results,
      }
      this.out.push(rec)
      this.counts.messages++
    }
    this.blocks = []
    this.blockPks = []
    this.results = []
    this.firstPid = null
    this.resultPid = null
    this.resultTs = null
    this.afterTool = false
    this.context = false
  }

  private add(pid: string, raw: string, block: Block, context = false): void {
    if (this.afterTool || (this.blocks.length && context !== this.context)) this.flush()
    if (!this.blocks.length) {
      this.firstPid = pid
      this.context = context
    }
    this.blocks.push(block)
    this.blockPks.push({ pk: pid, raw })
  }

  part(pid: string, raw: string, p: Json): void {
    const type = typeof p.type === 'string' ? p.type : 'unknown'
    switch (type) {
      case 'text':
        if (typeof p.text === 'string') this.add(pid, raw, { type: 'text', text: p.text }, p.synthetic === true || p.ignored === true)
        return
      case 'reasoning':
        if (typeof p.text === 'string' && p.text !== '') this.add(pid, raw, { type: 'thinking', text: p.text })
        return
      case 'file': {
        const b = fileBlock(p)
        if (b) this.add(pid, raw, b)
        return
      }
      case 'tool': {
        const state: Json = p.state && typeof p.state === 'object' ? p.state : {}
        const callId = typeof p.callID === 'string' && p.callID ? p.callID : `${recordId(this.sid, `part:${pid}`)}#call`
        if (this.blocks.length && this.context) this.flush()
        if (!this.blocks.length) this.firstPid = pid
        this.blocks.push({ type: 'tool_use', id: callId, name: String(p.tool ?? 'unknown'), input: state.input ?? {} })
        this.blockPks.push({ pk: pid, raw })
        this.counts.tool_uses++
        const result = toolResult(callId, state)
        if (result) {
          if (!this.results.length) this.resultPid = pid
          this.results.push(result)
          this.resultTs = iso(state.time?.end) ?? this.resultTs
        }
        this.afterTool = true
        return
      }
      case 'compaction':
        this.flush()
        this.out.push({
          kind: 'boundary',
          sid: this.sid,
          id: recordId(this.sid, `part:${pid}`),
          type: 'compaction',
          ts: this.ts,
          trigger: p.auto === true ? 'auto' : 'manual',
          ...(this.nativeFormat ? { native: this.native('part', pid, raw)! } : {}),
        })
        return
      default:
        // step-start / step-finish / snapshot / patch / … and part types this
        // reader does not know: no conversational meaning, kept as native records.
        this.flush()
        this.out.push({
          kind: 'native',
          sid: this.sid,
          id: recordId(this.sid, `part:${pid}`),
          native_type: `opencode/${type}`,
          ts: this.ts,
          ...(this.nativeFormat ? { native: this.native('part', pid, raw)! } : {}),
        })
        this.counts.native++
    }
  }

  /** Closes the message: the turn's usage and finish go on its last assistant record. */
  end(): FerryRecord[] {
    this.flush()
    if (this.role === 'assistant') {
      const last = this.lastAssistant
      const usage = usageOf(this.data)
      const finish = typeof this.data.finish === 'string' ? this.data.finish : undefined
      const err = this.data.error && typeof this.data.error === 'object' ? (this.data.error as Json) : undefined
      if (last) {
        if (usage) last.usage = usage
        if (finish) {
          last.stop_reason = stopReason(finish)
          last.native_stop_reason = finish
        } else if (err) {
          last.stop_reason = err.name === 'MessageAbortedError' ? 'aborted' : 'error'
          last.native_stop_reason = String(err.name ?? 'error')
        }
        if (err) last.x = { ...last.x, 'opencode.error': err }
      } else {
        // An assistant turn with no content (failed or aborted request): keep it as a native record.
        this.out.push({
          kind: 'native',
          sid: this.sid,
          id: recordId(this.sid, `message:${this.mid}`),
          native_type: err ? 'opencode/message-error' : 'opencode/message',
          ts: this.ts,
          ...(this.nativeFormat ? { native: this.native('message', this.mid, this.mdataRaw)! } : {}),
        })
        this.counts.native++
      }
    }
    return this.out
  }
}

/** The parent's `task` call that started a child session (via the part metadata or the `<task id=…>` output). */
function findTaskCall(db: Database.Database, parentId: string, childId: string): string | undefined {
  const row = db
    .prepare(
      `SELECT CASE WHEN json_valid(data) THEN json_extract(data, '$.callID') END AS call
         FROM part
        WHERE session_id = ?
          AND instr(data, ?) > 0
          AND CASE WHEN json_valid(data) THEN json_extract(data, '$.type') = 'tool' ELSE 0 END
        ORDER BY id LIMIT 1`,
    )
    .get(parentId, childId) as { call?: string | null } | undefined
  return row?.call ?? undefined
}

function nativeFormatOf(version: string | null | undefined): string {
  return `opencode/sqlite@${version ?? 'unknown'}`
}

async function* sessionRecords(ctx: StoreContext, db: Database.Database, dbPath: string, id: string, opts: ReadOptions, seen: Set<string>): AsyncGenerator<FerryRecord> {
  seen.add(id)
  const scols = columns(db, 'session')
  const row = db.prepare(`${sessionSelect(scols)} WHERE id = ?`).get(id) as SessionRow | undefined
  if (!row) throw new FerryError(`session ${id} not found`, { code: 'no-session', position: { file: dbPath, row: `session:${id}` }, source: 'opencode' })
  const sid = sessionKey('opencode', id)
  const model = modelOf(row.model)
  let parent: SessionLink | undefined
  if (row.parent_id) {
    parent = { sid: sessionKey('opencode', row.parent_id), kind: 'subagent' }
    const call = columns(db, 'part').size > 0 ? findTaskCall(db, row.parent_id, id) : undefined
    if (call) parent.tool_use_id = call
  }
  const title = realTitle(row.title)
  const header = sessionRecord({
    sid,
    source: { harness: 'opencode', ...(row.version ? { agent_version: row.version } : {}), locator: { db: dbPath, table: 'session', pk: id } },
    native_id: id,
    ...(row.directory ? { cwd: row.directory } : {}),
    ...(title ? { title, title_source: 'ai' } : {}),
    ...(model.id ? { model: model.id } : {}),
    ...(model.providerID ? { provider: model.providerID } : {}),
    ...(iso(row.time_created) ? { created_at: iso(row.time_created)! } : {}),
    ...(iso(row.time_updated) ? { updated_at: iso(row.time_updated)! } : {}),
    ...(parent ? { parent } : {}),
  })
  const nativeFormat = opts.native ? nativeFormatOf(row.version) : null
  if (nativeFormat) header.native = { format: nativeFormat, table: 'session', pk: id, row }
  yield header

  const counts: Counts = { messages: 0, tool_uses: 0, native: 0, skipped_rows: 0 }
  // Without a part table (a damaged or partial database) the messages are still read, each without parts.
  const hasParts = columns(db, 'part').size > 0
  if (!hasParts) ctx.diagnostics.error('db-error', 'no part table; messages read without their parts', { file: dbPath, row: 'part' }, 'opencode')
  const stmt = db.prepare(
    hasParts
      ? `SELECT m.id AS mid, m.time_created AS mtime, m.data AS mdata, p.id AS pid, p.data AS pdata
       FROM message m LEFT JOIN part p ON p.message_id = m.id
      WHERE m.session_id = ?
      ORDER BY m.time_created, m.id, p.id`
      : `SELECT m.id AS mid, m.time_created AS mtime, m.data AS mdata, NULL AS pid, NULL AS pdata
       FROM message m WHERE m.session_id = ? ORDER BY m.time_created, m.id`,
  )
  let builder: MessageBuilder | null = null
  let current: string | null = null
  let skipMessage = false
  for (const r of stmt.iterate(id) as IterableIterator<Row>) {
    if (r.mid !== current) {
      if (builder) yield* builder.end()
      builder = null
      current = r.mid
      skipMessage = false
      let data: Json | null = null
      try {
        data = JSON.parse(r.mdata) as Json
      } catch {
        data = null
      }
      if (!data || typeof data !== 'object') {
        ctx.diagnostics.error('bad-row', 'message data is not JSON; message and its parts skipped', { file: dbPath, row: `message:${r.mid}` }, 'opencode')
        counts.skipped_rows++
        skipMessage = true
      } else if (data.role !== 'user' && data.role !== 'assistant') {
        ctx.diagnostics.warn('unknown-role', `message role ${JSON.stringify(data.role)} is not user/assistant; skipped`, { file: dbPath, row: `message:${r.mid}` }, 'opencode')
        counts.skipped_rows++
        skipMessage = true
      } else {
        builder = new MessageBuilder(sid, r.mid, data, r.mdata, nativeFormat, counts)
      }
    }
    if (skipMessage || !builder || r.pid === null || r.pdata === null) continue
    let part: Json | null = null
    try {
      part = JSON.parse(r.pdata) as Json
    } catch {
      part = null
    }
    if (!part || typeof part !== 'object' || Array.isArray(part)) {
      ctx.diagnostics.error('bad-row', 'part data is not a JSON object; part skipped', { file: dbPath, row: `part:${r.pid}` }, 'opencode')
      counts.skipped_rows++
      continue
    }
    try {
      builder.part(r.pid, r.pdata, part)
    } catch (err) {
      // One part the mapping cannot take is one skipped part, never the whole session.
      ctx.diagnostics.error('bad-row', `part could not be read (${(err as Error).message}); part skipped`, { file: dbPath, row: `part:${r.pid}` }, 'opencode')
      counts.skipped_rows++
    }
  }
  if (builder) yield* builder.end()
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: true, counts: { ...counts } }

  if (!scols.has('parent_id')) return
  const children = db.prepare(`SELECT id FROM session WHERE parent_id = ? ORDER BY ${scols.has('time_created') ? 'time_created, ' : ''}id`).all(id) as Array<{ id: string }>
  for (const c of children) if (!seen.has(c.id)) yield* sessionRecords(ctx, db, dbPath, c.id, opts, seen)
}

/** All records of a session, then of its sub-agent sessions (depth first). */
export function readSession(ctx: StoreContext, info: SessionInfo, opts: ReadOptions = {}): Readable {
  const dbPath = info.locator.db ?? info.path
  async function* gen(): AsyncGenerator<FerryRecord> {
    const h = openReadOnly(dbPath)
    try {
      yield* sessionRecords(ctx, h.db, dbPath, info.id, opts, new Set())
    } catch (err) {
      throw dbError(err, dbPath)
    } finally {
      h.close()
    }
  }
  return readableOf(gen())
}
