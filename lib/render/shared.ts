/** Pieces the document formats share: escaping, anchors, header and footer facts. */
import type { SessionRec } from '../model.js'
import { oneLine } from './clean.js'
import type { Footer, Place } from './format.js'

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

/** `1 line`, `2 lines`; `1 entry`, `3 entries` (the plural given when it is not `one` + s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

const HUMAN = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' })
const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
const DAY = new Intl.DateTimeFormat('en-GB', { year: 'numeric', month: '2-digit', day: '2-digit' })

/**
 * A recorded instant for a person: in the time zone of the machine that
 * renders (TZ), with the zone named (`Thu 5 Nov 2026, 15:02:02 CET`), its
 * clock time alone (`15:02:02`), and the local day (to show the date when it
 * changes). Null when the text is not a time; the caller shows it as written.
 */
export function localTime(iso: string): { full: string; clock: string; day: string } | null {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return null
  return { full: HUMAN.format(d), clock: CLOCK.format(d), day: DAY.format(d) }
}

/**
 * A message's time as a document shows it: the clock time, with the date and
 * zone when the local day changes (and on the first message); `title` is
 * always the full local time. Each document keeps one of these.
 */
export function messageClock(): (ts: string) => { text: string; title: string } {
  let lastDay = ''
  return (ts) => {
    const t = localTime(ts)
    if (!t) return { text: oneLine(ts, 40), title: oneLine(ts, 40) }
    const text = t.day === lastDay ? t.clock : t.full
    lastDay = t.day
    return { text, title: t.full }
  }
}

/** `m12` in the first session, `s2-m12` in later ones, so links into the transcript stay short. */
export function messageAnchor(place: Place, n: number): string {
  return place.session === 1 ? `m${n}` : `s${place.session}-m${n}`
}

/** The header facts of a session as label/value pairs (plain text, cleaned). */
export function sessionFacts(s: SessionRec, agent: string): Array<[string, string]> {
  const out: Array<[string, string]> = [['agent', agent]]
  if (s.cwd) out.push(['cwd', oneLine(s.cwd, 300)])
  if (s.model) out.push(['model', oneLine(s.model, 100)])
  if (s.git?.branch) out.push(['branch', oneLine(s.git.branch, 100)])
  const human = (iso: string): string => localTime(iso)?.full ?? oneLine(iso, 40)
  if (s.created_at) out.push(['started', human(s.created_at)])
  if (s.updated_at && s.updated_at !== s.created_at) out.push(['updated', human(s.updated_at)])
  out.push(['session', oneLine(s.sid, 200)])
  return out
}

/** The footer's sentences: what was redacted (counts by kind), version, agents. */
export function footerFacts(f: Footer): string[] {
  const out: string[] = []
  if (f.redacted === null) out.push(f.redactedBefore ? 'redacted before rendering' : 'not redacted')
  else {
    const kinds = Object.entries(f.redacted).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    out.push(kinds.length ? `redacted: ${kinds.map(([k, n]) => `${k} ×${n}`).join(', ')}` : 'redacted: nothing found')
  }
  out.push(`rendered by ferry ${f.version}`)
  out.push(`source: ${f.agents.join(', ') || 'none'}`)
  out.push(`${plural(f.sessions, 'session')}${f.subagents ? ` (${plural(f.subagents, 'sub-agent')})` : ''}`)
  return out
}
