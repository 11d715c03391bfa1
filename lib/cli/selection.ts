/**
 * Which sessions a command selects from what discovery lists: `--cwd`,
 * `--since`, `--until` and `--all` (`ls`, `cat`/`convert --from`,
 * `archive`, `search`), and which harnesses `--harness`/`--from` name.
 */
import { FerryError, UsageError } from '../errors.js'
import { harnessEntry, listableEntries, type HarnessEntry } from '../harness/manifest.js'
import type { Harness, SessionInfo } from '../harness/types.js'
import { cwdMatcher, parseTime, sessionTime } from '../query/select.js'
import type { Args } from './options.js'

/** Which listed sessions a command selects (`ls`, `cat --from`). */
export interface SessionSelection {
  cwd?: (cwd: string | undefined) => boolean
  since?: number
  until?: number
  all?: boolean
}

/** `--cwd`, `--since` and `--all` of argv as a selection; a bad value is a UsageError naming its flag. */
export function selectionFrom(argv: Args, now = Date.now()): SessionSelection {
  return {
    ...(typeof argv.cwd === 'string' ? { cwd: cwdMatcher(argv.cwd) } : {}),
    ...(typeof argv.since === 'string' ? { since: parseTime(argv.since, now, 'since') } : {}),
    ...(typeof argv.until === 'string' ? { until: parseTime(argv.until, now, 'until') } : {}),
    all: Boolean(argv.all),
  }
}

export function matches(s: SessionInfo, sel: SessionSelection): boolean {
  if (sel.cwd && !sel.cwd(s.cwd)) return false
  if (sel.since !== undefined && !(sessionTime(s.updated_at, s.created_at) >= sel.since)) return false
  if (sel.until !== undefined && !(sessionTime(s.updated_at, s.created_at) <= sel.until)) return false
  if (!sel.all && (s.archived || s.parent)) return false
  return true
}

/** The selection flags as typed (`--from codex --since 7d`), for "no sessions matched …". */
export function selectionWords(argv: Args, harnessFlag: 'from' | 'harness'): string {
  const words: string[] = []
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String).join(',') : typeof v === 'string' ? v : '')
  if (list(argv[harnessFlag])) words.push(`--${harnessFlag} ${list(argv[harnessFlag])}`)
  for (const k of ['cwd', 'since', 'until']) if (typeof argv[k] === 'string') words.push(`--${k} ${String(argv[k])}`)
  return words.join(' ')
}

/** Nothing matched: exit 1 and one line on stderr (`--json`: the error object), nothing on stdout. */
export function noMatch(what: string): FerryError {
  return new FerryError(what, { code: 'no-match' })
}

/** `--since` alone, in epoch ms (`archive`, `search`). */
export function sinceOption(argv: Args): number | undefined {
  return selectionFrom(argv).since
}

/** The harnesses a repeatable `--harness`/`--from` names (comma lists too), from the manifest; an unknown name is a usage error. */
export function namedEntries(names: unknown): HarnessEntry[] {
  return Array.isArray(names) ? names.flatMap((n) => String(n).split(',')).map((n) => harnessEntry(n.trim())) : []
}

/** The harnesses `--harness`/`--from` name (comma lists too), or every listable one that is not a copy (their modules loaded). */
export async function selectedHarnesses(names: unknown): Promise<Harness[]> {
  let list = namedEntries(names)
  if (list.length === 0) list = listableEntries()
  for (const h of list) if (!h.lists) throw new UsageError(`${h.name} (${h.id}) cannot list sessions yet`)
  return Promise.all(list.map((h) => h.load()))
}
