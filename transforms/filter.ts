/**
 * filter: selects sessions, and records and blocks within them, keeping the
 * stream valid. Its options are `filterOptions` below.
 *
 * Pairing: a dropped tool call drops its result; a result whose call was
 * already written is kept. Messages left with no blocks are dropped, and a
 * `parent` pointing at a dropped record is re-pointed to its nearest kept
 * ancestor. Changed messages lose `native`; headers, `end` and untouched
 * records pass as they are. What passed is counted: the stream's `counts`,
 * final when it emits `count` at its end.
 */
import type { Transform } from 'node:stream'
import { sourceHarness, type Block, type FerryRecord, type MessageRec, type SessionRec } from '../lib/model.js'
import { mapRecords } from '../lib/io/pipeline.js'
import { cwdMatcher, parseTime, sessionTime } from '../lib/query/select.js'
import { UsageError } from '../lib/errors.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'
import { withBlocks } from './util.js'

const BLOCK_KINDS = ['text', 'thinking', 'tool', 'image', 'file', 'unknown'] as const

export const filterOptions = defineOptions({
  harness: { type: 'list', describe: 'Only sessions of these harnesses' },
  cwd: { type: 'string', describe: 'Only sessions of this directory or below; a value with glob characters is a glob on the path (`*` within a segment, `**` across, `{a,b}`, `[…]`)' },
  since: { type: 'string', describe: 'Sessions created at or after this ISO date/time, or this span ago (7d, 12h, 30m, 2w)' },
  until: { type: 'string', describe: 'Sessions created at or before this ISO date/time, or this span ago' },
  title: { type: 'string', describe: 'Regex on the title (case-insensitive)' },
  grep: { type: 'string', describe: 'Regex on message text, case-insensitive (holds one session in memory)' },
  subagents: { type: 'boolean', default: true, describe: 'Keep sub-agent sessions (`--no-subagents` drops them)' },
  minMessages: { type: 'number', integer: true, min: 0, describe: 'At least this many messages (holds one session in memory)' },
  maxMessages: { type: 'number', integer: true, min: 0, describe: 'At most this many messages (holds one session in memory)' },
  invert: { type: 'boolean', default: false, describe: 'Keep the sessions that do NOT match the session options' },
  roles: { type: 'list', choices: ['user', 'assistant', 'system'], describe: 'Keep messages of these roles' },
  context: { type: 'boolean', default: true, describe: 'Keep injected context (`--no-context` drops it)' },
  blocks: { type: 'list', choices: BLOCK_KINDS, describe: 'Keep these block kinds (`tool`: calls and results together)' },
  tools: { type: 'list', describe: 'Keep only calls of these tool names (native or canonical) and their results' },
  range: { type: 'string', describe: 'Messages `A-B` or `#A-B` (1-based); refuses a range that cuts a tool pair (holds one session in memory)' },
})

export type FilterOptions = OptionsOf<typeof filterOptions>

/** What passed a filter: sessions, messages, and records of any kind. */
export interface FilterCount {
  sessions: number
  messages: number
  records: number
}

/** A filter stage: `counts` grows as records pass; `count` is emitted with the final one at the end. */
export interface FilterStream extends Transform {
  readonly counts: FilterCount
}

function parseRange(s: string): [number, number] {
  const m = /^#?(\d+)(?:-(\d+))?$/.exec(s.trim())
  if (!m) throw new UsageError(`filter: bad range "${s}" (expected 5-12 or #5-12)`)
  const a = Number(m[1])
  const b = m[2] === undefined ? a : Number(m[2])
  if (a < 1 || b < a) throw new UsageError(`filter: bad range "${s}"`)
  return [a, b]
}

const BLOCK_KIND: Record<Block['type'], string> = {
  text: 'text',
  thinking: 'thinking',
  tool_use: 'tool',
  tool_result: 'tool',
  image: 'image',
  file: 'file',
  unknown: 'unknown',
}

/** Narrows [a, b] (1-based message positions) to a range that cuts no tool pair. */
function validRange(messages: MessageRec[], a: number, b: number): [number, number] {
  const useAt = new Map<string, number>()
  const resAt = new Map<string, number>()
  messages.forEach((m, i) => {
    for (const bl of m.blocks) {
      if (bl.type === 'tool_use') useAt.set(bl.id, i + 1)
      else if (bl.type === 'tool_result') resAt.set(bl.tool_use_id, i + 1)
    }
  })
  let lo = a
  let hi = Math.min(b, messages.length)
  for (let changed = true; changed; ) {
    changed = false
    for (const [id, u] of useAt) {
      const r = resAt.get(id)
      if (r === undefined) continue
      const inU = u >= lo && u <= hi
      const inR = r >= lo && r <= hi
      if (inU && !inR) (hi = Math.max(hi, r)), (changed = true)
      if (inR && !inU) (lo = Math.min(lo, u)), (changed = true)
    }
  }
  return [lo, hi]
}

function regex(key: string, source: string): RegExp {
  try {
    return new RegExp(source, 'i')
  } catch (err) {
    throw new UsageError(`filter: ${key} is not a valid regex: ${(err as Error).message}`)
  }
}

