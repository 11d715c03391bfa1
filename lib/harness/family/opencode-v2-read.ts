/**
 * Reading one OpenCode 2 session (`session_v2` + `session_message`) into
 * records, and its sub-agent sessions after it. OpenCode 2 keeps a message
 * whole in one row (`type` a column, the rest JSON in `data`, ordered by
 * `seq`): an assistant message holds its `content` (text, reasoning, tool
 * parts each with `id` and `state`). The mapping follows v1's
 * (`opencode-parts.ts`): one assistant record per run of content cut after
 * tool calls, their results in a user record; the message's tokens and
 * finish on its last assistant record. Types with no place in the model
 * (`model-switched`, `agent-switched`, `location-switched`, and any new one)
 * pass as `native` records, so nothing is dropped silently.
 * Schema: docs/formats/opencode.md §OpenCode 2.
 */
import type Database from 'better-sqlite3'
import { failedResult, isObj, recordId, sessionKey, type Block, type FerryRecord, type JsonObject, type MessageRec, type NativeRec, type ResultPart, type SessionLink, type ToolResultBlock } from '../../model.js'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { columns } from '../../io/sqlite-readonly.js'
import type { ReadOptions } from '../types.js'
import { fileBlock, stopReason, thinking, usageOf } from './opencode-parts.js'
import { endRecord, iso, modelOf, sessionHeader, type Layout, type SessionRow } from './opencode-rows.js'
import { V2_SESSION_COLUMNS } from './opencode-v2-schema.js'
import { V2_TO_V1_TOOL } from './opencode-v2-tools.js'

interface MessageRow {
  id: string
  type: string
  seq: number
  time_created: number | null
  data: string
}

interface Reading {
  h: string
  sid: string
  dbPath: string
  nativeFormat: string | null
  counts: { messages: number; tool_uses: number; native: number; skipped_rows: number }
}

/** A v2 tool state's content (`[{type:'text',text}|{type:'file',…}]`, or a string) as a result's content. */
function resultContent(state: JsonObject): ToolResultBlock['content'] {
  const items: unknown[] = Array.isArray(state.content) ? state.content : typeof state.content === 'string' ? [{ type: 'text', text: state.content }] : []
  const texts: string[] = []
  const images: ResultPart[] = []
  for (const c of items) {
    if (!isObj(c)) continue
    if (c.type === 'text' && typeof c.text === 'string') texts.push(c.text)
    else if (c.type === 'file') {
      const b = fileBlock({ ...c, url: c.url ?? c.uri, filename: c.filename ?? c.name })
      if (b.type === 'image') images.push(b)
    }
  }
  let text = texts.join('\n')
  if (state.status === 'error' && isObj(state.error) && typeof state.error.message === 'string' && !text.includes(state.error.message)) text = text ? `${text}\n${state.error.message}` : state.error.message
  if (!text && state.result !== undefined && typeof state.result !== 'object') text = String(state.result)
  return images.length ? [{ type: 'text', text }, ...images] : text
}

/** The call's arguments: an object once running; a pending call keeps the raw text it streamed. */
function toolInput(state: JsonObject): unknown {
  if (isObj(state.input)) return state.input
  if (typeof state.input === 'string') {
    try {
      return JSON.parse(state.input)
    } catch {
      return { raw: state.input }
    }
  }
  return {}
}

function text(s: unknown): string {
  return typeof s === 'string' ? s : ''
}

