/**
 * The record walker: a Transform from records to text in one format. It
 * numbers messages per session (1-based, as `filter --range` counts them),
 * applies a range, keeps the call index that labels results (ids and short
 * labels only, never content), and nests sub-agent sessions inside the
 * session that started them. One record in, one piece of text out: memory
 * does not grow with the session's size.
 */
import { Transform, type TransformCallback } from 'node:stream'
import type { Block, FerryRecord, MessageRec, SessionRec } from '../model.js'
import { sourceHarness } from '../model.js'
import { harnesses } from '../harness/registry.js'
import { VERSION } from '../version.js'
import { oneLine } from './clean.js'
import type { CallInfo, Footer, Format, Place, SessionStats } from './format.js'
import { callSummary } from './summary.js'

export interface WalkOptions {
  /** 1-based inclusive message range, applied to every session. */
  range?: [number, number] | null
  /** Called at the end for the footer's redaction counts (null: not redacted). */
  redacted?: () => Record<string, number> | null
  /** Show injected context (default: each run of it is one summary line). */
  context?: boolean
}

/** A block the harness injected, where the model marks context per block. */
const contextBlock = (b: Block): boolean => (b as { context?: unknown }).context === true

/**
 * What of a message is shown when injected context is hidden: the message,
 * the message without its context blocks, or null (all of it is context).
 * A tool result is never hidden (it answers a call that is shown), and text
 * a person typed never is: where blocks carry the mark, only marked blocks go.
 */
export function withoutContext(m: MessageRec): { shown: MessageRec | null; hidden: boolean } {
  if (m.blocks.some((b) => typeof (b as { context?: unknown }).context === 'boolean')) {
    const keep = m.blocks.filter((b) => !contextBlock(b) || b.type === 'tool_result')
    if (keep.length === m.blocks.length) return { shown: m, hidden: false }
    return { shown: keep.length ? { ...m, context: false, blocks: keep } : null, hidden: true }
  }
  if (!m.context) return { shown: m, hidden: false }
  if (m.blocks.length > 0 && m.blocks.every((b) => b.type === 'tool_result')) return { shown: { ...m, context: false }, hidden: false }
  return { shown: null, hidden: true }
}

/** The display name of a source harness, from the registry. */
export function agentName(id: string): string {
  return harnesses.find((h) => h.id === id)?.name ?? (id || 'unknown agent')
}

/** Parses `5-12`, `#5-12` or `5` into a 1-based inclusive range. */
export function parseRange(s: string): [number, number] {
  const m = /^#?(\d+)(?:-(\d+)?)?$/.exec(s.trim())
  if (!m) throw new RangeError(`bad range "${s}" (expected 5-12, #5-12, 5- or 5)`)
  const a = Number(m[1])
  const b = m[2] !== undefined ? Number(m[2]) : s.includes('-') ? Number.MAX_SAFE_INTEGER : a
  if (a < 1 || b < a) throw new RangeError(`bad range "${s}"`)
  return [a, b]
}

/** Results follow their calls closely: the oldest labels are dropped past this many, so memory stays flat. */
const MAX_CALLS = 20_000

function remember(map: Map<string, CallInfo>, id: string, info: CallInfo): void {
  map.set(id, info)
  if (map.size > MAX_CALLS) map.delete(map.keys().next().value!)
}

interface Open {
  sid: string
  place: Place
}

export class RenderStream extends Transform {
  private readonly stack: Open[] = []
  private sessions = 0
  private subagents = 0
  /** A session came in already redacted (`redacted: true` on its header, from `ferry redact`): the footer says so. */
  private redactedBefore = false
  private readonly agents = new Set<string>()
  private current: { place: Place; calls: Map<string, CallInfo>; stats: SessionStats; n: number; ended: boolean; hidden: { count: number; from: number; to: number } } | null = null
  /** Calls that may have started a sub-agent: id → label, for the sub-agent's header (labels only). */
  private readonly starters = new Map<string, CallInfo>()
  private started = false

  constructor(
    private readonly format: Format,
    private readonly opts: WalkOptions = {},
  ) {
    super({ writableObjectMode: true, readableObjectMode: false, writableHighWaterMark: 16 })
  }

  private out(s: string): void {
    if (s) this.push(s)
  }

