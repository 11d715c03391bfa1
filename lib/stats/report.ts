/**
 * The three shapes of a stats result: a table fitted to the terminal (totals last, models without
 * a price named under it), CSV, and the `--json` document `{"rows": [...], "totals": {...}}`.
 * Text only; the command prints it.
 */
import type { StatsResult, StatsRow, Totals } from './count.js'

/** A row as `--json` and `--csv` give it: the group under the name of `--by`, then the counts. */
export function rowObject(by: string, r: StatsRow): Record<string, unknown> {
  const { key, agent, project, unpriced_models, ...counts } = r
  return {
    [by]: key,
    ...(agent !== undefined ? { agent } : {}),
    ...(project !== undefined ? { project } : {}),
    ...counts,
    ...(unpriced_models ? { unpriced_models } : {}),
  }
}

export function toJson(res: StatsResult): string {
  const totals: Totals = res.totals
  return JSON.stringify({ rows: res.rows.map((r) => rowObject(res.by, r)), totals }) + '\n'
}

const CSV_COUNTS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'total_tokens', 'cost_usd', 'messages', 'sessions'] as const

function csvCell(v: unknown): string {
  const s = v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** RFC 4180 CSV: a header, one line per group, and a last line `total`. */
export function toCsv(res: StatsResult): string {
  const extra = res.by === 'session' ? ['agent', 'project'] : []
  const head = [res.by, ...extra, ...CSV_COUNTS, 'unpriced_models']
  const lines = [head.join(',')]
  for (const r of res.rows) {
    const o = rowObject(res.by, r)
    lines.push(head.map((h) => csvCell(o[h])).join(','))
  }
  const t = res.totals
  const total = { [res.by]: 'total', ...t, total_tokens: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens, messages: sum(res.rows, 'messages'), unpriced_models: res.unpriced.map((u) => u.model) } as Record<string, unknown>
  lines.push(head.map((h) => csvCell(total[h])).join(','))
  return lines.join('\r\n') + '\r\n'
}

const sum = (rows: StatsRow[], k: 'messages') => rows.reduce((n, r) => n + r[k], 0)
const num = (n: number) => n.toLocaleString('en-US')
const money = (n: number) => `$${n.toFixed(n > 0 && n < 0.01 ? 4 : 2)}`

interface Column {
  head: string
  /** Dropped first when the terminal is narrow (higher goes first); 0 is never dropped. */
  drop: number
  cell: (r: StatsRow | null) => string
}

/** `width`: the terminal's columns, or undefined in a pipe (nothing cut). */
export function toTable(res: StatsResult, width?: number): string {
  if (res.rows.length === 0) return ''
  const t = res.totals
  const tot = (k: keyof Totals) => t[k]
  const cols: Column[] = [
    { head: res.by.toUpperCase(), drop: 0, cell: (r) => (r ? r.key : 'TOTAL') },
    ...(res.by === 'session' ? [{ head: 'AGENT', drop: 2, cell: (r: StatsRow | null) => (r ? (r.agent ?? '') : '') }] : []),
    { head: 'INPUT', drop: 0, cell: (r) => num(r ? r.input_tokens : tot('input_tokens')) },
    { head: 'OUTPUT', drop: 0, cell: (r) => num(r ? r.output_tokens : tot('output_tokens')) },
    { head: 'CACHE READ', drop: 4, cell: (r) => num(r ? r.cache_read_tokens : tot('cache_read_tokens')) },
    { head: 'CACHE WRITE', drop: 5, cell: (r) => num(r ? r.cache_write_tokens : tot('cache_write_tokens')) },
    ...(t.reasoning_tokens > 0 ? [{ head: 'REASONING', drop: 6, cell: (r: StatsRow | null) => num(r ? r.reasoning_tokens : tot('reasoning_tokens')) }] : []),
    { head: 'TOTAL', drop: 3, cell: (r) => num(r ? r.total_tokens : t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens) },
    { head: 'COST', drop: 0, cell: (r) => money(r ? r.cost_usd : t.cost_usd) + ((r ? r.unpriced_models : res.unpriced.length) ? '*' : '') },
  ]
  const all: Array<StatsRow | null> = [...res.rows, null]
  let shown = cols.map((c) => ({ c, w: Math.max(c.head.length, ...all.map((r) => c.cell(r).length)) }))
  const fits = () => shown.reduce((n, x) => n + x.w + 2, -2) <= (width ?? Infinity)
  // Narrow terminals lose the optional columns first, then the group's text is cut.
  while (width !== undefined && !fits()) {
    const worst = shown.reduce((a, b) => (b.c.drop > a.c.drop ? b : a))
    if (worst.c.drop === 0) break
    shown = shown.filter((x) => x !== worst)
  }
  if (width !== undefined && !fits()) shown[0]!.w = Math.max(8, shown[0]!.w - (shown.reduce((n, x) => n + x.w + 2, -2) - width))
  // Cut in the middle: session keys and project paths differ at either end (a UUID's start, a path's last folder).
  const fit = (s: string, w: number) => {
    if (s.length <= w) return s
    const head = Math.ceil((w - 1) / 2)
    return s.slice(0, head) + '…' + s.slice(s.length - (w - 1 - head))
  }
  const line = (cells: string[]) => cells.map((s, i) => (i === 0 ? fit(s, shown[0]!.w).padEnd(shown[0]!.w) : s.padStart(shown[i]!.w))).join('  ').trimEnd()
  const out = [line(shown.map((x) => x.c.head)), ...res.rows.map((r) => line(shown.map((x) => x.c.cell(r)))), line(shown.map((x) => '─'.repeat(x.w))), line(shown.map((x) => x.c.cell(null)))]
  if (res.unpriced.length) out.push('', ...wrap(`* without the cost of models that have no price (prices of ${res.prices_date}; give them with --prices FILE): ${res.unpriced.map((u) => `${u.model} (${num(u.tokens)} tokens)`).join(', ')}`, width))
  return out.join('\n') + '\n'
}

/** Words into lines of at most `width` columns (a word longer than that stays whole). */
function wrap(text: string, width?: number): string[] {
  if (width === undefined) return [text]
  const lines: string[] = []
  let cur = ''
  for (const word of text.split(' ')) {
    if (cur && cur.length + 1 + word.length > width) {
      lines.push(cur)
      cur = word
    } else cur = cur ? `${cur} ${word}` : word
  }
  if (cur) lines.push(cur)
  return lines
}