/** The records of one `session_message` row. */
function rowRecords(r: Reading, row: MessageRow, data: JsonObject): FerryRecord[] {
  const base = (suffix = '') => ({ sid: r.sid, id: recordId(r.sid, `message:${row.id}${suffix}`) })
  const ts = iso(data.time?.created) ?? iso(row.time_created) ?? null
  const nat = r.nativeFormat ? { format: r.nativeFormat, table: 'session_message', pk: row.id, raw: row.data } : undefined
  const msg = (m: Omit<MessageRec, 'kind' | 'sid' | 'id' | 'ts'>, suffix = ''): MessageRec => {
    r.counts.messages++
    return { kind: 'message', ...base(suffix), ts, ...m, ...(nat && !suffix ? { native: nat } : {}) }
  }
  switch (row.type) {
    case 'user': {
      const blocks: Block[] = []
      if (text(data.text)) blocks.push({ type: 'text', text: data.text })
      for (const f of Array.isArray(data.files) ? data.files : []) if (isObj(f)) blocks.push(fileBlock({ ...f, url: f.url ?? f.uri ?? f.source?.uri, filename: f.filename ?? f.name }))
      return blocks.length ? [msg({ role: 'user', blocks })] : []
    }
    case 'synthetic':
      return text(data.text) ? [msg({ role: 'user', context: true, context_kind: 'other', blocks: [{ type: 'text', text: data.text }] })] : []
    case 'system':
      return text(data.text) ? [msg({ role: 'system', context: true, context_kind: 'environment', blocks: [{ type: 'text', text: data.text }] })] : []
    case 'shell': {
      // The user's own `!command` in the TUI: what ran and what it printed, as the user's turn.
      const out = typeof data.output === 'string' ? data.output : isObj(data.output) ? text(data.output.output) : ''
      return [msg({ role: 'user', context: true, context_kind: 'command', blocks: [{ type: 'text', text: `!${text(data.command)}${out ? `\n${out}` : ''}` }] })]
    }
    case 'skill':
      return text(data.text) ? [msg({ role: 'user', context: true, context_kind: 'skill', blocks: [{ type: 'text', text: data.text }] })] : []
    case 'compaction': {
      // A compaction that failed or is still running replaced nothing: kept as native.
      if (data.status === 'failed' || data.status === 'running') {
        r.counts.native++
        return [{ kind: 'native', ...base(), native_type: `${r.h}/compaction-${data.status}`, ts, ...(nat ? { native: nat } : {}) }]
      }
      const summary = text(data.summary)
      return [{ kind: 'boundary', ...base(), type: 'compaction', ts, ...(summary ? { summary } : {}), trigger: data.reason === 'manual' ? 'manual' : 'auto', ...(nat ? { native: nat } : {}) }]
    }
    case 'assistant':
      return assistantRecords(r, row, data, ts, nat)
    default: {
      const rec: NativeRec = { kind: 'native', ...base(), native_type: `${r.h}/${row.type}`, ts, ...(nat ? { native: nat } : {}) }
      r.counts.native++
      return [rec]
    }
  }
}

