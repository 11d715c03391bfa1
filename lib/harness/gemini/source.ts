/**
 * The Gemini CLI source: a chat recording → common records, then its
 * sub-agents' recordings (`chats/<session id>/<agent id>.jsonl`).
 *
 * Two passes over the file (replay.ts first), so that memory stays flat:
 * each message is emitted once, where Gemini's loader keeps it (its first
 * copy's place) with its last copy's content; the lines in between that are
 * only `$set` bookkeeping travel with it as `native.merged`, so a Gemini
 * sink writes the file back byte for byte. Records a `$rewindTo` removed
 * are inactive branch records. A tool result is read once: from the call's
 * `toolCalls[].result` (a user message after the model turn), and the
 * separate `functionResponse` user record that repeats it is passed through
 * as native only.
 */
import { readdir } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { readableOf } from '../../io/drain.js'
import { LineReporter, readLines } from '../../io/line-file.js'
import { isObj, recordId, sessionKey, sessionRecord, type Block, type FerryRecord, type JsonObject, type MessageRec, type NativePass, type SessionLink } from '../../model.js'
import { partsToBlocks, usageOfTokens } from '../family/gemini-parts.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { callResults, contextKindOf, modelBlocks, portableCallId, textOf } from './records.js'
import { fastId, replay } from './replay.js'
import { sessionInfo } from './discover.js'
import { lineValue } from '../family/gemini-lines.js'

export const FORMAT = 'gemini/jsonl'

interface Item {
  id: string
  no: number
  raw: string
  /** The last copy's record; null until it is parsed. */
  value: JsonObject | null
  /** Earlier copies and the `$set` lines that came between them. */
  merged: Array<{ line: number; raw: string }>
  done: boolean
}

function iso(v: unknown): string | null {
  if (typeof v !== 'string') return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? new Date(t).toISOString() : null
}

