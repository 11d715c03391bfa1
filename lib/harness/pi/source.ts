/**
 * Reading one Pi session into ferry records.
 *
 * A Pi file is a tree: every entry names its `parentId`, and the context Pi
 * resumes is the path from the last entry (the leaf) up to the root. A first
 * pass scans only the top-level `id`, `parentId` and `type` of each line (no
 * JSON.parse) into a compact table and marks that path; the second pass maps
 * every entry in file order. Entries off the path are native records marked
 * `x['pi.inactive']` with their fields, so nothing in the file is lost, Pi's
 * writer puts the tree back, and the conversation is the one Pi resumes.
 */
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { LEAN_LINE_BYTES, lineStart, parseJsonBytes, scanTop, str } from '../../io/json-bytes.js'
import { LineReporter, parseJsonLine, readLines } from '../../io/line-file.js'
import { readableOf } from '../../io/drain.js'
import {
  isObj,
  recordId,
  sessionKey,
  sessionRecord,
  type BoundaryRec,
  type FerryRecord,
  type JsonObject,
  type MessageRec,
  type NativeRec,
  type SessionRec,
} from '../../model.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { assistantBlocks, resultContent, stopOf, usageOf, userBlocks } from './blocks.js'
import { headerOf } from './discover.js'
import { HARNESS, idFromFileName } from './paths.js'
import { bashExecutionText } from './text.js'

export const FORMAT = 'pi/jsonl'
const TOP = new Set(['type', 'id', 'parentId'])
/** Entry types that are settings or bookkeeping, not conversation: kept as native records with their fields. */
const META = new Set(['model_change', 'thinking_level_change', 'label', 'session_info', 'custom'])
const KNOWN = new Set([...META, 'message', 'custom_message', 'branch_summary', 'compaction'])

/** The tree, one slot per entry: its parent's slot (-1 root, -2 missing) and whether it is on the active path. */
interface Tree {
  slot: Map<string, number>
  /** Entries without an id (v1 files) or with a repeated one, by line. */
  byLine: Map<number, number>
  parent: Int32Array
  active: Uint8Array
  count: number
  endByte: number
}

const quietly = (ctx: StoreContext) => ({ diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes })

/** First pass: the id/parent table and the active path (leaf = the last entry in file order, as Pi takes it). */
async function buildTree(ctx: StoreContext, path: string): Promise<Tree> {
  const endByte = (await stat(path)).size
  const slot = new Map<string, number>()
  const byLine = new Map<number, number>()
  let parent = new Int32Array(1024)
  let count = 0
  let headerSeen = false
  for await (const { no, buf } of readLines(quietly(ctx), path, { source: HARNESS, endByte, transient: true })) {
    const top = scanTop(buf, TOP)
    if (!top) continue
    if (!headerSeen && top.type === 'session') {
      headerSeen = true
      continue
    }
    headerSeen = true
    if (typeof top.type !== 'string') continue
    if (count === parent.length) {
      const p = new Int32Array(count * 2)
      p.set(parent)
      parent = p
    }
    const id = str(top.id)
    const pid = str(top.parentId)
    // v1 files have no ids: each entry follows the one before (as Pi migrates them).
    parent[count] = id === undefined ? count - 1 : pid === undefined ? -1 : (slot.get(pid) ?? -2)
    if (id === undefined || slot.has(id)) byLine.set(no, count)
    else slot.set(id, count)
    count++
  }
  const active = new Uint8Array(count)
  for (let k = count - 1, guard = 0; k >= 0 && guard <= count; k = parent[k]!, guard++) {
    if (active[k]) break
    active[k] = 1
  }
  return { slot, byLine, parent: parent.subarray(0, count), active, count, endByte }
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  return readableOf(records(ctx, info, opts))
}

const iso = (ms: unknown): string | null => (typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null)

