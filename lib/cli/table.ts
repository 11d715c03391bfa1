/**
 * The session table of `ls` (and of quickstart, `ls --archive`): newest
 * first, one line per session. On a terminal it fits the width: when the
 * full ids would leave the title less than 40 columns, each id is shown as
 * its shortest unique prefix (at least 8 characters, as git's short hashes;
 * any unique prefix is a ref), then the year of the date goes, then the
 * working directory, so the title keeps 30. In a pipe every column is kept
 * at its natural width; only titles longer than 80 are cut. A cut cell ends
 * in `…`.
 */
import type { SessionInfo } from '../harness/types.js'

function cell(s: string | number | undefined, width: number): string {
  const v = s === undefined || s === '' ? '-' : String(s)
  return v.length > width ? v.slice(0, Math.max(width - 1, 0)) + '…' : v.padEnd(width)
}

const when = (r: SessionInfo) => (r.updated_at ?? r.created_at)?.slice(0, 16).replace('T', ' ')

/** `width`: the terminal's columns, or undefined for a pipe (nothing cut but long titles). */
export function sessionTable(rows: SessionInfo[], width?: number): string {
  const hw = Math.max(7, ...rows.map((r) => r.harness.length))
  const fullId = Math.max(2, ...rows.map((r) => r.id.length))
  let iw = fullId
  let dw = 16
  const naturalCwd = Math.max(3, ...rows.map((r) => (r.cwd ?? '-').length))
  let cw = width === undefined ? naturalCwd : Math.min(28, naturalCwd)
  let tw = 80
  if (width !== undefined) {
    const room = () => width - 1 - (hw + 1 + iw + 1 + dw + 1 + 4 + 1)
    if (room() - cw - 1 < 40) iw = Math.min(fullId, Math.max(8, uniquePrefix(rows.map((r) => r.id))))
    if (room() - cw - 1 < 30) dw = 11
    if (room() - cw - 1 < 30) cw = Math.min(28, naturalCwd, room() - 31)
    if (cw < 12) cw = 0
    tw = Math.max(room() - (cw ? cw + 1 : 0), 8)
  }
  // A short id is a prefix, not a cut value: no `…`, so it can be copied as a ref.
  const idCell = (id: string | undefined) => (id === undefined ? '-' : id.slice(0, iw)).padEnd(iw)
  const titleCell = (t: string) => {
    const one = t.replace(/\s+/g, ' ')
    return one.length > tw ? one.slice(0, Math.max(tw - 1, 0)) + '…' : one
  }
  const line = (cols: Array<string | number | undefined>, title: string) => {
    const [h, id, up, n, cwd] = cols
    const parts = [cell(h, hw), idCell(id as string), cell(typeof up === 'string' && dw < 16 && up !== 'UPDATED' ? up.slice(5) : up, dw), cell(n, 4)]
    if (cw) parts.push(cell(cwd, cw))
    return (parts.join(' ') + ' ' + titleCell(title)).trimEnd()
  }
  const head = line(['HARNESS', 'ID', 'UPDATED', 'MSGS', 'CWD'], 'TITLE')
  return [head, ...rows.map((r) => line([r.harness, r.id, when(r), r.message_count, r.cwd], r.title ?? ''))].join('\n') + '\n'
}

/** The shortest length at which every id's prefix differs from every other id's. */
function uniquePrefix(ids: string[]): number {
  const sorted = [...ids].sort()
  let n = 1
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!
    const b = sorted[i]!
    let k = 0
    while (k < a.length && a[k] === b[k]) k++
    n = Math.max(n, k + 1)
  }
  return n
}

/** The width to fit: the terminal's, or none in a pipe. */
export function tableWidth(): number | undefined {
  return process.stdout.isTTY ? process.stdout.columns || 80 : undefined
}

export type SortKey = 'updated' | 'created' | 'harness' | 'title' | 'cwd' | 'none'
export const SORT_KEYS: readonly SortKey[] = ['updated', 'created', 'harness', 'title', 'cwd', 'none']

/** Newest first for times, A–Z for names; `reverse` flips it. Stable, so ties keep discovery order. */
export function sortSessions(rows: SessionInfo[], key: SortKey = 'updated', reverse = false): SessionInfo[] {
  if (key === 'none') return reverse ? [...rows].reverse() : rows
  const time = (r: SessionInfo) => (key === 'created' ? (r.created_at ?? r.updated_at) : (r.updated_at ?? r.created_at)) ?? ''
  const cmp: (a: SessionInfo, b: SessionInfo) => number =
    key === 'updated' || key === 'created' ? (a, b) => time(b).localeCompare(time(a)) : (a, b) => (a[key] ?? '').localeCompare(b[key] ?? '') || time(b).localeCompare(time(a))
  const out = [...rows].sort(cmp)
  return reverse ? out.reverse() : out
}
