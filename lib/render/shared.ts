/** Pieces the document formats share: escaping, anchors, header and footer facts. */
import type { SessionRec } from '../model.js'
import { oneLine } from './clean.js'
import type { Footer, Place } from './format.js'

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
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
  if (s.created_at) out.push(['started', oneLine(s.created_at, 40)])
  if (s.updated_at && s.updated_at !== s.created_at) out.push(['updated', oneLine(s.updated_at, 40)])
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
  out.push(`${f.sessions} session${f.sessions === 1 ? '' : 's'}${f.subagents ? ` (${f.subagents} sub-agent${f.subagents === 1 ? "" : "s"})` : ''}`)
  return out
}