async function* records(ctx: StoreContext, info: SessionInfo, opts: ReadOpts): AsyncGenerator<FerryRecord> {
  const path = info.path
  const nativeOn = opts.native === true
  const tree = await buildTree(ctx, path)
  const counts = { messages: 0, tool_uses: 0, native: 0, inactive: 0, skipped_lines: 0 }
  const reporter = new LineReporter(ctx, HARNESS, path)
  let sid = info.sid
  let header: SessionRec | null = null
  let title = info.title
  let k = -1
  const ids: string[] = []

  const makeHeader = (h: JsonObject | null, raw?: string): SessionRec => {
    const id = h && typeof h.id === 'string' ? h.id : info.id
    sid = sessionKey(HARNESS, id)
    const rec = sessionRecord({
      sid,
      source: { harness: HARNESS, locator: { path } },
      native_id: id,
      ...(h && typeof h.cwd === 'string' && h.cwd ? { cwd: h.cwd } : info.cwd ? { cwd: info.cwd } : {}),
      ...(info.title ? { title: info.title, title_source: info.title_source ?? 'first_prompt' } : {}),
      ...(info.model ? { model: info.model } : {}),
      ...(h && typeof h.timestamp === 'string' ? { created_at: h.timestamp } : {}),
      ...(info.updated_at ? { updated_at: info.updated_at } : {}),
    })
    if (h && typeof h.parentSession === 'string' && h.parentSession) rec.parent = { sid: sessionKey(HARNESS, idFromFileName(basename(h.parentSession))), kind: 'fork' }
    rec.x = { 'pi.version': h && typeof h.version === 'number' ? h.version : 1, ...(h && typeof h.parentSession === 'string' ? { 'pi.parent_session': h.parentSession } : {}) }
    if (raw !== undefined && nativeOn) rec.native = { format: FORMAT, line: 0, raw }
    return rec
  }

  for await (const line of readLines(ctx, path, { source: HARNESS, endByte: tree.endByte })) {
    const { no, buf } = line
    if (lineStart(buf) >= buf.length) continue
    const raw = nativeOn ? buf.toString('utf8') : undefined
    // Leading NULs, a BOM or blanks are read past (the top-level scan of the first pass does the same).
    const body = buf.subarray(lineStart(buf))
    const v = body.length >= LEAN_LINE_BYTES ? parseJsonBytes(body) : parseJsonLine(body)
    if (!header) {
      const h = headerOf(v)
      header = makeHeader(h, raw)
      // An unparsable first line is reported below as the bad line it is; a parsed one that is no header here.
      if (!h && !(v instanceof Error) && isObj(v)) ctx.diagnostics.error('bad-record', 'the first line is not a Pi session header (Pi would treat this file as empty)', { file: path, line: no + 1 }, HARNESS)
      yield header
      if (h) continue
    }
    if (v instanceof Error || !isObj(v) || typeof v.type !== 'string') {
      counts.skipped_lines++
      reporter.bad(line, `unparsable Pi entry: ${v instanceof Error ? v.message : 'not an entry object'}`)
      if (raw !== undefined) {
        counts.native++
        yield { kind: 'native', sid, id: recordId(sid, `l${no}`), native_type: 'pi/unparsable', native: { format: FORMAT, line: no, raw } } satisfies NativeRec
      }
      continue
    }
    const e = v
    k = tree.byLine.get(no) ?? (typeof e.id === 'string' ? (tree.slot.get(e.id) ?? ++k) : ++k)
    const own = typeof e.id === 'string' && !tree.byLine.has(no) ? e.id : `l${no}`
    ids[k] = own
    const id = recordId(sid, own)
    const p = k < tree.count ? tree.parent[k]! : -1
    if (p === -2) ctx.diagnostics.warn('dangling-parent', `entry ${own} names parent ${JSON.stringify(e.parentId)}, which is not in the file`, { file: path, line: no + 1 }, HARNESS)
    const parent = p >= 0 && ids[p] !== undefined ? recordId(sid, ids[p]!) : undefined
    const active = k < tree.count && tree.active[k] === 1
    if (!active) counts.inactive++
    const ts = typeof e.timestamp === 'string' ? e.timestamp : null
    const native = raw !== undefined ? { native: { format: FORMAT, line: no, raw } } : {}
    const base = { sid, id, ...native }
    const where = { parent, active }
    let out: FerryRecord | null
    switch (e.type) {
      case 'message':
        out = message(ctx, e, base, ts, where, path, no)
        break
      case 'custom_message':
        out = {
          kind: 'message', ...base, role: 'user', ts, context: true, context_kind: 'other', blocks: userBlocks(e.content),
          x: { 'pi.custom_type': e.customType, ...(e.display !== undefined ? { 'pi.display': e.display } : {}), ...(e.details !== undefined ? { 'pi.details': e.details } : {}) },
        }
        break
      case 'branch_summary':
        out = { kind: 'message', ...base, role: 'user', ts, context: true, context_kind: 'summary', blocks: [{ type: 'text', text: String(e.summary ?? '') }], x: { 'pi.entry': 'branch_summary', ...(typeof e.fromId === 'string' ? { 'pi.from': recordId(sid, e.fromId) } : {}) } }
        break
      case 'compaction': {
        const b: BoundaryRec = {
          kind: 'boundary', ...base, type: 'compaction', ts, summary: String(e.summary ?? ''), replaces_history: true,
          ...(typeof e.tokensBefore === 'number' ? { pre_tokens: e.tokensBefore } : {}),
          ...(e.fromHook ? { trigger: 'extension' } : {}),
          x: {
            ...(typeof e.firstKeptEntryId === 'string' ? { 'pi.first_kept': recordId(sid, e.firstKeptEntryId) } : {}),
            ...(e.details !== undefined ? { 'pi.details': e.details } : {}),
            ...(parent ? { 'pi.parent': parent } : {}),
            ...(active ? {} : { 'pi.inactive': true }),
          },
        }
        out = b
        break
      }
      default: {
        if (!KNOWN.has(e.type)) ctx.diagnostics.warn('unsupported', `unknown Pi entry type ${JSON.stringify(e.type).slice(0, 60)} kept as native`, { file: path, line: no + 1 }, HARNESS)
        if (e.type === 'session_info' && typeof e.name === 'string') title = e.name.trim() || title
        const { id: _i, parentId: _p, type: _t, timestamp: _ts, ...fields } = e
        const n: NativeRec = { kind: 'native', ...base, native_type: `pi/${e.type}`, ts, x: { 'pi.fields': META.has(e.type) ? fields : undefined, ...(parent ? { 'pi.parent': parent } : {}), ...(active ? {} : { 'pi.inactive': true }) } }
        if (n.x!['pi.fields'] === undefined) delete n.x!['pi.fields']
        out = n
      }
    }
    if (!out) continue
    if (!active && out.kind !== 'native') {
      // Off the path Pi resumes: a native record (as Claude Code's reader keeps a rewound branch), so a writer of
      // another format never puts an abandoned branch into the conversation; its fields let Pi's writer rebuild it.
      const { id: _i, parentId: _p, type: _t, timestamp: _ts, ...fields } = e
      out = { kind: 'native', ...base, native_type: `pi/${e.type}`, ts, x: { 'pi.fields': fields, ...(parent ? { 'pi.parent': parent } : {}), 'pi.inactive': true } } satisfies NativeRec
    }
    if (out.kind === 'message') {
      placed(out, where)
      counts.messages++
      counts.tool_uses += out.blocks.filter((b) => b.type === 'tool_use').length
    } else if (out.kind === 'native') counts.native++
    yield out
  }
  if (!header) {
    ctx.diagnostics.error('empty-session', 'the file has no Pi session header', { file: path }, HARNESS)
    yield makeHeader(null)
  }
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: counts.skipped_lines === 0, counts, ...(title ? { title } : {}) }
}

