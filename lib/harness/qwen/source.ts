/**
 * The Qwen Code source: a session file → common records, then its
 * sub-agents (`subagents/<session id>/agent-*.jsonl`, linked by their
 * `.meta.json`).
 *
 * Two passes so that memory stays flat: the first keeps `uuid → parentUuid`
 * only and walks back from the last record (what Qwen's resume does) to find
 * the active chain; the second emits every record in file order, those off
 * the chain as inactive branch records. `system` records sit inside the
 * chain: `chat_compression` is a compaction boundary, the others pass as
 * native.
 */
import { readdir, readFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { readableOf } from '../../io/drain.js'
import { LineReporter, readLines } from '../../io/line-file.js'
import { isObj, recordId, sessionKey, sessionRecord, type FerryRecord, type JsonObject, type MessageRec, type NativePass, type SessionLink, type SessionRec } from '../../model.js'
import { partsToBlocks, usageOfMetadata } from '../family/gemini-parts.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { sessionInfo } from './discover.js'
import { splitReminders, toolResults } from './records.js'
import { lineValue } from '../family/gemini-lines.js'

const PREFIX = /^\{"uuid":"([^"\\]+)","parentUuid":(?:null|"([^"\\]+)")/

/** The uuids on the chain that ends at the file's last record. */
async function activeChain(ctx: StoreContext, file: string): Promise<Set<string> | null> {
  const parent = new Map<string, string | null>()
  let last: string | undefined
  let prev: string | null = null
  let linear = true
  const quiet = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes }
  for await (const line of readLines(quiet, file, { source: 'qwen', transient: true })) {
    const head = line.buf.toString('utf8', 0, Math.min(line.buf.length, 200))
    let uuid: string | undefined
    let p: string | null = null
    const m = PREFIX.exec(head)
    if (m) {
      uuid = m[1]
      p = m[2] ?? null
    } else {
      try {
        const v = JSON.parse(line.buf.toString('utf8'))
        if (isObj(v) && typeof v.uuid === 'string') {
          uuid = v.uuid
          p = typeof v.parentUuid === 'string' ? v.parentUuid : null
        }
      } catch {
        /* reported by the second pass */
      }
    }
    if (!uuid) continue
    if (p !== prev) linear = false
    parent.set(uuid, p)
    prev = uuid
    last = uuid
  }
  // Every record continues the one before: all of it is the chain (the usual file, nothing to keep).
  if (linear || !last) return null
  const chain = new Set<string>()
  for (let u: string | null | undefined = last; u && !chain.has(u); u = parent.get(u)) chain.add(u)
  return chain
}

function iso(v: unknown): string | null {
  if (typeof v !== 'string') return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? new Date(t).toISOString() : null
}

export const FORMAT = 'qwen/jsonl'

