/**
 * Provider tokens that have no prefix of their own, caught by their shape
 * when the provider is named nearby (`new Cloudflare("…")`,
 * `{"datadog": {"api": "…"}}`, `heroku3.from_key("…")`, `$ heroku auth:token`
 * then the key) though no variable name says what the value is:
 * - Cloudflare API token: 40 of [A-Za-z0-9_-] with upper, lower and digits;
 *   Global API key: 37 hex;
 * - Datadog API key: 32 hex; application key: 40 hex;
 * - Heroku API key: a UUID (`HRKU-` keys are a provider rule).
 * A value the words just before call an id, hash, commit or checksum stays
 * (`datadog trace_id=…`, `Heroku app id: <uuid>`). Supabase keys are JWTs
 * (the `jwt` rule). Found with indexOf and a bounded window: linear.
 */
import type { Rule } from './rule.js'
import { classes, entropy } from './placeholder.js'

type Shape = (v: string) => boolean

const HEX = /^[0-9a-f]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const cloudflare: Shape = (v) => (v.length === 40 && /^[A-Za-z0-9_\-]+$/.test(v) && classes(v) >= 3 && entropy(v) >= 4) || (v.length === 37 && HEX.test(v) && entropy(v) >= 3.3)
const datadog: Shape = (v) => (v.length === 32 || v.length === 40) && HEX.test(v) && entropy(v) >= 3
const heroku: Shape = (v) => v.length === 36 && UUID.test(v)

/** Provider names as written (case forms listed: the prefilter is case-sensitive), with the shape of their keys. */
const NAMES: Array<[string[], Shape, string]> = [
  [['cloudflare', 'Cloudflare', 'CloudFlare', 'CLOUDFLARE', 'wrangler'], cloudflare, 'cloudflare-token'],
  [['datadog', 'Datadog', 'DataDog', 'DATADOG'], datadog, 'datadog-key'],
  [['heroku', 'Heroku', 'HEROKU'], heroku, 'heroku-token'],
]

/** Words before a value that say it is an identifier or a digest, not a key. */
export const NOT_KEY = /(?:^|[^a-z])(?:id|ids|uuid|guid|hash|sha\d*|md5|commit|checksum|digest|rev|revision|head|trace|span|build|version|etag|request|session|monitor|dashboard|zone|account|org|event|run|job)(?:[^a-z]|$)/i

/** How far from the provider's name a key may stand. */
const BEFORE = 200
const AFTER = 240

const tokenChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45

/** Where a line break is at `i`: a newline, or a `\n` escape (JSON text at any depth); its length, or 0. */
function breakAt(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === 10) return 1
  return c === 92 && text.charCodeAt(i + 1) === 110 ? 2 : 0
}

/** The start of the line holding `at`, at most `max` characters back. */
function lineStart(text: string, at: number, max: number): number {
  const lo = Math.max(0, at - max)
  for (let i = at - 1; i >= lo; i--) if (breakAt(text, i)) return i + 1
  return lo
}

/**
 * Where the window after a provider's name ends: the end of its line, then
 * any following lines that are indented (a YAML block under `datadog:`), or
 * one following line that is a token alone (`$ heroku auth:token` prints the
 * key); at most `max` characters.
 */
function blockEnd(text: string, from: number, max: number): number {
  const hi = Math.min(text.length, from + max)
  let i = from
  let first = true
  while (i < hi) {
    const b = breakAt(text, i)
    if (b === 0) {
      i++
      continue
    }
    let j = i + b
    // Escaped text: `\\n` at depth 2 leaves backslashes before the `n`; they are part of the break.
    const c = text.charCodeAt(j)
    if (c === 32 || c === 9) {
      first = false
      i = j
      continue
    }
    if (first) {
      // A line that is one token, alone.
      let k = j
      while (k < hi && tokenChar(text.charCodeAt(k))) k++
      if (k - j >= 32 && (k >= text.length || breakAt(text, k) || text.charCodeAt(k) === 92)) return k
    }
    return i
  }
  return hi
}

function find(text: string): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = []
  for (const [names, shape, kind] of NAMES) {
    // Windows of nearby mentions overlap: each starts after the last one looked at, so every character is read once per provider.
    let upTo = 0
    for (const name of names) {
      upTo = 0
      for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
        let i = Math.max(lineStart(text, at, BEFORE), upTo)
        const end = blockEnd(text, at + name.length, AFTER)
        while (i < end) {
          while (i < end && !tokenChar(text.charCodeAt(i))) i++
          const s = i
          while (i < text.length && tokenChar(text.charCodeAt(i))) i++
          const len = i - s
          if (len < 32 || len > 40) continue
          // A JSON escape's letter (`\n…`) is not part of the value.
          let vs = s
          if (vs >= 1 && text.charCodeAt(vs - 1) === 92 && /[nrt]/.test(text[vs]!)) vs++
          const v = text.slice(vs, i)
          if (!shape(v)) continue
          // A piece of a longer base64 string (an integrity hash, a public key) is not a key.
          const before = text.charCodeAt(s - 1)
          const after = text.charCodeAt(i)
          if (before === 43 || before === 47 || before === 61 || before === 46 || after === 43 || after === 47 || after === 61 || (after === 46 && tokenChar(text.charCodeAt(i + 1)))) continue
          if (NOT_KEY.test(text.slice(Math.max(0, vs - 24), vs))) continue
          out.push([vs, i, kind])
        }
        upTo = i
      }
    }
  }
  return out
}

export const PROVIDER_CONTEXT: Rule = { kind: 'provider-token', keywords: NAMES.flatMap(([n]) => n), re: /(?!)/g, find, noPlaceholderCheck: true }
