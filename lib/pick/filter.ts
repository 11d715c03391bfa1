/**
 * Fuzzy filtering of the session rows (fuzzysort): every word typed must
 * match one of title (the first prompt where the agent keeps no title), cwd,
 * agent or id; best matches first, newest first among equals. An empty
 * query is the whole list in its order.
 */
import fuzzysort from 'fuzzysort'
import type { Row } from './rows.js'

const KEYS = ['title', 'cwd', 'agent', 'id'] as const

/** The rows matching `query`, best first. */
export function filterRows(rows: readonly Row[], query: string): Row[] {
  const q = query.trim()
  if (!q) return rows as Row[]
  const res = fuzzysort.go(q, rows, { keys: KEYS, limit: 0, threshold: 0 })
  const at = new Map<Row, number>()
  rows.forEach((r, i) => at.set(r, i))
  return [...res].sort((a, b) => b.score - a.score || at.get(a.obj)! - at.get(b.obj)!).map((r) => r.obj)
}