  private inRange(n: number): boolean {
    const r = this.opts.range
    return !r || (n >= r[0] && n <= r[1])
  }

  /** The summary line of the injected context left out since the last piece shown. */
  private hiddenLine(): void {
    const c = this.current
    if (!c || c.hidden.count === 0) return
    this.out(this.format.hiddenContext(c.hidden.count, c.hidden.from, c.hidden.to, c.place))
    c.hidden = { count: 0, from: 0, to: 0 }
  }

  private endCurrent(): void {
    const c = this.current
    if (c && !c.ended) {
      this.hiddenLine()
      c.ended = true
      this.out(this.format.sessionEnd(c.stats, c.place))
    }
  }

  private openSession(h: SessionRec): void {
    this.endCurrent()
    // Close the open sessions this one is not a sub-agent of.
    const parentSid = h.parent?.kind === 'subagent' ? h.parent.sid : undefined
    while (this.stack.length && this.stack[this.stack.length - 1]!.sid !== parentSid) this.out(this.format.close(this.stack.pop()!.place))
    if (this.stack.length === 0) this.starters.clear()
    const depth = this.stack.length
    if (depth > 0) this.subagents++
    this.sessions++
    const place: Place = { session: this.sessions, depth }
    const agent = agentName(sourceHarness(h))
    this.agents.add(agent)
    if (h.redacted) this.redactedBefore = true
    const startedBy = h.parent?.tool_use_id ? this.starters.get(h.parent.tool_use_id) : undefined
    this.out(this.format.session(h, place, agent, startedBy))
    this.stack.push({ sid: h.sid, place })
    this.current = { place, calls: new Map(), stats: { messages: 0, shown: 0, toolCalls: 0, errors: 0, images: 0, context: 0, boundaries: 0 }, n: 0, ended: false, hidden: { count: 0, from: 0, to: 0 } }
  }

  override _transform(rec: FerryRecord, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.step(rec)
      cb()
    } catch (err) {
      cb(err as Error)
    }
  }

  private step(rec: FerryRecord): void {
    if (!this.started) {
      this.started = true
      this.out(this.format.start())
    }
    switch (rec.kind) {
      case 'session':
        return this.openSession(rec)
      case 'message': {
        const c = this.current
        if (!c) return
        const n = ++c.n
        c.stats.messages++
        for (const b of rec.blocks) {
          if (b.type === 'tool_use') {
            const call = callSummary(b)
            const info = { name: oneLine(call.name, 60), arg: oneLine(call.arg, 200) }
            remember(c.calls, b.id, info)
            remember(this.starters, b.id, info)
            c.stats.toolCalls++
          } else if (b.type === 'tool_result' && b.is_error) c.stats.errors++
          else if (b.type === 'image') c.stats.images++
        }
        if (rec.context || rec.blocks.some(contextBlock)) c.stats.context++
        if (!this.inRange(n)) return
        c.stats.shown++
        const { shown, hidden } = this.opts.context ? { shown: rec, hidden: false } : withoutContext(rec)
        if (hidden) {
          if (c.hidden.count++ === 0) c.hidden.from = n
          c.hidden.to = n
        }
        if (!shown) return
        this.hiddenLine()
        this.out(this.format.message(shown, n, c.place, c.calls))
        return
      }
      case 'boundary': {
        const c = this.current
        if (!c) return
        c.stats.boundaries++
        const r = this.opts.range
        if (r && (c.n < r[0] - 1 || c.n >= r[1])) return
        this.hiddenLine()
        this.out(this.format.boundary(rec, c.place))
        return
      }
      case 'end': {
        this.endCurrent()
        // The call index is per session; sub-agent headers use `starters`.
        this.current?.calls.clear()
        return
      }
      default:
        return
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      if (!this.started) this.out(this.format.start())
      this.endCurrent()
      while (this.stack.length) this.out(this.format.close(this.stack.pop()!.place))
      const footer: Footer = {
        version: VERSION,
        agents: [...this.agents],
        sessions: this.sessions,
        subagents: this.subagents,
        redacted: this.opts.redacted ? this.opts.redacted() : null,
        ...(this.redactedBefore ? { redactedBefore: true } : {}),
      }
      this.out(this.format.finish(footer))
      cb()
    } catch (err) {
      cb(err as Error)
    }
  }
}
