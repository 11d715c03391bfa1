/** Observability and SaaS: token formats as each provider documents them (prefix, alphabet, length). */
import { entropy, isPlaceholder } from '../placeholder.js'
import { p, type Rule } from '../rule.js'

const AIRTABLE = /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9])/y
const alnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/**
 * Airtable personal access tokens, tried only where `pat` occurs: `path`,
 * `patch` and `pattern` put the keyword in most long outputs, and a regex
 * run from the first of them scans all the rest.
 */
function findAirtable(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let at = text.indexOf('pat'); at !== -1; at = text.indexOf('pat', at + 3)) {
    // Left boundary as {L}: start, a non-alphanumeric, or a JSON escape's letter.
    if (at > 0 && alnum(text.charCodeAt(at - 1)) && !(at >= 2 && text.charCodeAt(at - 2) === 92 && /[nrt]/.test(text[at - 1]!))) continue
    AIRTABLE.lastIndex = at
    const m = AIRTABLE.exec(text)
    if (m && entropy(m[0]) >= 3 && !isPlaceholder(m[0])) out.push([at, at + m[0].length])
  }
  return out
}

export const SAAS: Rule[] = [
  p('newrelic-key', ['NRAK-', 'NRII-'], String.raw`{L}(?<s>NR(?:AK|II)-[A-Z0-9]{27}){R}`),
  p('grafana-token', ['glc_', 'glsa_'], String.raw`{L}(?<s>glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`),
  p('sentry-token', ['sntrys_', 'sntryu_'], String.raw`{L}(?<s>sntrys_eyJ[A-Za-z0-9+/=_\-]{60,}|sntryu_[a-f0-9]{64})`),
  p('linear-key', ['lin_api_'], String.raw`{L}(?<s>lin_api_[A-Za-z0-9]{40}){R}`),
  p('notion-token', ['ntn_', 'secret_'], String.raw`{L}(?<s>ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}){R}`, 3.5),
  { kind: 'airtable-token', keywords: ['pat'], re: /(?!)/g, find: findAirtable },
  p('figma-token', ['figd_'], String.raw`{L}(?<s>figd_[A-Za-z0-9_\-]{40}){R}`),
  p('mapbox-token', ['sk.eyJ'], String.raw`{L}(?<s>sk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,})`),
  p('onepassword-token', ['ops_eyJ'], String.raw`{L}(?<s>ops_eyJ[A-Za-z0-9+/=_\-]{100,})`),
  p('age-secret-key', ['AGE-SECRET-KEY-1'], String.raw`(?<s>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`),
]
