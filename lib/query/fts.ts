/**
 * What a search query means, the same for `ferry search` and `ferry mcp`:
 * plain words by default, each taken literally (`probe.txt`, `FERRY-DONE`,
 * `--force`, `src/a.ts` are each one quoted FTS5 phrase, all must match),
 * and FTS5's own syntax (OR, NOT, "phrases", prefix*, title:) only when
 * asked for. The work is bounded before SQLite sees the query: repeated
 * words count once, and a query past the limits is a usage error.
 */
import { UsageError } from '../errors.js'

/** The longest query taken, in characters (about what one command-line argument can hold). */
export const MAX_QUERY_CHARS = 100_000
/** Distinct words of a plain query; each is one more posting list for FTS5 to walk. */
export const MAX_TERMS = 64
/** The longest FTS5 expression taken (`--fts`): its cost is in its terms, which it cannot dedupe. */
export const MAX_FTS_CHARS = 4_000
/** The most whitespace-separated pieces of an FTS5 expression. */
export const MAX_FTS_TERMS = 128

// unicode61 keeps letters, numbers and private-use characters; everything else separates tokens.
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u

export interface QueryOptions {
  /** Take the text as an FTS5 expression instead of plain words. */
  fts?: boolean
}

/** The FTS5 MATCH expression for what a user typed; a UsageError when there is nothing to search or too much. */
export function ftsQuery(text: string, opts: QueryOptions = {}): string {
  if (text.length > MAX_QUERY_CHARS) throw new UsageError(`search: the query is ${text.length} characters; at most ${MAX_QUERY_CHARS} are taken`)
  const trimmed = text.trim()
  if (!trimmed) throw new UsageError('search: give a query')
  if (opts.fts) {
    if (trimmed.length > MAX_FTS_CHARS) throw new UsageError(`search: an --fts query is at most ${MAX_FTS_CHARS} characters (this one has ${trimmed.length})`)
    const pieces = trimmed.split(/\s+/).length
    if (pieces > MAX_FTS_TERMS) throw new UsageError(`search: an --fts query has at most ${MAX_FTS_TERMS} terms (this one has ${pieces})`)
    return trimmed
  }
  // Words that differ only in case are one word to the index (unicode61 folds case).
  const seen = new Map<string, string>()
  for (const word of trimmed.split(/\s+/)) {
    if (!TOKEN_CHAR.test(word)) continue
    const key = word.toLowerCase()
    if (!seen.has(key)) seen.set(key, word)
    if (seen.size > MAX_TERMS) throw new UsageError(`search: at most ${MAX_TERMS} different words in a query`)
  }
  if (seen.size === 0) throw new UsageError(`search: nothing to search for in "${trimmed.slice(0, 60)}" (no letters or digits)`)
  return [...seen.values()].map((w) => `"${w.replaceAll('"', '""')}"`).join(' ')
}