function assistantRecords(r: Reading, row: MessageRow, data: JsonObject, ts: string | null, nat: MessageRec['native']): FerryRecord[] {
  const out: MessageRec[] = []
  const model = isObj(data.model) ? (typeof data.model.id === 'string' ? data.model.id : typeof data.model.modelID === 'string' ? data.model.modelID : undefined) : undefined
  let blocks: Block[] = []
  let results: ToolResultBlock[] = []
  const flush = () => {
    if (!blocks.length) return
    const n = out.length
    out.push({ kind: 'message', sid: r.sid, id: recordId(r.sid, `message:${row.id}${n ? `#${n}` : ''}`), role: 'assistant', ts, blocks, ...(model ? { model } : {}) })
    r.counts.messages++
    if (results.length) {
      out.push({ kind: 'message', sid: r.sid, id: recordId(r.sid, `message:${row.id}#${n}.results`), role: 'user', ts, blocks: results })
      r.counts.messages++
    }
    blocks = []
    results = []
  }
  for (const c of Array.isArray(data.content) ? data.content : []) {
    if (!isObj(c)) continue
    if (c.type === 'tool') {
      const id = typeof c.id === 'string' && c.id ? c.id : `${row.id}#${blocks.length}`
      const state = isObj(c.state) ? c.state : {}
      const v1 = V2_TO_V1_TOOL(text(c.name) || 'unknown', toolInput(state))
      blocks.push({ type: 'tool_use', id, name: v1.name, input: v1.input })
      r.counts.tool_uses++
      if (state.status === 'completed' || state.status === 'error') {
        const res: ToolResultBlock = { type: 'tool_result', tool_use_id: id, content: resultContent(state), is_error: state.status === 'error' }
        const structured: JsonObject = {}
        // A command that exited non-zero is a failed call although OpenCode keeps it `completed` (failedResult, issue 41).
        const exit = isObj(state.result) && typeof state.result.exit === 'number' ? state.result.exit : undefined
        if (exit !== undefined) res.exit_code = exit
        if (state.status === 'completed' && failedResult(res)) {
          res.is_error = true
          structured.status = 'completed'
        }
        if (state.structured !== undefined) structured.structured = state.structured
        if (state.result !== undefined) structured.result = state.result
        if (state.outputPaths !== undefined) structured.outputPaths = state.outputPaths
        if (Object.keys(structured).length) res.structured = structured
        results.push(res)
      }
      continue
    }
    // Text after a run of tool calls is the next step: the calls and their results come first.
    if (results.length || blocks.some((b) => b.type === 'tool_use')) flush()
    if (c.type === 'text' && typeof c.text === 'string') blocks.push({ type: 'text', text: c.text })
    else if (c.type === 'reasoning' && typeof c.text === 'string') blocks.push(thinking(c))
  }
  flush()
  const last = [...out].reverse().find((m) => m.role === 'assistant')
  if (!last) {
    // An assistant turn with no content (failed or aborted request): kept, as v1's.
    r.counts.native++
    return [{ kind: 'native', sid: r.sid, id: recordId(r.sid, `message:${row.id}`), native_type: `${r.h}/${isObj(data.error) ? 'message-error' : 'message'}`, ts, ...(nat ? { native: nat } : {}) }]
  }
  const usage = usageOf(data, 'message')
  if (usage) last.usage = usage
  if (typeof data.finish === 'string') {
    last.stop_reason = stopReason(data.finish)
    last.native_stop_reason = data.finish
  } else if (isObj(data.error)) {
    last.stop_reason = data.error.name === 'MessageAbortedError' || data.error.type === 'aborted' ? 'aborted' : 'error'
  }
  if (nat) out[0]!.native = nat
  return out
}

/** How a v2 session hangs off another: a sub-agent (`parent_id`) or a fork (`fork_session_id`). */
function link(h: string, row: SessionRow & { fork_session_id?: string | null }): SessionLink | undefined {
  if (row.parent_id) return { sid: sessionKey(h, row.parent_id), kind: 'subagent' }
  if (row.fork_session_id) return { sid: sessionKey(h, row.fork_session_id), kind: 'fork' }
  return undefined
}

/** All records of a v2 session, then of its sub-agent sessions (depth first). */
export async function* v2SessionRecords(ctx: StoreContext, layout: Layout, db: Database.Database, dbPath: string, id: string, opts: ReadOptions, seen: Set<string> = new Set()): AsyncGenerator<FerryRecord> {
  const h = layout.harness
  seen.add(id)
  const scols = columns(db, 'session_v2')
  const row = db.prepare(`SELECT ${V2_SESSION_COLUMNS.filter((c) => scols.has(c)).join(', ')} FROM session_v2 WHERE id = ?`).get(id) as (SessionRow & { fork_session_id?: string | null }) | undefined
  if (!row) throw new FerryError(`session ${id} not found`, { code: 'no-session', position: { file: dbPath, row: `session_v2:${id}` }, source: h })
  const sid = sessionKey(h, id)
  const model = modelOf(row.model)
  const parent = link(h, row)
  const header = sessionHeader(layout, dbPath, row, { ...(model.id ? { model: model.id } : {}), ...(model.providerID ? { provider: model.providerID } : {}), ...(parent ? { parent } : {}) })
  header.source.locator = { db: dbPath, table: 'session_v2', pk: id }
  const nativeFormat = opts.native ? `${h}/sqlite-v2@${row.version ?? 'unknown'}` : null
  if (nativeFormat) header.native = { format: nativeFormat, table: 'session_v2', pk: id, row }
  yield header
  const r: Reading = { h, sid, dbPath, nativeFormat, counts: { messages: 0, tool_uses: 0, native: 0, skipped_rows: 0 } }
  const stmt = db.prepare(`SELECT id, type, seq, time_created, data FROM session_message WHERE session_id = ? ORDER BY seq, id`)
  for (const m of stmt.iterate(id) as IterableIterator<MessageRow>) {
    let data: unknown
    try {
      data = JSON.parse(m.data)
    } catch {
      data = null
    }
    if (!isObj(data)) {
      ctx.diagnostics.error('bad-row', 'session_message data is not a JSON object; message skipped', { file: dbPath, row: `session_message:${m.id}` }, h)
      r.counts.skipped_rows++
      continue
    }
    try {
      yield* rowRecords(r, m, data)
    } catch (err) {
      ctx.diagnostics.error('bad-row', `message could not be read (${(err as Error).message}); message skipped`, { file: dbPath, row: `session_message:${m.id}` }, h)
      r.counts.skipped_rows++
    }
  }
  yield endRecord(sid, r.counts)
  const kids = db.prepare(`SELECT id FROM session_v2 WHERE parent_id = ? ORDER BY ${scols.has('time_created') ? 'time_created, ' : ''}id`).all(id) as Array<{ id: string }>
  for (const k of kids) if (!seen.has(k.id)) yield* v2SessionRecords(ctx, layout, db, dbPath, k.id, opts, seen)
}
