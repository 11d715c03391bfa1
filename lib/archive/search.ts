/**
 * `ferry search`: FTS5 over the archive (text, tool names, inputs and
 * outputs, titles, cwd), BM25-ranked, with filters joined from the records
 * and sessions tables. A malformed FTS query is the user's to fix: it comes
 * back as a SearchSyntaxError with SQLite's reason.
 *
 * The index keeps no copy of the words (schema 3), so the few hits shown get
 * their snippets from their records: the indexed text is derived again from
 * `body` (as the writer derived it) and matched in a scratch FTS5 table with
 * the same tokenizer and query, which gives the snippet FTS5 gave before.
 */
import Database from 'better-sqlite3'
import type { FerryRecord } from '../model.js'
import { partsColumns, partsOf, type ArchiveDb, type StoredRow } from './store/db.js'
import { indexedText } from './store/text.js'

export interface SearchOptions {
  harnesses?: readonly string[]
  /** Sessions of this directory or below. */
  cwd?: string
  /** ISO time: sessions updated since. */
  since?: string
  role?: string
  tool?: string
  limit?: number
  /** Applied to each hit's text before its snippet is cut (a redaction), so a secret is never shown cut in half. */
  textFilter?: (text: string) => string
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
  /** The hit's message number in its session, as `ferry show` numbers them (null: a title or cwd match, or before the first message). */
  message: number | null
  /** What opens the hit: `<sid>#<message>` (the session alone when there is no message number). */
  ref: string
}

export class SearchSyntaxError extends Error {}

export const MARK_OPEN = '\u0002'
export const MARK_CLOSE = '\u0003'

/**
 * How many of the newest matching records (and session title/cwd rows)
 * BM25 ranks. FTS5 finds matches in rowid order for almost nothing, but
 * ranking one reads its positions: for a word in most of 150,000 records
 * that is most of a second. A query matching more records than this ranks
 * the newest of them (records are numbered in archive order, filters are
 * applied first); rarer terms are ranked in full.
 */
export const RANKED_CANDIDATES = 2000
export const RANKED_SESSIONS = 1000

export function search(db: ArchiveDb, query: string, opts: SearchOptions = {}): SearchHit[] {
  const where: string[] = []
  const params: Record<string, unknown> = { q: query, limit: Math.max(1, Math.min(opts.limit ?? 20, 10_000)) }
  if (opts.harnesses?.length) {
    where.push(`s.harness IN (${opts.harnesses.map((_, i) => `@h${i}`).join(', ')})`)
    opts.harnesses.forEach((h, i) => (params[`h${i}`] = h))
  }
  if (opts.cwd !== undefined) {
    where.push('(s.cwd = @cwd OR substr(s.cwd, 1, length(@cwdp)) = @cwdp)')
    params.cwd = opts.cwd
    params.cwdp = opts.cwd.endsWith('/') ? opts.cwd : `${opts.cwd}/`
  }
  if (opts.since !== undefined) {
    where.push('coalesce(r.ts, s.updated_at, s.created_at) >= @since')
    params.since = opts.since
  }
  const recordOnly: string[] = []
  if (opts.role !== undefined) {
    recordOnly.push('r.role = @role')
    params.role = opts.role
  }
  if (opts.tool !== undefined) {
    recordOnly.push("(' ' || r.tools || ' ') LIKE @tool ESCAPE '\\'")
    params.tool = `% ${opts.tool.replace(/[\\%_]/g, (c) => `\\${c}`)} %`
  }
  const recWhere = [...where, ...recordOnly]
  // Record rows: filters are joins on primary keys and a narrow index, checked while FTS5 walks its
  // matches newest first. Session rows (title, cwd) have rowid = minus the session's rowid; a role or
  // tool filter leaves them out.
  const recFrom = `FROM fts ${recWhere.length ? 'JOIN records r INDEXED BY records_filter ON r.rid = fts.rowid JOIN sessions s ON s.sid = r.sid' : ''}
        WHERE fts MATCH @q ${recWhere.map((w) => `AND ${w}`).join(' ')}`
  params.cand = RANKED_CANDIDATES
  params.scand = RANKED_SESSIONS
  const sesWhere = where.filter((w) => !w.includes('r.'))
  if (opts.since !== undefined) sesWhere.push('coalesce(s.updated_at, s.created_at) >= @since')
  // Session rows: rowid = minus the session's rowid, so ascending is newest first.
  const sesRows = recordOnly.length
    ? ''
    : `SELECT frid, rnk FROM (SELECT fts.rowid AS frid, bm25(fts) AS rnk FROM fts ${sesWhere.length ? 'JOIN sessions s ON s.rowid = -fts.rowid' : ''}
        WHERE fts MATCH @q AND fts.rowid < 0 ${sesWhere.map((w) => `AND ${w}`).join(' ')} ORDER BY fts.rowid ASC LIMIT @scand)
        UNION ALL `
  const recRows = `SELECT frid, rnk FROM (SELECT fts.rowid AS frid, bm25(fts) AS rnk ${recFrom} AND fts.rowid > 0 ORDER BY fts.rowid DESC LIMIT @cand)`
  // What a snippet is made from (the record, or the session's header) comes only for the hits shown.
  const sql = `
    WITH m AS (SELECT frid, rnk FROM (${sesRows}${recRows}) ORDER BY rnk LIMIT @limit)
    SELECT s.sid, s.harness, s.native_id AS session_id, s.title, coalesce(r.ts, s.updated_at, s.created_at) AS time,
           coalesce(r.id, s.sid || ':session') AS record_id, coalesce(r.kind, 'session') AS kind, r.role, r.tools, s.cwd,
           s.gone_at IS NOT NULL AS gone, m.rnk AS rank, m.frid AS frid, CASE WHEN m.frid < 0 THEN s.header END AS header, r.ord AS ord
    FROM m
    LEFT JOIN records r ON m.frid > 0 AND r.rid = m.frid
    JOIN sessions s ON s.rowid = CASE WHEN m.frid < 0 THEN -m.frid ELSE (SELECT rowid FROM sessions WHERE sid = r.sid) END
    ORDER BY m.rnk, m.frid DESC`
  let rows: Array<Omit<SearchHit, 'gone_from_source' | 'snippet' | 'message' | 'ref'> & { gone: number; frid: number; header: string | null; ord: number | null }>
  try {
    rows = db.prepare(sql).all(params) as typeof rows
  } catch (err) {
    throw syntaxError(err)
  }
  // Each record read when its snippet is made, not with the hits: a --limit of thousands holds no bodies.
  const parts = db.prepare(`SELECT ${partsColumns(db)} FROM records WHERE rid = ?`)
  const body = (rid: number): string | null => {
    const r = parts.get(rid) as StoredRow | undefined
    return r ? partsOf(r, db).body : null
  }
  const snips = snippets(query, rows.length, (i) => {
    const r = rows[i]!
    const cols = indexedColumns(r.frid > 0 ? body(r.frid) : null, r.header, r.tools)
    return opts.textFilter ? (cols.map(opts.textFilter) as Columns) : cols
  })
  // Messages up to the hit in archive order (ord, rid), as the view counts them: one walk of the (sid, ord, rid) index.
  const upTo = db.prepare("SELECT count(*) FROM records WHERE sid = ? AND kind = 'message' AND (ord < ? OR (ord = ? AND rid <= ?))").pluck()
  return rows.map(({ gone, frid, header: _h, ord, ...h }, i) => {
    const n = frid > 0 && ord !== null ? (upTo.get(h.sid, ord, ord, frid) as number) : 0
    return { ...h, snippet: snips[i] ?? '', gone_from_source: Boolean(gone), message: n > 0 ? n : null, ref: n > 0 ? `${h.sid}#${n}` : h.sid }
  })
}