async function* readSession(ctx: StoreContext, info: SessionInfo, opts: ReadOpts, link?: SessionLink): AsyncGenerator<FerryRecord> {
  const file = info.path
  const sid = sessionKey('gemini', info.id)
  const nativeOn = opts.native === true
  const plan = await replay(ctx, file)
  const reporter = new LineReporter(ctx, 'gemini', file)
  const counts: Record<string, number> = {}
  let skipped = 0
  let headerDone = false
  let seq = 0
  // Call ids whose results were read, until the next typed prompt: the separate copy follows its turn.
  const answered = new Set<string>()
  const subagents: Array<{ agentId: string; callId: string }> = []
  // Emitted ids are marked -1 in the first pass's map (no second set of every id).
  const emitted = { has: (id: string) => plan.lastLine.get(id) === -1, add: (id: string) => void plan.lastLine.set(id, -1) }
  const queue: Item[] = []
  const byId = new Map<string, Item>()
  let lastModel: string | undefined
  const native = (no: number, raw?: string, merged?: Item['merged']): NativePass | undefined =>
    nativeOn ? { format: FORMAT, line: no, ...(raw !== undefined ? { raw } : {}), ...(merged?.length ? { merged } : {}) } : undefined
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1)

  function header(meta: JsonObject | null, no: number, raw: string): FerryRecord {
    const h = sessionRecord({
      sid,
      source: { harness: 'gemini', locator: { path: file } },
      native_id: info.id,
      ...(info.cwd ? { cwd: info.cwd } : {}),
      ...(plan.summary && !link ? { title: plan.summary.trim().split('\n')[0]!.slice(0, 200), title_source: 'summary' } : info.title ? { title: info.title, ...(info.title_source ? { title_source: info.title_source } : {}) } : {}),
      ...(iso(meta?.startTime) ? { created_at: iso(meta?.startTime)! } : {}),
      ...(iso(plan.lastUpdated ?? meta?.lastUpdated) ? { updated_at: iso(plan.lastUpdated ?? meta?.lastUpdated)! } : {}),
      ...(link ? { parent: link } : {}),
    })
    const n = meta ? native(no, raw) : undefined
    if (n) h.native = n
    if (meta && Array.isArray(meta.directories)) h.x = { 'gemini.directories': meta.directories }
    return h
  }

  /** One complete message record → its records. */
  function* convert(item: Item): Generator<FerryRecord> {
    if (!item.value) {
      try {
        const v = JSON.parse(item.raw)
        item.value = isObj(v) ? v : {}
      } catch {
        item.value = {}
      }
    }
    const r = item.value
    const firstTime = !emitted.has(item.id)
    emitted.add(item.id)
    const locator = firstTime ? item.id : `${item.id}@${item.no}`
    const id = recordId(sid, locator)
    const ts = iso(r.timestamp)
    const inactive = plan.rewound.has(item.id)
    const nat = native(item.no, item.raw, item.merged)
    const base = { sid, id, seq: seq++, ...(nat ? { native: nat } : {}), ...(inactive ? { branch: { active: false } } : {}) }
    if (r.type === 'user') {
      const blocks = partsToBlocks(r.content, portableCallId)
      const fresh = blocks.filter((b) => b.type !== 'tool_result' || !answered.has(b.tool_use_id))
      if (fresh.length === 0 && blocks.length > 0) {
        // The separate copy of results already read from the model turn's toolCalls.
        count('native')
        yield { kind: 'native', native_type: 'gemini/function-response', ts, ...base } as FerryRecord
        return
      }
      if (!fresh.some((b) => b.type === 'tool_result')) answered.clear()
      for (const b of fresh) if (b.type === 'tool_result') answered.add(b.tool_use_id)
      const m: MessageRec = { kind: 'message', role: 'user', ts, blocks: fresh, ...base }
      const ck = contextKindOf(textOf(r.content))
      const typed = ck ? typedAfterContext(fresh) : null
      if (ck && typed) {
        // Gemini's session context and the person's words in one message: the context is its own record.
        count('message')
        yield { kind: 'message', role: 'user', ts, blocks: typed.context, context: true, context_kind: ck, ...base, id: `${id}#context`, native: undefined } as MessageRec
        m.blocks = typed.typed
        m.seq = seq++
      } else if (ck) {
        m.context = true
        m.context_kind = ck
      }
      count('message')
      yield m
      return
    }
    if (r.type === 'gemini') {
      const m: MessageRec = { kind: 'message', role: 'assistant', ts, blocks: modelBlocks(r), ...base }
      if (typeof r.model === 'string') m.model = lastModel = r.model
      const usage = usageOfTokens(r.tokens)
      if (usage) m.usage = usage
      if (m.blocks.some((b) => b.type === 'tool_use')) m.stop_reason = 'tool_use'
      count('message')
      yield m
      const results = callResults(r).filter((b) => !answered.has(b.tool_use_id))
      if (results.length) {
        for (const b of results) answered.add(b.tool_use_id)
        for (const c of Array.isArray(r.toolCalls) ? r.toolCalls : []) {
          if (isObj(c) && typeof c.agentId === 'string' && typeof c.id === 'string') subagents.push({ agentId: c.agentId, callId: portableCallId(c.id, String(c.name ?? '')) })
        }
        // Part of the line above: a native pass without bytes of its own.
        const rn = nativeOn ? { native: { format: FORMAT, line: item.no } } : {}
        count('message')
        yield { kind: 'message', role: 'user', ts, blocks: results as Block[], sid, id: `${id}#results`, seq: seq++, parent: id, ...rn, ...(inactive ? { branch: { active: false } } : {}) } as MessageRec
      }
      return
    }
    if (r.type !== 'info' && r.type !== 'error' && r.type !== 'warning') {
      count('native')
      yield { kind: 'native', native_type: `gemini/${String(r.type)}`, ts, ...base } as FerryRecord
      return
    }
    // info / error / warning: UI notices, never sent to the model.
    const text = textOf(r.content)
    count('message')
    yield { kind: 'message', role: 'system', ts, blocks: text ? [{ type: 'text', text }] : [], context: true, context_kind: 'other', x: { 'gemini.type': String(r.type) }, ...base } as MessageRec
  }

  function* flush(): Generator<FerryRecord> {
    while (queue.length && queue[0]!.done) {
      const item = queue.shift()!
      byId.delete(item.id)
      yield* convert(item)
    }
  }

  for await (const line of readLines(ctx, file, { source: 'gemini' })) {
    // An earlier copy of a record a later line replaces: only its place (and bytes, for a native pass) matter.
    const early = line.no > 0 ? fastId(line.buf) : undefined
    if (early !== undefined && headerDone && (plan.lastLine.get(early) ?? -1) > line.no) {
      // Kept unparsed: parsed only if the later copy never comes (a file cut short).
      const item = byId.get(early)
      const raw = line.buf.toString('utf8')
      if (!item) {
        const it: Item = { id: early, no: line.no, raw, value: null, merged: [], done: false }
        byId.set(early, it)
        queue.push(it)
      } else {
        if (nativeOn) item.merged.push({ line: item.no, raw: item.raw })
        item.no = line.no
        item.raw = raw
        item.value = null
      }
      continue
    }
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
      if (isObj(v) && typeof v.sessionId === 'string' && !('type' in v)) {
        yield header(v, line.no, raw)
        continue
      }
      yield header(null, line.no, raw)
    }
    if (!isObj(v)) {
      skipped++
      reporter.bad(line, 'not a JSON object')
      continue
    }
    if (typeof v.id === 'string' && typeof v.type === 'string') {
      let item = byId.get(v.id)
      const at = plan.lastLine.get(v.id)
      const last = at !== undefined && at >= 0 ? at : line.no
      if (!item) {
        item = { id: v.id, no: line.no, raw, value: v, merged: [], done: false }
        byId.set(v.id, item)
        queue.push(item)
      } else {
        if (nativeOn) item.merged.push({ line: item.no, raw: item.raw })
        item.no = line.no
        item.raw = raw
        item.value = v
      }
      if (line.no >= last) item.done = true
      yield* flush()
      continue
    }
    if (isObj(v.$set) && !Array.isArray(v.$set.messages) && queue.length) {
      // Bookkeeping between two copies of a record: it travels with that record.
      if (nativeOn) queue[0]!.merged.push({ line: line.no, raw })
      continue
    }
    // Anything else waits for the records before it.
    for (const it of queue) it.done = true
    yield* flush()
    const nat = native(line.no, raw)
    const at = recordId(sid, `line:${line.no + 1}`)
    if (typeof v.$rewindTo === 'string') {
      count('boundary')
      yield { kind: 'boundary', type: 'rewind', sid, id: at, seq: seq++, ts: null, x: { 'gemini.rewind_to': v.$rewindTo }, ...(nat ? { native: nat } : {}) }
      continue
    }
    if (isObj(v.$set) && Array.isArray(v.$set.messages)) {
      const msgs = v.$set.messages.filter((m: unknown): m is JsonObject => isObj(m) && typeof m.id === 'string' && typeof m.type === 'string')
      const keeps = new Set(msgs.map((m: JsonObject) => m.id as string))
      let dropped = false
      for (const [e, at] of plan.lastLine) {
        if (at === -1 && !keeps.has(e) && !plan.rewound.has(e)) {
          dropped = true
          break
        }
      }
      if (dropped) {
        count('boundary')
        yield { kind: 'boundary', type: 'compaction', sid, id: at, seq: seq++, ts: null, replaces_history: true, ...(nat ? { native: nat } : {}) }
      } else {
        count('native')
        yield { kind: 'native', native_type: 'gemini/checkpoint', sid, id: at, seq: seq++, ts: null, ...(nat ? { native: nat } : {}) }
      }
      for (const m of msgs) {
        if (emitted.has(m.id) && !dropped) continue
        const item: Item = { id: m.id, no: line.no, raw: '', value: m, merged: [], done: true }
        for (const rec of convert(item)) {
          // Part of the checkpoint line: no bytes of its own.
          if (nativeOn) (rec as { native?: NativePass }).native = { format: FORMAT, line: line.no }
          else delete (rec as { native?: NativePass }).native
          yield rec
        }
      }
      continue
    }
    count('native')
    yield { kind: 'native', native_type: isObj(v.$set) ? 'gemini/$set' : 'gemini/line', sid, id: at, seq: seq++, ts: null, ...(nat ? { native: nat } : {}) }
  }
  if (!headerDone) yield header(null, 0, '')
  for (const it of queue) it.done = true
  yield* flush()
  yield { kind: 'end', sid, id: recordId(sid, 'end'), complete: skipped === 0, counts, ...(lastModel ? { model: lastModel } : {}) }

  // Sub-agents: chats/<this id>/<agent id>.jsonl, linked to the call that started them.
  if (link) return
  const dir = join(dirname(file), info.id)
  let names: string[] = []
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort()
  } catch {
    return
  }
  for (const name of names) {
    const child = await sessionInfo(ctx, join(dir, name), info.cwd, sid)
    if (!child) continue
    const agentId = basename(name, '.jsonl')
    const call = subagents.find((s) => s.agentId === child.id || s.agentId === agentId)
    yield* readSession(ctx, child, opts, { sid, kind: 'subagent', ...(call ? { tool_use_id: call.callId } : {}), agent_id: child.id })
  }
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  const link: SessionLink | undefined = info.parent ? { sid: info.parent, kind: 'subagent', agent_id: info.id } : undefined
  return readableOf(readSession(ctx, info, opts, link))
}

/** Splits a user message whose text starts with a context section (`<session_context>…</session_context>`) followed by typed words; null when nothing was typed. */
function typedAfterContext(blocks: Block[]): { context: Block[]; typed: Block[] } | null {
  const context: Block[] = []
  const typed: Block[] = []
  for (const b of blocks) {
    if (b.type !== 'text' || typed.length) {
      typed.push(b)
      continue
    }
    const m = /^\s*<([a-z_]+)>[\s\S]*?<\/\1>/.exec(b.text)
    if (!m) {
      typed.push(b)
      continue
    }
    context.push({ type: 'text', text: m[0] })
    const rest = b.text.slice(m[0].length).trim()
    if (rest) typed.push({ type: 'text', text: rest })
  }
  return context.length && typed.some((b) => b.type !== 'text' || b.text.trim() !== '') ? { context, typed } : null
}
