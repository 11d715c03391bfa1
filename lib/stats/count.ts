/**
 * Counting: the usage on the message records of a record stream, summed into groups (day, week,
 * month, session, project, model, agent) and totals, with each message's cost. Records come from
 * any harness's reader or the archive, so the numbers are the same for both. The per-agent rules
 * (which native lines carry a response's usage once) live in the harness readers; what is left
 * here applies to every agent alike and is in docs/stats.md.
 */
import type { FerryRecord, NativeRec, SessionRec, Usage } from '../model.js'
import type { NativeUsage } from '../harness/types.js'
import { costOf, type Prices } from './prices.js'

export const GROUP_BY = ['day', 'week', 'month', 'session', 'project', 'model', 'agent'] as const
export type GroupBy = (typeof GROUP_BY)[number]

/** The totals of `--json`: these field names exactly (issue #45). */
export interface Totals {
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_write_tokens: number
  reasoning_tokens: number
  cost_usd: number
}

export interface StatsRow extends Totals {
  /** The group: a day (YYYY-MM-DD), a week (its Monday), a month (YYYY-MM), a session key, a project directory, a model, an agent id. */
  key: string
  /** For `--by session`: the session's agent and project. */
  agent?: string
  project?: string
  /** input + output + cache read + cache write (reasoning is part of output where the agent counts it so). */
  total_tokens: number
  /** Model responses that carried usage. */
  messages: number
  sessions: number
  /** Models in this group with neither a recorded cost nor a price: their tokens are counted, their cost is not. */
  unpriced_models?: string[]
}

export interface Unpriced {
  model: string
  messages: number
  tokens: number
}

export interface StatsResult {
  by: GroupBy
  rows: StatsRow[]
  totals: Totals
  /** Models without a price, for the warning and the table's footnote. */
  unpriced: Unpriced[]
  /** Dates of the prices used. */
  prices_date: string
}

export interface CountOptions {
  by: GroupBy
  prices: Prices
  /** Epoch ms: only usage at or after / at or before (a message without a time takes its session's). */
  since?: number
  until?: number
  /** The agent's reading of a native record that carries a billed response no message does (`Harness.nativeUsage`). */
  nativeUsage?: (agent: string, rec: NativeRec) => NativeUsage | undefined
}

const UNKNOWN_MODEL = '(unknown model)'
const UNKNOWN_PROJECT = '(no directory)'

interface Group extends Omit<StatsRow, 'sessions' | 'unpriced_models'> {
  sids: Set<string>
  unpriced?: Set<string>
}

interface Current {
  sid: string
  agent: string
  cwd?: string
  model?: string
  /** When the session happened, for messages without a time of their own. */
  ts?: string
  /** Already counted (a sub-agent session its parent's read carried): skipped. */
  skip: boolean
}

const zero = (): Totals => ({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, cost_usd: 0 })

export class UsageCounter {
  private readonly groups = new Map<string, Group>()
  private readonly totals = zero()
  private readonly counted = new Set<string>()
  /** Provider response ids already counted, per agent: a response copied into another session (a fork, a resume) is counted once. */
  private readonly responses = new Set<string>()
  private readonly unpriced = new Map<string, Unpriced>()
  private cur: Current | null = null

  constructor(private readonly opts: CountOptions) {}

  /** Whether a session was already counted (its parent's read carried it): its own read can be skipped. */
  has(sid: string): boolean {
    return this.counted.has(sid)
  }

  /** One record of a stream; `fallbackAgent` names the agent when a header lacks it. */
  add(rec: FerryRecord, fallbackAgent?: string): void {
    if (rec.kind === 'session') return this.session(rec, fallbackAgent)
    if (!this.cur || this.cur.skip) return
    if (rec.kind === 'message' && rec.usage) this.response(rec, rec.usage, this.cur)
    else if (rec.kind === 'native' && this.opts.nativeUsage) {
      const n = this.opts.nativeUsage(this.cur.agent, rec)
      if (n) this.response(n, n.usage, this.cur)
    }
  }

  private session(rec: SessionRec, fallbackAgent?: string): void {
    const skip = this.counted.has(rec.sid)
    this.counted.add(rec.sid)
    this.cur = {
      sid: rec.sid,
      agent: rec.source?.harness ?? fallbackAgent ?? rec.sid.slice(0, rec.sid.indexOf(':')),
      ...(rec.cwd ? { cwd: rec.cwd } : {}),
      ...(rec.model ? { model: rec.model } : {}),
      ...((rec.created_at ?? rec.updated_at) ? { ts: rec.created_at ?? rec.updated_at } : {}),
      skip,
    }
  }