type Columns = [text: string, tools: string, title: string, cwd: string]

/** The four indexed columns of a hit, as the writer filled them (store/store.ts: write, openSession). */
function indexedColumns(body: string | null, header: string | null, tools: string | null): Columns {
  try {
    if (body !== null) return [indexedText(JSON.parse(body) as FerryRecord).text, tools ?? '', '', '']
    if (header !== null) {
      const h = JSON.parse(header) as { title?: string; cwd?: string }
      return ['', '', h.title ?? '', h.cwd ?? '']
    }
  } catch {
    // A row that does not parse shows no snippet; the hit stands.
  }
  return ['', '', '', '']
}

let scratch: { db: Database.Database; clear: Database.Statement; put: Database.Statement; snip: Database.Statement } | null = null

/** Snippets of `n` column sets for the query, in order ('' where the query does not match one, or cannot be run). */
function snippets(query: string, n: number, doc: (i: number) => Columns): string[] {
  const out: string[] = new Array(n).fill('')
  if (n === 0) return out
  if (!scratch) {
    const db = new Database(':memory:')
    db.exec("CREATE VIRTUAL TABLE s USING fts5(text, tools, title, cwd, tokenize = 'unicode61 remove_diacritics 2')")
    scratch = {
      db,
      clear: db.prepare('DELETE FROM s'),
      put: db.prepare('INSERT INTO s(rowid, text, tools, title, cwd) VALUES (?, ?, ?, ?, ?)'),
      snip: db.prepare(`SELECT rowid AS i, snippet(s, -1, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 16) AS snippet FROM s WHERE s MATCH ?`),
    }
  }
  const sc = scratch
  // A few hundred at a time, so a --limit of thousands never holds all their text at once.
  for (let at = 0; at < n; at += SNIPPET_CHUNK) {
    try {
      sc.db.transaction(() => {
        sc.clear.run()
        for (let i = at; i < Math.min(n, at + SNIPPET_CHUNK); i++) sc.put.run(i + 1, ...doc(i))
        for (const r of sc.snip.all(query) as { i: number; snippet: string }[]) out[r.i - 1] = r.snippet
        sc.clear.run()
      })()
    } catch {
      // Snippets are an aid: a query the main index ran is not refused over them.
      return out
    }
  }
  return out
}

const SNIPPET_CHUNK = 200

/** A malformed FTS query as the user's error; anything else as it is. */
function syntaxError(err: unknown): unknown {
  const m = (err as Error).message
  return /fts5|syntax error|no such column|unterminated|unknown special query/i.test(m) ? new SearchSyntaxError(m) : err
}
