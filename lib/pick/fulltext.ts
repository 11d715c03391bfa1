/**
 * The picker's full-text mode: the archive's search (FTS5, BM25-ranked)
 * with what was typed taken literally (each word a quoted term, so `foo-bar`
 * or `a:b` is text, never query syntax), one row per hit.
 */
import { existsSync } from 'node:fs'
import type { StoreContext } from '../context.js'
import { openArchive } from '../archive/store/db.js'
import { search } from '../archive/search.js'
import { archiveStore } from './load.js'
import type { Row, SessionRows } from './rows.js'

/** `foo "bar` → `"foo" """bar"`: every word a literal FTS5 string (all must match). */
export function literalQuery(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"`)
    .join(' ')
}

export type TextResult = { rows: Row[] } | { message: string }

/** The hits for `text`, newest session copy first where the store still lists it (so its REF is the live one). */
export function textSearch(ctx: StoreContext, text: string, sessions: SessionRows, limit = 200): TextResult {
  const archive = archiveStore()
  const path = archive?.root(ctx)
  if (!archive || !path || !existsSync(path)) return { message: 'no archive here: full-text search needs one (run `ferry archive`)' }
  const q = literalQuery(text)
  if (!q) return { rows: [] }
  const db = openArchive(path, { readonly: true })
  try {
    const hits = search(db, q, { limit })
    return {
      rows: hits.map((h) => {
        const live = sessions.live(h.sid)
        return {
          ref: live ? live.ref : `${archive.id}:${h.sid}`,
          sid: h.sid,
          agent: h.harness,
          id: h.session_id,
          title: (h.title ?? '').replace(/\s+/g, ' ').trim(),
          cwd: h.cwd ?? '',
          when: h.time ?? '',
          archived: !live,
          gone: h.gone_from_source,
          snippet: h.snippet.replace(/\s+/g, ' ').trim(),
        }
      }),
    }
  } catch (err) {
    return { message: `search: ${(err as Error).message}` }
  } finally {
    db.close()
  }
}