  /** One billed response: a message's usage, or one a native record carries. */
  private response(rec: { api_message_id?: string; ts?: string | null; model?: string }, u: Usage, s: Current): void {
    if (rec.api_message_id) {
      const key = `${s.agent}\0${rec.api_message_id}`
      if (this.responses.has(key)) return
      this.responses.add(key)
    }
    const stamp = rec.ts ?? s.ts
    const t = stamp ? Date.parse(stamp) : Number.NaN
    const { since, until } = this.opts
    // Outside the window, or not placeable in time when one is asked for.
    if ((since !== undefined || until !== undefined) && Number.isNaN(t)) return
    if (since !== undefined && t < since) return
    if (until !== undefined && t > until) return
    const model = rec.model ?? s.model ?? UNKNOWN_MODEL
    const tokens = (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0)
    let cost: number | null
    // The agent's own figure first. A recorded 0 for real tokens is "not priced" (OpenCode writes 0 for providers it has no price for), not free.
    if (typeof u.cost_usd === 'number' && Number.isFinite(u.cost_usd) && (u.cost_usd > 0 || tokens === 0)) cost = u.cost_usd
    else {
      const p = model === UNKNOWN_MODEL ? null : this.opts.prices.lookup(model)
      cost = p ? costOf(u, p) : null
    }
    const key = this.keyOf(t, s, model)
    let g = this.groups.get(key)
    if (!g) {
      g = { key, ...zero(), total_tokens: 0, messages: 0, sids: new Set() }
      if (this.opts.by === 'session') {
        g.agent = s.agent
        g.project = s.cwd ?? UNKNOWN_PROJECT
      }
      this.groups.set(key, g)
    }
    for (const tgt of [g, this.totals]) {
      tgt.input_tokens += u.input_tokens ?? 0
      tgt.output_tokens += u.output_tokens ?? 0
      tgt.cache_read_tokens += u.cache_read_tokens ?? 0
      tgt.cache_write_tokens += u.cache_write_tokens ?? 0
      tgt.reasoning_tokens += u.reasoning_tokens ?? 0
      if (cost !== null) tgt.cost_usd += cost
    }
    g.total_tokens += tokens
    g.messages++
    g.sids.add(s.sid)
    if (cost === null) {
      ;(g.unpriced ??= new Set()).add(model)
      const up = this.unpriced.get(model) ?? { model, messages: 0, tokens: 0 }
      up.messages++
      up.tokens += tokens
      this.unpriced.set(model, up)
    }
  }

  private keyOf(t: number, s: Current, model: string): string {
    switch (this.opts.by) {
      case 'session':
        return s.sid
      case 'project':
        return s.cwd ?? UNKNOWN_PROJECT
      case 'model':
        return model
      case 'agent':
        return s.agent
      default:
        return Number.isNaN(t) ? '(no date)' : period(t, this.opts.by)
    }
  }

  result(): StatsResult {
    const timed = this.opts.by === 'day' || this.opts.by === 'week' || this.opts.by === 'month'
    const rows: StatsRow[] = [...this.groups.values()].map(({ sids, unpriced, ...g }) => ({
      ...g,
      sessions: sids.size,
      cost_usd: round(g.cost_usd),
      ...(unpriced ? { unpriced_models: [...unpriced].sort() } : {}),
    }))
    rows.sort(timed ? (a, b) => a.key.localeCompare(b.key) : (a, b) => b.cost_usd - a.cost_usd || b.total_tokens - a.total_tokens || a.key.localeCompare(b.key))
    return {
      by: this.opts.by,
      rows,
      totals: { ...this.totals, cost_usd: round(this.totals.cost_usd) },
      unpriced: [...this.unpriced.values()].sort((a, b) => b.tokens - a.tokens),
      prices_date: this.opts.prices.date,
    }
  }
}

/** Sums of floating-point dollars: rounded to a millionth of a cent so equal sums print equal. */
function round(n: number): number {
  return Math.round(n * 1e8) / 1e8
}

const pad = (n: number) => String(n).padStart(2, '0')

/** The local day, week (its Monday, as ISO 8601 weeks start) or month of a time. */
export function period(t: number, by: 'day' | 'week' | 'month'): string {
  const d = new Date(t)
  if (by === 'week') d.setDate(d.getDate() - ((d.getDay() + 6) % 7))
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}`
  return by === 'month' ? day : `${day}-${pad(d.getDate())}`
}