export function filter(options: FilterOptions = {}): FilterStream {
  const opts = resolveOptions('filter', filterOptions, options)
  const now = Date.now()
  const cwdOk = opts.cwd !== undefined ? cwdMatcher(opts.cwd) : null
  const titleRe = opts.title ? regex('title', opts.title) : null
  const grepRe = opts.grep ? regex('grep', opts.grep) : null
  const range = opts.range ? parseRange(opts.range) : null
  const since = opts.since !== undefined ? parseTime(opts.since, now, 'since') : null
  const until = opts.until !== undefined ? parseTime(opts.until, now, 'until') : null
  const roles = opts.roles ? new Set(opts.roles) : null
  const kinds = opts.blocks ? new Set<string>(opts.blocks) : null
  const tools = opts.tools ? new Set(opts.tools) : null
  // Without both user and assistant messages, tool pairs cannot survive: drop tool blocks on both sides.
  const toolsBroken = roles !== null && !(roles.has('user') && roles.has('assistant'))
  const buffered = grepRe !== null || range !== null || opts.minMessages !== undefined || opts.maxMessages !== undefined
  const count: FilterCount = { sessions: 0, messages: 0, records: 0 }

  function headerPasses(s: SessionRec): boolean {
    const ok = (() => {
      if (opts.harness && !opts.harness.includes(sourceHarness(s))) return false
      if (cwdOk && !cwdOk(s.cwd)) return false
      const t = sessionTime(s.created_at, s.updated_at)
      if (since !== null && !(t >= since)) return false
      if (until !== null && !(t <= until)) return false
      if (titleRe && !titleRe.test(s.title ?? '')) return false
      if (opts.subagents === false && s.parent?.kind === 'subagent') return false
      return true
    })()
    return ok
  }

  // Per-session state.
  let keep = false
  let header: SessionRec | null = null
  let buffer: FerryRecord[] | null = null
  let dropped = new Set<string>()
  let emitted = new Set<string>()
  let parentOf = new Map<string, string | undefined>()
  let msgIndex = 0

  function resolveParent(p: string | undefined): string | undefined {
    let cur = p
    for (let guard = 0; cur !== undefined && parentOf.has(cur) && guard < 1_000_000; guard++) cur = parentOf.get(cur)
    return cur
  }

  function message(m: MessageRec, pos: number, lo: number, hi: number): MessageRec | null {
    const outOfRange = pos < lo || pos > hi
    const roleOut = roles !== null && !roles.has(m.role)
    const ctxOut = opts.context === false && m.context === true
    const whole = outOfRange || roleOut || ctxOut
    const blocks: Block[] = []
    for (const b of m.blocks) {
      let keepB = !whole && (kinds === null || kinds.has(BLOCK_KIND[b.type]))
      if (b.type === 'tool_use') {
        if (toolsBroken) keepB = false
        if (tools && !tools.has(b.name) && !(b.native_name && tools.has(b.native_name))) keepB = false
        if (keepB) emitted.add(b.id)
        else dropped.add(b.id)
      } else if (b.type === 'tool_result') {
        if (dropped.has(b.tool_use_id)) keepB = false
        else if (emitted.has(b.tool_use_id)) keepB = true
        else if (toolsBroken || tools) keepB = false
      }
      if (keepB) blocks.push(b)
    }
    if (blocks.length === 0) {
      parentOf.set(m.id, m.parent)
      return null
    }
    let out: MessageRec = blocks.length === m.blocks.length ? m : withBlocks(m, blocks)
    if (out.parent !== undefined && parentOf.has(out.parent)) {
      const p = resolveParent(out.parent)
      const { native: _n, parent: _p, ...rest } = out
      out = p === undefined ? rest : { ...rest, parent: p }
    }
    return out
  }

  function emitSession(recs: FerryRecord[], push: (r: FerryRecord) => void): void {
    const msgs = recs.filter((r): r is MessageRec => r.kind === 'message')
    // A session that fails a session-level test is dropped whole: none of its records is pushed.
    if (grepRe && !msgs.some((m) => m.blocks.some((b) => (b.type === 'text' || b.type === 'thinking') && grepRe.test(b.text)))) return
    if (opts.minMessages !== undefined && msgs.length < opts.minMessages) return
    if (opts.maxMessages !== undefined && msgs.length > opts.maxMessages) return
    let lo = 1
    let hi = Number.MAX_SAFE_INTEGER
    if (range) {
      const [a, b] = range
      const [vlo, vhi] = validRange(msgs, a, b)
      if (vlo !== a || vhi !== Math.min(b, msgs.length))
        throw new Error(`filter: range #${a}-${b} of ${header?.sid ?? 'a session'} cuts a tool call from its result; nearest valid range: #${vlo}-${vhi}`)
      ;[lo, hi] = [a, b]
    }
    let pos = 0
    for (const r of recs) pass(r, r.kind === 'message' ? ++pos : 0, lo, hi, push)
  }

  function pass(r: FerryRecord, pos: number, lo: number, hi: number, push: (r: FerryRecord) => void): void {
    if (r.kind === 'message') {
      const m = message(r, pos, lo, hi)
      if (!m) return
      count.messages++
      count.records++
      return push(m)
    }
    if (r.kind === 'session') count.sessions++
    count.records++
    push(r)
  }

  const stream = mapRecords(
    (rec, push) => {
      if (rec.kind === 'stream') return push(rec)
      if (rec.kind === 'session') {
        if (buffer && header) emitSession(buffer, push)
        header = rec
        keep = headerPasses(rec) !== !!opts.invert
        dropped = new Set()
        emitted = new Set()
        parentOf = new Map()
        msgIndex = 0
        buffer = keep && buffered ? [rec] : null
        if (keep && !buffered) pass(rec, 0, 1, Number.MAX_SAFE_INTEGER, push)
        return
      }
      if (!keep) return
      if (buffer) {
        buffer.push(rec)
        if (rec.kind === 'end') {
          emitSession(buffer, push)
          buffer = null
        }
        return
      }
      pass(rec, rec.kind === 'message' ? ++msgIndex : 0, 1, Number.MAX_SAFE_INTEGER, push)
    },
    (push) => {
      if (buffer) emitSession(buffer, push)
      buffer = null
      stream.emit('count', count)
    },
  ) as Transform & { counts: FilterCount }
  stream.counts = count
  return stream
}