type Base = { sid: string; id: string; native?: MessageRec['native'] }

function placed(m: MessageRec, where: { parent: string | undefined; active: boolean }): MessageRec {
  if (where.parent) m.parent = where.parent
  if (!where.active) m.branch = { active: false }
  return m
}

/** A `message` entry: its `role` decides the shape. */
function message(ctx: StoreContext, e: JsonObject, base: Base, ts: string | null, where: { parent: string | undefined; active: boolean }, path: string, no: number): FerryRecord | null {
  const m = isObj(e.message) ? e.message : {}
  const at = ts ?? iso(m.timestamp)
  switch (m.role) {
    case 'user':
      return placed({ kind: 'message', ...base, role: 'user', ts: at, blocks: userBlocks(m.content) }, where)
    case 'assistant': {
      const rec: MessageRec = { kind: 'message', ...base, role: 'assistant', ts: at, blocks: assistantBlocks(m.content, m.api, base.id) }
      if (typeof m.model === 'string') rec.model = m.model
      if (typeof m.responseId === 'string') rec.api_message_id = m.responseId
      const usage = usageOf(m.usage)
      if (usage) rec.usage = usage
      const stop = stopOf(m.stopReason)
      if (stop) [rec.stop_reason, rec.native_stop_reason] = [stop, String(m.stopReason)]
      rec.x = { ...(typeof m.api === 'string' ? { 'pi.api': m.api } : {}), ...(typeof m.provider === 'string' ? { 'pi.provider': m.provider } : {}), ...(typeof m.errorMessage === 'string' ? { 'pi.error': m.errorMessage } : {}) }
      return placed(rec, where)
    }
    case 'toolResult': {
      const details = isObj(m.details) ? m.details : undefined
      const trunc = details && isObj(details.truncation) && details.truncation.truncated === true ? details.truncation : undefined
      const full = typeof details?.fullOutputPath === 'string' ? details.fullOutputPath : undefined
      return placed(
        {
          kind: 'message', ...base, role: 'user', ts: at,
          blocks: [{
            type: 'tool_result',
            tool_use_id: String(m.toolCallId ?? ''),
            content: resultContent(m.content),
            is_error: m.isError === true,
            ...(m.details !== undefined ? { structured: m.details } : {}),
            ...(trunc ? { truncated: { ...(typeof trunc.totalBytes === 'number' ? { original_bytes: trunc.totalBytes } : {}), ...(full ? { ref: { path: full } } : {}) } } : {}),
          }],
          x: { 'pi.tool_name': m.toolName },
        },
        where,
      )
    }
    case 'bashExecution':
      return placed({ kind: 'message', ...base, role: 'user', ts: at, blocks: [{ type: 'text', text: bashExecutionText(m) }], ...(m.excludeFromContext ? { context: true, context_kind: 'command' } : {}), x: { 'pi.bash': { command: m.command, exitCode: m.exitCode, cancelled: m.cancelled, truncated: m.truncated, fullOutputPath: m.fullOutputPath } } }, where)
    case 'custom':
      return placed({ kind: 'message', ...base, role: 'user', ts: at, context: true, context_kind: 'other', blocks: userBlocks(m.content), x: { 'pi.custom_type': m.customType } }, where)
    case 'branchSummary':
    case 'compactionSummary':
      return placed({ kind: 'message', ...base, role: 'user', ts: at, context: true, context_kind: 'summary', blocks: [{ type: 'text', text: String(m.summary ?? '') }] }, where)
    default:
      ctx.diagnostics.warn('unknown-role', `message role ${JSON.stringify(m.role).slice(0, 40)} kept as native`, { file: path, line: no + 1 }, HARNESS)
      return { kind: 'native', ...base, native_type: 'pi/message', ts }
  }
}
