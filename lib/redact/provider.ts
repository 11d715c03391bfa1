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
const datadog: Shape = (v) => (v.length === 32 || v.length === 40) && HEX.test(v) && entropy(v) >= 3.3
const heroku: Shape = (v) => v.length === 36 && UUID.test(v)

/** Provider names as written (case forms listed: the prefilter is case-sensitive), with the shape of their keys. */
const NAMES: Array<[string[], Shape, string]> = [
  [['cloudflare', 'Cloudflare', 'CloudFlare', 'CLOUDFLARE', 'wrangler'], cloudflare, 'cloudflare-token'],
  [['datadog', 'Datadog', 'DataDog', 'DATADOG'], datadog, 'datadog-key'],
  [['heroku', 'Heroku', 'HEROKU'], heroku, 'heroku-token'],
]

/** Words before a value that say it is an identifier or a digest, not a key. */
const NOT_KEY = /(?:^|[^a-z])(?:id|ids|uuid|guid|hash|sha\d*|md5|commit|checksum|digest|rev|revision|head|trace|span|build|version|etag|request|session|monitor|dashboard|zone|account|org|event|run|job)(?:[^a-z]|$)/i

/** How far from the provider's name a key may stand. */
const BEFORE = 200
const AFTER = 240

const tokenChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45

function find(text: string): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = []
  for (const [names, shape, kind] of NAMES) {
    // Windows of nearby mentions overlap: each starts after the last one looked at, so every character is read once per provider.
    let upTo = 0
    for (const name of names) {
      upTo = 0
      for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
        let i = Math.max(at - BEFORE, upTo)
        const end = Math.min(text.length, at + name.length + AFTER)
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
