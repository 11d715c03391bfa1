/**
 * Reading one Grok session into ferry records.
 *
 * The conversation comes from `chat_history.jsonl` (one record per line, in
 * file order); what that model log lacks (timestamps, user images in 0.2.x
 * sessions, tool failures, stop reasons) comes from a compact index built in
 * one streaming pass over `updates.jsonl` before. When `chat_history.jsonl`
 * is missing or empty, the conversation is rebuilt from `updates.jsonl`
 * the way Grok's own `chat_rebuild` does it.
 *
 * With `native: true` every chat line carries its raw text, and the updates
 * lines and sidecar files follow as `native` records, so the Grok writer can
 * put the session directory back byte for byte.
 */
import { filesUnder } from '../../io/files-under.js'
import { readFile, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { LineReporter, parseJsonLine, readHead, readLines, type LineContext } from '../../io/line-file.js'
import {
  isObj,
  recordId,
  sessionKey,
  sessionRecord,
  type Block,
  type BoundaryRec,
  type FerryRecord,
  type JsonObject,
  type MessageRec,
  type NativePass,
  type NativeRec,
  type ResultPart,
  type SessionRec,
  type StopReason,
} from '../../model.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { isoTime, readSummary, titleOf } from './discover.js'
import { isSafeComponent } from './paths.js'
import { isUserInfo, parseDataUrl, stripUserText, workspacePath } from './text.js'
import { buildUpdatesIndex, lineTimestamp, loadImages, unwrap, type PromptInfo, type UpdatesIndex } from './updates-index.js'
import { TOOL_KINDS } from './tools.js'
import { compactionMarkers, markerBoundary, type Marker } from './checkpoints.js'
import { readableOf } from '../../io/drain.js'

export const FORMAT = 'grok/jsonl'
const SIDECAR_CAP = 64 * 1024 * 1024
/** Session files handled line by line, and scratch Grok never needs back. */
const NOT_SIDECAR = /^(summary\.json|chat_history\.jsonl|updates\.jsonl)$|\.lock$|\.corrupt$|\.tmp$|^terminal(\/|$)/

/**
 * updates.jsonl is read more than once (index, rebuild, native lines); only
 * the index pass reports its lines, so each problem is reported once. The
 * cap is the same on every pass.
 */
const quietly = (ctx: StoreContext): LineContext => ({ diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes })

const CONTEXT_KIND: Record<string, string> = {
  system_reminder: 'reminder',
  project_instructions: 'instructions',
  compaction_meta: 'summary',
  working_directory_switch: 'environment',
}

export function stopReasonOf(native: string): StopReason {
  switch (native) {
    case 'end_turn':
    case 'stop':
      return 'end_turn'
    case 'cancelled':
    case 'canceled':
    case 'mid_turn_abort':
    case 'permission_rejected':
    case 'permission_cancelled':
      return 'aborted'
    case 'max_tokens':
    case 'length':
    case 'max_turn_requests':
      return 'max_tokens'
    case 'tool_use':
    case 'tool_calls':
      return 'tool_use'
    case 'refusal':
    case 'content_filter':
      return 'refusal'
    case 'error':
      return 'error'
    default:
      return 'other'
  }
}

const iso = (ms: number | null | undefined): string | null => (typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null)

function redactRemote(remote: string): string {
  return remote.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {}
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

async function fileState(path: string): Promise<'present' | 'empty' | 'absent'> {
  try {
    const st = await stat(path)
    if (!st.isFile()) return 'absent'
    return st.size === 0 ? 'empty' : 'present'
  } catch {
    return 'absent'
  }
}

/** Relative paths of the sidecar files (lib/io/files-under.ts). */
const sidecars = (dir: string): Promise<string[]> => filesUnder(dir, (rel, name) => NOT_SIDECAR.test(rel) || !isSafeComponent(name))

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  return readableOf(records(ctx, info, opts))
}

async function* records(ctx: StoreContext, info: SessionInfo, opts: ReadOptions): AsyncGenerator<FerryRecord> {
  const dir = info.path
  const nativeOn = opts.native === true
  const sid = sessionKey('grok', info.id)
  const chatPath = join(dir, 'chat_history.jsonl')
  const updPath = join(dir, 'updates.jsonl')
  const summary = await readSummary(ctx, dir)
  const s = summary?.value ?? {}
  const chatState = await fileState(chatPath)
  const updState = await fileState(updPath)
  if (isObj(s.info) && typeof s.info.id === 'string' && s.info.id !== info.id) {
    ctx.diagnostics.warn('id-mismatch', `summary.json info.id ${JSON.stringify(s.info.id).slice(0, 80)} differs from the directory name; using the directory name`, { file: join(dir, 'summary.json') }, 'grok')
  }
  const idx: UpdatesIndex | null = updState !== 'absent' ? await buildUpdatesIndex(ctx, updPath) : null

  // Header
  let cwd = isObj(s.info) && typeof s.info.cwd === 'string' && s.info.cwd ? s.info.cwd : info.cwd
  if (!cwd && chatState === 'present') cwd = await preambleCwd(ctx, chatPath)
  const { title, source: titleSource } = titleOf(s)
  const git: { branch?: string; commit?: string; remote?: string } = {}
  if (typeof s.head_branch === 'string') git.branch = s.head_branch
  if (typeof s.head_commit === 'string') git.commit = s.head_commit
  if (Array.isArray(s.git_remotes) && typeof s.git_remotes[0] === 'string') git.remote = redactRemote(s.git_remotes[0])
  const header: SessionRec = sessionRecord({
    sid,
    source: { harness: 'grok', locator: { path: dir } },
    native_id: info.id,
    ...(cwd ? { cwd } : {}),
    ...(title ? { title, title_source: titleSource! } : {}),
    ...(typeof s.current_model_id === 'string' && s.current_model_id ? { model: s.current_model_id } : {}),
    ...(Object.keys(git).length ? { git } : {}),
    ...((isoTime(s.created_at) ?? iso(idx?.firstTs)) ? { created_at: (isoTime(s.created_at) ?? iso(idx?.firstTs))! } : {}),
    ...((isoTime(s.last_active_at) ?? isoTime(s.updated_at) ?? iso(idx?.lastTs)) ? { updated_at: (isoTime(s.last_active_at) ?? isoTime(s.updated_at) ?? iso(idx?.lastTs))! } : {}),
  })
  if (typeof s.parent_session_id === 'string' && isSafeComponent(s.parent_session_id)) {
    header.parent = { sid: sessionKey('grok', s.parent_session_id), kind: typeof s.session_kind === 'string' && s.session_kind.startsWith('subagent') ? 'subagent' : 'fork' }
  }
  header.x = {
    'grok.chat_history': chatState,
    'grok.updates': updState,
    ...(typeof s.agent_name === 'string' ? { 'grok.agent_name': s.agent_name } : {}),
    ...(typeof s.chat_format_version === 'number' ? { 'grok.chat_format_version': s.chat_format_version } : {}),
  }
  if (nativeOn && summary) header.native = { format: 'grok/summary.json', file: 'summary.json', raw: summary.raw }
  yield header

  const counts = { messages: 0, tool_uses: 0, native: 0, skipped_lines: 0 }
  const count = (r: FerryRecord): FerryRecord => {
    if (r.kind === 'message') {
      counts.messages++
      counts.tool_uses += r.blocks.filter((b) => b.type === 'tool_use').length
    } else if (r.kind === 'native') counts.native++
    return r
  }

  // A compaction replaced chat_history.jsonl: the turns before the last one are only in the display log.
  const markers = updState === 'present' ? await compactionMarkers(ctx, updPath) : []
  if (chatState === 'present') {
    const last = markers.at(-1)
    if (last) {
      for await (const r of fromUpdates(ctx, sid, updPath, { dir, markers, until: last.line })) yield count(r)
      yield count(await markerBoundary(ctx, sid, dir, last))
    }
    for await (const r of fromChatHistory(ctx, sid, chatPath, idx, nativeOn, counts, s.chat_format_version === 0 || s.chat_format_version === undefined)) yield count(r)
  } else if (idx) {
    for await (const r of fromUpdates(ctx, sid, updPath, { dir, markers })) yield count(r)
  }

  if (nativeOn) {
    if (updState === 'present') {
      for await (const { no, buf } of readLines(quietly(ctx), updPath, { source: 'grok' })) {
        const rec: NativeRec = {
          kind: 'native',
          sid,
          id: recordId(sid, `updates:l${no}`),
          native_type: 'grok/updates',
          native: { format: FORMAT, file: 'updates', line: no, raw: buf.toString('utf8') },
        }
        yield count(rec)
      }
    }
    const extra = await sidecars(dir)
    if (chatState === 'empty') extra.unshift('chat_history.jsonl')
    if (updState === 'empty') extra.unshift('updates.jsonl')
    for (const rel of extra) {
      const path = join(dir, rel)
      const st = await stat(path)
      if (st.size > SIDECAR_CAP) {
        ctx.diagnostics.warn('side-file', `sidecar larger than ${SIDECAR_CAP} bytes not carried`, { file: path }, 'grok')
        continue
      }
      const bytes = await readFile(path)
      const text = bytes.toString('utf8')
      const utf8 = Buffer.from(text, 'utf8').equals(bytes)
      const rec: NativeRec = {
        kind: 'native',
        sid,
        id: recordId(sid, `file:${relative(dir, path)}`),
        native_type: 'grok/file',
        native: { format: 'grok/file', file: rel, raw: utf8 ? text : bytes.toString('base64') },
        ...(utf8 ? {} : { x: { 'grok.encoding': 'base64' } }),
      }
      yield count(rec)
    }
  }
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: true, counts, ...(title ? { title } : {}) }
}

