/**
 * `ferry search`: FTS5 over the archive (text, tool names, inputs and
 * outputs, titles, cwd), BM25-ranked, with filters joined from the records
 * and sessions tables. A malformed FTS query is the user's to fix: it comes
 * back as a SearchSyntaxError with SQLite's reason.
 */
import type { ArchiveDb } from './db.js'

export interface SearchOptions {
  harnesses?: readonly string[]
  /** Sessions of this directory or below. */
  cwd?: string
  /** ISO time: sessions updated since. */
  since?: string
  role?: string
  tool?: string
  limit?: number
}

export interface SearchHit {
  sid: string
  harness: string
  session_id: string
  title: string | null
  /** The record's time, else the session's last update. */
  time: string | null
  /** Stable record id of the hit (`<sid>:session` for a title or cwd match). */
  record_id: string
  kind: string
  role: string | null
  tools: string | null
  cwd: string | null
  gone_from_source: boolean
  /** BM25 score (lower is better, as SQLite gives it). */
  rank: number
  /** A short excerpt; matches sit between `open` and `close` marks. */
  snippet: string
}

export class SearchSyntaxError extends Error {}

export const MARK_OPEN = '\u0002'
export const MARK_CLOSE = '\u0003'

export function search(db: ArchiveDb, query: string, opts: SearchOptions = {}): SearchHit[] {
  const where: string[] = ['fts MATCH @q']
  const params: Record<string, unknown> = { q: query, limit: Math.max(1, Math.min(opts.limit ?? 20, 10_000)) }
  if (opts.harnesses?.length) {
    where.push(`s.harness IN (${opts.harnesses.map((_, i) => `@h${i}`).join(', ')})`)
    opts.harnesses.forEach((h, i) => (params[`h${i}`] = h))
  }
  if (opts.cwd !== undefined) {
    where.push("(s.cwd = @cwd OR substr(s.cwd, 1, length(@cwdp)) = @cwdp)")
    params.cwd = opts.cwd
    params.cwdp = opts.cwd.endsWith('/') ? opts.cwd : `${opts.cwd}/`
  }
  if (opts.since !== undefined) {
    where.push('coalesce(r.ts, s.updated_at, s.created_at) >= @since')
    params.since = opts.since
  }
  if (opts.role !== undefined) {
    where.push('r.role = @role')
    params.role = opts.role
  }
  if (opts.tool !== undefined) {
    where.push("(' ' || r.tools || ' ') LIKE @tool ESCAPE '\\'")
    params.tool = `% ${opts.tool.replace(/[\\%_]/g, (c) => `\\${c}`)} %`
  }
  // A title/cwd hit is an FTS row with a negative rowid: minus the session's rowid.
  // Without filters, FTS5 ranks and cuts on its own (its fast path); with them, every match is joined first.
  const filtered = where.length > 1
  params.inner = filtered ? -1 : params.limit
  const sql = `
    SELECT s.sid, s.harness, s.native_id AS session_id, s.title, coalesce(r.ts, s.updated_at, s.created_at) AS time,
           coalesce(r.id, s.sid || ':session') AS record_id, coalesce(r.kind, 'session') AS kind, r.role, r.tools, s.cwd,
           s.gone_at IS NOT NULL AS gone, m.rnk AS rank, m.snip AS snippet
    FROM (SELECT rowid AS frid, rank AS rnk, snippet(fts, -1, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 16) AS snip
          FROM fts WHERE fts MATCH @q ORDER BY rank LIMIT @inner) m
    LEFT JOIN records r ON m.frid > 0 AND r.rid = m.frid
    JOIN sessions s ON s.sid = coalesce(r.sid, (SELECT sid FROM sessions WHERE rowid = -m.frid))
    WHERE ${where.slice(1).concat('1').join(' AND ')}
    ORDER BY m.rnk
    LIMIT @limit`
  let rows: Array<Omit<SearchHit, 'gone_from_source'> & { gone: number }>
  try {
    rows = db.prepare(sql).all(params) as typeof rows
  } catch (err) {
    const m = (err as Error).message
    if (/fts5|syntax error|no such column|unterminated|unknown special query/i.test(m)) throw new SearchSyntaxError(m)
    throw err
  }
  return rows.map(({ gone, ...h }) => ({ ...h, gone_from_source: Boolean(gone) }))
}
