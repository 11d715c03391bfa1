/**
 * Cursor's wrappers around user text: `<timestamp>…</timestamp>`,
 * `<user_query>…</user_query>`, and injected context (`<user_info>`,
 * `<cursor_commands>`, attached files, …).
 */
import { nestsDeeper } from '../../io/line-file.js'

const TS = /^\s*<timestamp>([^<]*)<\/timestamp>\s*/
const QUERY = /<user_query>\n?([\s\S]*?)\n?<\/user_query>/

export interface UserText {
  text: string
  /** The `<timestamp>` value, as RFC 3339 UTC with milliseconds, when valid. */
  ts?: string
  /** The text had a `<user_query>` wrapper (what the person typed). */
  query: boolean
  /** Injected context: `<user_info>`, attached files, rules, no `<user_query>`. */
  context?: string
  /** What the person typed after the context sections of the same text (a `<user_query>` or plain text). */
  typed?: string
}

const CONTEXT_TAGS: Array<[RegExp, string]> = [
  [/^\s*<user_info>/, 'environment'],
  [/^\s*<(cursor_commands|rules|cursor_rules|user_rules|project_rules|agent_requestable_workspace_rules)>/, 'instructions'],
  [/^\s*<(attached_files|manually_attached_skills|open_and_recently_viewed_files|additional_data|git_status|terminal_files_information)>/, 'attachment'],
  [/^\s*<system_reminder>/, 'reminder'],
  [/^\s*<conversation_summary>/, 'summary'],
]

export function isoOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) {
    const d = new Date(v < 1e11 ? v * 1000 : v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v) {
    if (/^\d+$/.test(v)) return isoOf(Number(v))
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  return undefined
}

/** Strips the wrappers; says whether the text is injected context. */
export function parseUserText(raw: string): UserText {
  let text = raw
  let ts: string | undefined
  const m = TS.exec(text)
  if (m) {
    ts = isoOf(m[1]!.trim())
    text = text.slice(m[0].length)
  }
  const q = QUERY.exec(text)
  if (q) {
    const before = text.slice(0, q.index).trim()
    const after = text.slice(q.index + q[0].length).trim()
    // Context sections around the query stay out of the typed text.
    return { text: q[1]!, ...(ts ? { ts } : {}), query: true, ...(before || after ? {} : {}) }
  }
  for (const [re, kind] of CONTEXT_TAGS) {
    if (!re.test(text)) continue
    // The context sections end where the last closing tag of a leading run of them ends; the rest is the user's.
    const end = contextEnd(text)
    const rest = end < 0 ? '' : text.slice(end).trim()
    if (rest === '') return { text, ...(ts ? { ts } : {}), query: false, context: kind }
    const q = QUERY.exec(rest)
    return { text: text.slice(0, end).trimEnd(), ...(ts ? { ts } : {}), query: false, context: kind, typed: q ? q[1]! : rest }
  }
  return { text, ...(ts ? { ts } : {}), query: false }
}

/** Where a leading run of `<tag>…</tag>` sections ends (-1: a section is not closed). */
function contextEnd(text: string): number {
  let at = 0
  for (;;) {
    const open = /^\s*<([a-z_]+)>/.exec(text.slice(at))
    if (!open || open[1] === 'user_query' || open[1] === 'timestamp') return at
    const close = text.indexOf(`</${open[1]}>`, at + open[0].length)
    if (close < 0) return at === 0 ? -1 : at
    at = close + open[1]!.length + 3
  }
}

/** The `Workspace Path:` line of a `<user_info>` block. */
export function workspacePath(text: string): string | undefined {
  const m = /Workspace Path:\s*(\S[^\n]*)/.exec(text)
  return m ? m[1]!.trim() : undefined
}

/** Wraps typed text the way Cursor stores it. */
export function wrapQuery(text: string, ts?: string | null): string {
  return `${ts ? `<timestamp>${ts}</timestamp>\n` : ''}<user_query>\n${text}\n</user_query>`
}

/** Tool ids other harnesses accept: `[A-Za-z0-9_-]`, never empty. */
export function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_')
}

export function parseJson(s: unknown): unknown {
  if (typeof s !== 'string') return s
  // Too deep to write out or walk: as unreadable as a value that does not parse.
  if (nestsDeeper(s)) return undefined
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}