/** The cwd from a `<user_info>` preamble in the first lines; the full read reports any bad ones. */
async function preambleCwd(ctx: StoreContext, chatPath: string): Promise<string | undefined> {
  const { lines } = await readHead(chatPath, { maxLines: 8, maxBytes: ctx.maxLineBytes })
  for (const buf of lines) {
    const v = parseJsonLine(buf)
    if (!isObj(v) || !Array.isArray(v.content)) continue
    for (const p of v.content) if (isObj(p) && typeof p.text === 'string' && isUserInfo(p.text)) return workspacePath(p.text)
  }
  return undefined
}

interface Counts {
  skipped_lines: number
}

/** Maps chat_history lines; holds back one assistant message to give the turn's last one its stop reason. */
async function* fromChatHistory(
  ctx: StoreContext,
  sid: string,
  path: string,
  idx: UpdatesIndex | null,
  nativeOn: boolean,
  counts: Counts,
  legacyFirst: boolean,
): AsyncGenerator<FerryRecord> {
  let promptOrdinal = -1
  let prompt: PromptInfo | undefined
  let textCursor = 0
  let thoughtCursor = 0
  let pending: MessageRec | null = null
  let behind: FerryRecord[] = []
  const flush = (stop?: { native: string }): FerryRecord[] => {
    const p = pending
    pending = null
    if (p && stop) {
      p.stop_reason = stopReasonOf(stop.native)
      p.native_stop_reason = stop.native
    }
    const out: FerryRecord[] = p ? [p, ...behind] : behind
    behind = []
    return out
  }

  const reporter = new LineReporter(ctx, 'grok', path)
  for await (const line of readLines(ctx, path, { source: 'grok' })) {
    const { no, buf } = line
    if (buf.toString('latin1').trim() === '') continue
    const v = parseJsonLine(buf)
    if (v instanceof Error || !isObj(v)) {
      counts.skipped_lines++
      reporter.bad(line, `unparsable chat_history line: ${v instanceof Error ? v.message : 'not an object'}`)
      // Skipped for the conversation, but a native round trip still puts the bytes back (Grok keeps them too).
      if (nativeOn) {
        const bad: FerryRecord = { kind: 'native', sid, id: recordId(sid, `chat_history:l${no}`), native_type: 'grok/unparsable', native: { format: FORMAT, file: 'chat_history', line: no, raw: buf.toString('utf8') } }
        // Keep file order behind a held-back assistant message (bounded: a run of bad lines releases it).
        if (pending && behind.length < 64) behind.push(bad)
        else {
          for (const r of flush()) yield r
          yield bad
        }
      }
      continue
    }
    const id = recordId(sid, `chat_history:l${no}`)
    const native: NativePass | undefined = nativeOn ? { format: FORMAT, file: 'chat_history', line: no, raw: buf.toString('utf8') } : undefined
    const item = normalizeItem(v, legacyFirst)
    const base = { sid, id, ...(native ? { native } : {}) }
    let out: FerryRecord
    switch (item.type) {
      case 'user': {
        const parts: any[] = Array.isArray(item.content) ? item.content : typeof item.content === 'string' ? [{ type: 'text', text: item.content }] : []
        const texts = parts.filter((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string').map((p) => p.text as string)
        const reason = typeof item.synthetic_reason === 'string' ? item.synthetic_reason : undefined
        if (reason || texts.some(isUserInfo)) {
          const blocks: Block[] = texts.map((t) => ({ type: 'text', text: t }))
          out = { kind: 'message', ...base, role: 'user', ts: null, context: true, context_kind: reason ? (CONTEXT_KIND[reason] ?? 'other') : 'environment', blocks, ...(reason ? { x: { 'grok.synthetic_reason': reason } } : {}) }
          break
        }
        // A real prompt: a new turn. The previous turn's last assistant message gets its stop reason now.
        const prevStop = prompt?.stop ?? (typeof item.prior_turn_interrupt === 'string' ? item.prior_turn_interrupt : undefined)
        for (const r of flush(prevStop ? { native: prevStop } : undefined)) yield r
        promptOrdinal++
        const byIndex = typeof item.prompt_index === 'number' ? idx?.byPromptIndex.get(item.prompt_index) : undefined
        if (byIndex !== undefined) promptOrdinal = byIndex
        prompt = idx?.prompts[promptOrdinal]
        textCursor = 0
        thoughtCursor = 0
        const blocks: Block[] = []
        for (const p of parts) {
          if (!isObj(p)) continue
          if (p.type === 'text' && typeof p.text === 'string') {
            const t = stripUserText(p.text)
            if (t) blocks.push({ type: 'text', text: t })
          } else if (p.type === 'image' && typeof p.url === 'string') {
            const d = parseDataUrl(p.url)
            blocks.push(d ? { type: 'image', mime: d.mime, data: d.data } : { type: 'image', mime: 'image/*', ref: { url: p.url } })
          }
        }
        // 0.2.x model logs hold a vision description instead: the display log is the images' only home.
        if (idx && prompt && prompt.images.length && !blocks.some((b) => b.type === 'image')) {
          for (const img of await loadImages(idx!, prompt.images)) blocks.push({ type: 'image', mime: img.mime, data: img.data })
        }
        out = { kind: 'message', ...base, role: 'user', ts: iso(prompt?.ts), blocks, ...(typeof item.prompt_index === 'number' ? { x: { 'grok.prompt_index': item.prompt_index } } : {}) }
        break
      }
      case 'assistant': {
        const blocks: Block[] = []
        const content = typeof item.content === 'string' ? item.content : ''
        if (content) blocks.push({ type: 'text', text: content })
        const kinds: Record<string, string> = {}
        let toolTs: number | null = null
        for (const c of Array.isArray(item.tool_calls) ? item.tool_calls : []) {
          if (!isObj(c)) continue
          const fn = isObj(c.function) ? c.function : c
          const callId = typeof c.id === 'string' ? c.id : `${id}#call`
          blocks.push({ type: 'tool_use', id: callId, name: String(fn.name ?? ''), input: parseArgs(fn.arguments) })
          const t = idx?.tools.get(callId)
          if (t?.kind) kinds[callId] = t.kind
          toolTs ??= t?.ts ?? null
        }
        const textTs = content && prompt ? (prompt.textTs[textCursor++] ?? null) : null
        const x: Record<string, unknown> = {}
        if (Object.keys(kinds).length) x[TOOL_KINDS] = kinds
        if (typeof item.model_fingerprint === 'string') x['grok.model_fingerprint'] = item.model_fingerprint
        const msg: MessageRec = { kind: 'message', ...base, role: 'assistant', ts: iso(textTs ?? toolTs), blocks, ...(typeof item.model_id === 'string' ? { model: item.model_id } : {}), ...(Object.keys(x).length ? { x } : {}) }
        for (const r of flush()) yield r
        pending = msg
        continue
      }
      case 'reasoning': {
        const summary = Array.isArray(item.summary) ? item.summary : []
        const content = Array.isArray(item.content) ? item.content : []
        const text = [...summary, ...content].filter((p) => isObj(p) && typeof p.text === 'string').map((p) => p.text as string).join('\n')
        const thinking: Block = { type: 'thinking', text, provider: 'xai', ...(typeof item.encrypted_content === 'string' ? { encrypted: item.encrypted_content } : {}) }
        const ts = prompt ? (prompt.thoughtTs[thoughtCursor++] ?? null) : null
        out = { kind: 'message', ...base, role: 'assistant', ts: iso(ts), blocks: [thinking], ...(typeof item.id === 'string' ? { x: { 'grok.reasoning_id': item.id } } : {}) }
        break
      }
      case 'tool_result': {
        const callId = String(item.tool_call_id ?? '')
        const t = idx?.tools.get(callId)
        const text = typeof item.content === 'string' ? item.content : JSON.stringify(item.content ?? '')
        const images: ResultPart[] = []
        for (const im of Array.isArray(item.images) ? item.images : []) {
          const d = isObj(im) && typeof im.url === 'string' ? parseDataUrl(im.url) : null
          if (d) images.push({ type: 'image', mime: d.mime, data: d.data })
        }
        const content: string | ResultPart[] = images.length ? [{ type: 'text', text }, ...images] : text
        out = { kind: 'message', ...base, role: 'user', ts: iso(t?.endTs ?? null), blocks: [{ type: 'tool_result', tool_use_id: callId, content, is_error: t?.failed ?? false }] }
        break
      }
      case 'backend_tool_call':
        out = { kind: 'message', ...base, role: 'assistant', ts: null, blocks: [{ type: 'unknown', native_type: 'grok/backend_tool_call', value: item }] }
        break
      default:
        out = { kind: 'native', ...base, native_type: `grok/${typeof item.type === 'string' ? item.type : 'unknown'}` }
    }
    for (const r of flush()) yield r
    yield out
  }
  for (const r of flush(prompt?.stop ? { native: prompt.stop } : undefined)) yield r
}

/** chat_format_version 0 lines are OpenAI chat messages (`role`); Grok tries both shapes per line. */
function normalizeItem(v: JsonObject, legacyFirst: boolean): JsonObject {
  if (typeof v.type === 'string' && !(legacyFirst && typeof v.role === 'string')) return v
  switch (v.role) {
    case 'system':
    case 'developer':
      return { type: 'system', content: v.content }
    case 'user':
      return { type: 'user', content: v.content }
    case 'assistant':
      return { type: 'assistant', content: typeof v.content === 'string' ? v.content : '', tool_calls: v.tool_calls, model_id: v.model_id }
    case 'tool':
      return { type: 'tool_result', tool_call_id: v.tool_call_id, content: v.content }
    default:
      return v
  }
}

/**
 * No model log: rebuild the conversation from the display log, as Grok's
 * `chat_rebuild` does (user chunk runs, agent text, tool calls named by their
 * title with `rawInput` arguments, results on completion). Ids use the line
 * of the update that started each message.
 */
async function* fromUpdates(ctx: StoreContext, sid: string, path: string, cp: { dir: string; markers: Marker[]; until?: number }): AsyncGenerator<MessageRec | BoundaryRec> {
  let user: { line: number; ts: number | null; blocks: Block[] } | null = null
  let agent: { line: number; ts: number | null; text: string; calls: Block[]; kinds: Record<string, string> } | null = null
  let stop: string | undefined
  const done = new Set<string>()
  const mk = (line: number, role: 'user' | 'assistant', ts: number | null, blocks: Block[], x?: Record<string, unknown>): MessageRec => ({
    kind: 'message',
    sid,
    id: recordId(sid, `updates:l${line}#m`),
    role,
    ts: iso(ts),
    blocks,
    native: { format: FORMAT, file: 'updates', line },
    ...(x && Object.keys(x).length ? { x } : {}),
  })
  const flushUser = (): MessageRec | null => {
    const u = user
    user = null
    return u && u.blocks.length ? mk(u.line, 'user', u.ts, u.blocks) : null
  }
  /** The pending assistant message, with the turn's stop reason when one was seen. */
  const flushAgent = (stop?: string): MessageRec | null => {
    const a = agent
    agent = null
    if (!a || (!a.text && !a.calls.length)) return null
    const m = mk(a.line, 'assistant', a.ts, [...(a.text ? [{ type: 'text' as const, text: a.text }] : []), ...a.calls], a.kinds && Object.keys(a.kinds).length ? { [TOOL_KINDS]: a.kinds } : undefined)
    if (stop) {
      m.stop_reason = stopReasonOf(stop)
      m.native_stop_reason = stop
    }
    return m
  }
  for await (const { no, buf } of readLines(quietly(ctx), path, { source: 'grok' })) {
    // Up to a compaction whose history chat_history.jsonl holds: the rest is read from there.
    if (cp.until !== undefined && no >= cp.until) break
    if (buf.toString('latin1').trim() === '') continue
    const env = parseJsonLine(buf)
    if (!isObj(env)) continue // already reported by the index pass
    const { params, update } = unwrap(env)
    if (!update) continue
    const ts = lineTimestamp(env, params)
    const su = update.sessionUpdate
    const c = update.content
    if (su === 'user_message_chunk' || su === 'agent_message_chunk') {
      if (isObj(update._meta) && update._meta.hostTurn) {
        const u = flushUser()
        if (u) yield u
        const a = flushAgent()
        if (a) yield a
        continue
      }
    }
    if (su === 'user_message_chunk') {
      if (!user) {
        const a = flushAgent(stop)
        if (a) yield a
        stop = undefined
        user = { line: no, ts, blocks: [] }
      }
      if (isObj(c) && c.type === 'text' && typeof c.text === 'string') user.blocks.push({ type: 'text', text: c.text })
      else if (isObj(c) && c.type === 'image' && typeof c.data === 'string') user.blocks.push({ type: 'image', mime: String(c.mimeType ?? 'image/png'), data: c.data })
      continue
    }
    if (su === 'agent_message_chunk') {
      const u = flushUser()
      if (u) yield u
      agent ??= { line: no, ts, text: '', calls: [], kinds: {} }
      if (isObj(c) && typeof c.text === 'string') agent.text += c.text
      continue
    }
    if (su === 'tool_call' && typeof update.toolCallId === 'string') {
      const u = flushUser()
      if (u) yield u
      agent ??= { line: no, ts, text: '', calls: [], kinds: {} }
      agent.calls.push({ type: 'tool_use', id: update.toolCallId, name: String(update.title ?? ''), input: update.rawInput ?? {} })
      if (typeof update.kind === 'string') agent.kinds[update.toolCallId] = update.kind
      continue
    }
    if (su === 'tool_call_update' && typeof update.toolCallId === 'string') {
      const id = update.toolCallId
      if (agent && update.rawInput !== undefined) {
        const call = agent.calls.find((b) => b.type === 'tool_use' && b.id === id)
        if (call && call.type === 'tool_use' && (call.input === undefined || (isObj(call.input) && !Object.keys(call.input).length))) call.input = update.rawInput
      }
      if ((update.status === 'completed' || update.status === 'failed') && !done.has(id)) {
        done.add(id)
        const a = flushAgent()
        if (a) yield a
        let text = ''
        if (Array.isArray(update.content)) text = update.content.map((p: any) => (isObj(p) && p.type === 'content' && isObj(p.content) && p.content.type === 'text' ? String(p.content.text) : '')).join('')
        if (!text && update.rawOutput !== undefined) text = JSON.stringify(update.rawOutput)
        yield mk(no, 'user', ts, [{ type: 'tool_result', tool_use_id: id, content: text, is_error: update.status === 'failed' }])
      }
      continue
    }
    if (su === 'turn_completed' && typeof update.stop_reason === 'string') stop = update.stop_reason
    if (su === 'compaction_checkpoint') {
      const m = cp.markers.find((x) => x.line === no)
      if (m) {
        const u = flushUser()
        if (u) yield u
        const a = flushAgent(stop)
        if (a) yield a
        stop = undefined
        // Grok resumes from the compacted history; ferry keeps the turns before it too, marked.
        yield await markerBoundary(ctx, sid, cp.dir, m)
      }
    }
  }
  const u = flushUser()
  if (u) yield u
  const a = flushAgent(stop)
  if (a) yield a
}