async function* readSession(ctx: StoreContext, info: SessionInfo, opts: ReadOpts, link?: SessionLink, meta?: { raw: string; file: string }): AsyncGenerator<FerryRecord> {
  const file = info.path
  const sid = sessionKey('qwen', info.id)
  const nativeOn = opts.native === true
  const chain = await activeChain(ctx, file)
  const reporter = new LineReporter(ctx, 'qwen', file)
  const counts: Record<string, number> = {}
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1)
  let skipped = 0
  let seq = 0
  let headerDone = false
  let lastModel: string | undefined
  const agentCalls = new Map<string, string>()

  function header(first: JsonObject | null): SessionRec {
    const h = sessionRecord({
      sid,
      source: { harness: 'qwen', ...(typeof first?.version === 'string' ? { agent_version: first.version } : {}), locator: { path: file } },
      native_id: info.id,
      ...(typeof first?.cwd === 'string' && first.cwd ? { cwd: first.cwd } : info.cwd ? { cwd: info.cwd } : {}),
      ...(info.title ? { title: info.title, ...(info.title_source ? { title_source: info.title_source } : {}) } : {}),
      ...(iso(first?.timestamp) ? { created_at: iso(first?.timestamp)! } : {}),
      ...(info.updated_at ? { updated_at: info.updated_at } : {}),
      ...(typeof first?.gitBranch === 'string' && first.gitBranch ? { git: { branch: first.gitBranch } } : {}),
      ...(link ? { parent: link } : {}),
    })
    if (nativeOn && meta) h.native = { format: FORMAT, file: 'meta.json', raw: meta.raw }
    if (typeof first?.sessionId === 'string' && first.sessionId !== info.id) h.x = { 'qwen.session_id': first.sessionId }
    return h
  }

  for await (const line of readLines(ctx, file, { source: 'qwen' })) {
    const parsed = lineValue(line.buf, line.no)
    if (parsed === null) continue
    if (parsed instanceof Error) {
      skipped++
      reporter.bad(line, `not JSON: ${parsed.message}`)
      continue
    }
    const { raw, value: v } = parsed
    if (!headerDone) {
      headerDone = true
      yield header(isObj(v) ? v : null)
    }
    if (!isObj(v) || typeof v.uuid !== 'string' || typeof v.type !== 'string') {
      const nat = nativeOn ? { native: { format: FORMAT, line: line.no, raw } } : {}
      count('native')
      yield { kind: 'native', native_type: 'qwen/line', sid, id: recordId(sid, `line:${line.no + 1}`), seq: seq++, ts: null, ...nat }
      continue
    }
    const native: NativePass | undefined = nativeOn ? { format: FORMAT, line: line.no, raw } : undefined
    const id = recordId(sid, v.uuid)
    const ts = iso(v.timestamp)
    const base = {
      sid,
      id,
      seq: seq++,
      ...(typeof v.parentUuid === 'string' ? { parent: recordId(sid, v.parentUuid) } : {}),
      ...(chain && !chain.has(v.uuid) ? { branch: { active: false } } : v.isSidechain === true ? { branch: { sidechain: true } } : {}),
      ...(native ? { native } : {}),
    }
    const parts = isObj(v.message) ? v.message.parts : undefined
    if (v.type === 'user') {
      const { context, typed } = splitReminders(parts)
      if (context.length) {
        // The reminders Qwen injects are context; what the user typed beside them stays a prompt.
        count('message')
        yield { kind: 'message', role: 'user', ts, blocks: context, context: true, context_kind: 'reminder', ...base, ...(typed.length ? { id: `${id}#context`, native: native ? { format: FORMAT, line: line.no } : undefined } : {}) } as MessageRec
        if (typed.length) {
          count('message')
          yield { kind: 'message', role: 'user', ts, blocks: typed, ...base, seq: seq++ } as MessageRec
        }
        continue
      }
      count('message')
      yield { kind: 'message', role: 'user', ts, blocks: typed, ...base } as MessageRec
      continue
    }
    if (v.type === 'assistant') {
      const m: MessageRec = { kind: 'message', role: 'assistant', ts, blocks: partsToBlocks(parts), ...base }
      if (typeof v.model === 'string') m.model = lastModel = v.model
      const u = usageOfMetadata(v.usageMetadata)
      if (u) m.usage = u
      if (m.blocks.some((b) => b.type === 'tool_use')) m.stop_reason = 'tool_use'
      for (const b of m.blocks) if (b.type === 'tool_use' && b.name === 'agent') agentCalls.set(b.id, b.id)
      count('message')
      yield m
      continue
    }
    if (v.type === 'tool_result') {
      count('message')
      yield { kind: 'message', role: 'user', ts, blocks: toolResults(parts, v.toolCallResult), ...base } as MessageRec
      continue
    }
    if (v.type === 'system' && v.subtype === 'chat_compression') {
      const payload = isObj(v.systemPayload) ? v.systemPayload : {}
      const summary = Array.isArray(payload.compressedHistory)
        ? payload.compressedHistory.map((c: unknown) => (isObj(c) && Array.isArray(c.parts) ? c.parts.map((p: unknown) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('') : '')).filter(Boolean).join('\n\n')
        : undefined
      count('boundary')
      yield { kind: 'boundary', type: 'compaction', ts, replaces_history: true, ...(summary ? { summary } : {}), ...(isObj(payload.info) && typeof payload.info.originalTokenCount === 'number' ? { pre_tokens: payload.info.originalTokenCount } : {}), ...base }
      continue
    }
    count('native')
    yield { kind: 'native', native_type: `qwen/${v.type === 'system' ? `system:${String(v.subtype ?? '')}` : String(v.type)}`, ts, ...base }
  }
  if (!headerDone) yield header(null)
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: skipped === 0, counts, ...(lastModel ? { model: lastModel } : {}) }

  if (link) return
  // Sub-agents: projects/<cwd>/subagents/<session id>/agent-*.jsonl, each with its .meta.json.
  const dir = join(dirname(dirname(file)), 'subagents', info.id)
  let names: string[] = []
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl')).sort()
  } catch {
    return
  }
  for (const name of names) {
    const child = await sessionInfo(ctx, join(dir, name), sid)
    if (!child) continue
    yield* readSession(ctx, child, opts, ...(await childLink(join(dir, name), sid)))
  }
}

/** A sub-agent's link to its parent (the `agent` call from its `.meta.json`) and that file's text. */
async function childLink(path: string, parentSid: string): Promise<[SessionLink, { raw: string; file: string } | undefined]> {
  const metaPath = path.replace(/\.jsonl$/, '.meta.json')
  let raw: string | undefined
  let m: JsonObject = {}
  try {
    raw = await readFile(metaPath, 'utf8')
    const v = JSON.parse(raw)
    if (isObj(v)) m = v
  } catch {
    /* no meta: linked by its folder only */
  }
  const link: SessionLink = { sid: parentSid, kind: 'subagent', ...(typeof m.toolUseId === 'string' ? { tool_use_id: m.toolUseId } : {}), agent_id: typeof m.agentId === 'string' ? m.agentId : basename(path, '.jsonl') }
  return [link, raw === undefined ? undefined : { raw, file: metaPath }]
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  if (!info.parent) return readableOf(readSession(ctx, info, opts))
  return readableOf(
    (async function* () {
      const [link, meta] = await childLink(info.path, info.parent!)
      yield* readSession(ctx, info, opts, link, meta)
    })(),
  )
}
