/**
 * Keyword context: a value is a secret because of the name next to it
 * (`DB_PASSWORD=…`, `"client_secret": "…"`, `const apiKey = '…'`,
 * `- name: DD_APP_KEY\n  value: …`, `--token …`, `.netrc` `password …`), in
 * any quoting and at any JSON escaping depth (`\"`, `\\\"`…).
 *
 * The regex only finds a keyword followed by an assignment and a value; the
 * decision is made in code: the whole identifier is taken, split into words
 * (snake, kebab, camel case) and judged — the last word must name a secret
 * (`password`, `secret`, `token`, `auth`, a qualified `key` such as
 * `api_key`/`app_key`/`account_key`, or any `*_KEY` env variable), and no word
 * may say it is something else (`max_tokens`, `key_id`, `token_type`,
 * `public_key`, `secret_name`, `password_min_length`) — then the value is
 * judged: not a placeholder, reference, identifier, path, URL, number or
 * word, and random enough.
 */
import type { Rule } from './rule.js'
import { MAX_TOKEN } from './rule.js'
import { decodesToUserPass } from './base64.js'
import { classes, entropy, isPlaceholder } from './placeholder.js'
import { proseValue, type ProseJudge } from './prose.js'

/** Last words that name a secret on their own. */
const STRONG = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase', 'passcode', 'secret', 'secrets', 'token', 'apikey', 'credential', 'credentials', 'creds', 'auth', 'authtoken', 'accesstoken', 'dsn', 'sig', 'pat', 'privatekey', 'secretkey', 'accesskey', 'apitoken', 'authkey', 'pw', 'pword', 'passe', 'passwort', 'kennwort', 'senha', 'clave', 'chiave', 'contrasena', 'wachtwoord', 'motdepasse'])
/** Words before `key` that make it a secret key. */
const KEY_QUALIFIER = new Set(['api', 'app', 'application', 'access', 'secret', 'private', 'auth', 'account', 'client', 'master', 'signing', 'encryption', 'encrypt', 'license', 'licence', 'service', 'admin', 'write', 'deploy', 'ingest', 'ingestion', 'sdk', 'server', 'webhook', 'subscription', 'shared', 'storage', 'session', 'consumer', 'partner', 'integration', 'root', 'hmac', 'cipher', 'crypto', 'aes', 'jwt', 'x', 'live', 'prod', 'production', 'mgmt', 'management', 'rest', 'developer', 'dev', 'search', 'maps', 'merchant', 'sendgrid', 'stripe', 'mailgun', 'openai', 'anthropic', 'dd', 'datadog', 'algolia', 'cf', 'cloudflare', 'heroku', 'twilio', 'segment', 'posthog', 'amplitude', 'mixpanel', 'pusher', 'firebase', 'supabase', 'personal', 'org', 'organization', 'team', 'bot', 'agent', 'node', 'instance', 'cluster', 'project', 'workspace', 'tenant', 'site', 'platform', 'global', 'role'])
/** Words that say the value is not the secret itself. */
const NOT_SECRET = new Set(['public', 'pub', 'publishable', 'id', 'ids', 'name', 'names', 'type', 'types', 'path', 'paths', 'file', 'files', 'filename', 'dir', 'url', 'uri', 'endpoint', 'host', 'count', 'counts', 'limit', 'limits', 'max', 'min', 'length', 'len', 'size', 'usage', 'used', 'expires', 'expiry', 'expiration', 'ttl', 'lifetime', 'header', 'prefix', 'suffix', 'policy', 'hash', 'hashed', 'digest', 'format', 'field', 'column', 'mode', 'strength', 'rotation', 'version', 'enabled', 'required', 'hint', 'label', 'ref', 'arn', 'env', 'var', 'input', 'output', 'cache', 'window', 'tokenizer', 'tokenizers', 'placeholder', 'example', 'sample', 'primary', 'foreign', 'sort', 'partition', 'index', 'location', 'scope', 'scopes', 'budget', 'cost', 'rate', 'timeout', 'retries', 'reset', 'length', 'regex', 'pattern', 'validator', 'validation', 'field', 'bucket', 'fingerprint', 'algorithm', 'alg', 'kid', 'issuer', 'audience', 'event', 'events'])
/** Trailing words that still describe the named value (`SECRET_VALUE`, `client_key_data`). */
const TRAILING = new Set(['base', 'value', 'data', 'b64', 'base64', 'str', 'string', 'raw', 'enc', 'encoded', 'plain', 'plaintext', 'text', 'literal'])

/** Splits an identifier into lower-case words: `DD_APP_KEY`, `ddAppKey`, `dd-app-key`, `X-Api-Key` → dd app key. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/** How strongly a name says "secret": 0 not, 1 a `*_KEY` env variable (needs a random value), 2 yes. */
export function nameStrength(name: string): number {
  const w = words(name)
  while (w.length > 1 && TRAILING.has(w[w.length - 1]!)) w.pop()
  if (w.length === 0) return 0
  const last = w[w.length - 1]!
  const prev = w.length > 1 ? w[w.length - 2]! : ''
  let s = 0
  if (STRONG.has(last)) s = 2
  else if ((last === 'key' || last === 'keys') && KEY_QUALIFIER.has(prev)) s = 2
  else if ((last === 'key' || last === 'tokens') && w.length >= 2 && /^[A-Z0-9_]+$/.test(name)) s = 1
  else if (last.endsWith('password') || last.endsWith('secret') || last.endsWith('token') || last.endsWith('apikey')) s = 2
  else return 0
  for (let i = 0; i < w.length - 1; i++) if (NOT_SECRET.has(w[i]!)) return 0
  if (last === 'tokens' || last === 'keys') return w.some((x) => x === 'max' || x === 'input' || x === 'output') ? 0 : 1
  return s
}

const NUMBER = /^[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i
const VERSION = /^v?\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.\-]+)?$/
/** `config.apiKey`, `settings.DB_PASSWORD`, `Foo::BAR`: segments are words in camel case or constants (a random `u6oVRUHN.g2Xq` is not). */
const SEGMENT = String.raw`(?:[A-Za-z_$][a-z_$]*(?:[A-Z][a-z_$]*)*[0-9]*|[A-Z][A-Z0-9_]*)`
const DOTTED_IDENT = new RegExp(String.raw`^${SEGMENT}(?:(?:\.|::|->)${SEGMENT})+$`)
const WORDY = /^[a-z]+(?:[._\- ][a-z]+)*$/
const LETTERS = /^[A-Za-z]+$/
const REFERENCE = /^(?:\$|%[A-Za-z_][A-Za-z0-9_]*%$|%\(|\{\{|\$\{|process\.env|os\.environ|os\.getenv|getenv|env\.|ENV\[|self\.|this\.|config\.|settings\.|secrets\.|vars\.|var\.|local\.|data\.|module\.|args\.|params\.|props\.|req\.|request\.|ctx\.|options\.|opts\.)/
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * Whether a segment of a dotted name reads as an identifier (`config`,
 * `dbPassword`, `SECRET_KEY`), not random letters (`vxUKIdrR`, `xhwzEn`): its
 * camel-case and snake parts are words (a vowel, or at most 3 letters),
 * acronyms of at most 5 letters, or trailing digits; never a lone capital.
 */
function identLike(seg: string): boolean {
  const parts = seg.match(/[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[A-Z]|[^A-Za-z0-9]+/g)
  if (!parts) return false
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!
    const c = p.charCodeAt(0)
    if (c >= 48 && c <= 57) {
      if (k < parts.length - 1 && /[A-Za-z]/.test(parts[k + 1]!)) return false
      continue
    }
    if (!/[A-Za-z]/.test(p)) continue
    if (p.length === 1 && c >= 65 && c <= 90) return false
    if (/^[A-Z]+$/.test(p)) {
      if (p.length > 5 && !/[AEIOUY]/.test(p)) return false
      if (p.length > 8) return false
      continue
    }
    if (p.length > 3 && !/[aeiouy]/i.test(p)) return false
  }
  return true
}

/** Letters in random case (`KugtCaBIArXFPL`), not camel case (`getApiKeyFromVault`): many capitals, switching often. */
function mixedCase(v: string): boolean {
  let up = 0
  let switches = 0
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (c >= 65 && c <= 90) {
      up++
      const p = v.charCodeAt(i - 1)
      if (p >= 97 && p <= 122) switches++
    }
  }
  return up >= 0.3 * v.length && switches >= 3
}

/** A path: no segment looks random (base64 that starts with `/` is not a path). */
function isPath(v: string): boolean {
  for (const seg of v.split(/[\\/]/)) if (/[+=]/.test(seg) || (seg.length >= 16 && classes(seg) >= 3)) return false
  return true
}

/** Whether `v` (with `strength` of its name) looks like a credential, not a setting or reference. */
export function secretValue(v: string, strength: number, name: string): boolean {
  const n = v.length
  if (n < 6) return false
  if (isPlaceholder(v)) return false
  if (/^[a-z0-9]{6}\.[a-z0-9]{16}$/.test(v)) return true // a Kubernetes bootstrap token
  if (/^pk[._](?:eyJ|live_|test_)/.test(v)) return false // publishable keys (Mapbox, Stripe) are public by design
  if (REFERENCE.test(v) || (DOTTED_IDENT.test(v) && v.split(/\.|::|->/).every(identLike)) || NUMBER.test(v) || VERSION.test(v) || DATE.test(v)) return false
  if ((/^(?:\.{0,2}\/|~\/|[A-Za-z]:[\\/])/.test(v) && isPath(v)) || /^[a-z][a-z0-9+.\-]*:\/\//i.test(v)) return false // paths and URLs (URLs: url.ts)
  if (WORDY.test(v)) return false
  if (/^(?:sha\d+|md5|h1|sha1)[:\-]/i.test(v)) return false // integrity hashes
  if (/^ssh-(?:rsa|ed25519|dss)|^ecdsa-sha2|^-----BEGIN (?!.*PRIVATE)/.test(v)) return false
  const e = entropy(v)
  const isPassword = /pass|pwd|pw$|pword/i.test(name)
  if (LETTERS.test(v)) {
    // Letters only: an identifier (`getApiKey`, `Bearer`) unless long and random, or a password that reads as no identifier.
    if (!(n >= 20 && e >= (strength >= 2 ? 3.5 : 3.8)) && !(isPassword && strength >= 2 && n >= 10 && (!identLike(v) || mixedCase(v)))) return false
  }
  if (strength >= 2) {
    if (isPassword) return n >= 6 && e >= 2.3 && classes(v) >= 2
    // Random hex of 24+ characters can repeat enough to dip below 3 bits.
    return n >= 8 && e >= (n >= 24 ? 2.7 : 3) && classes(v) >= 2
  }
  return n >= 16 && e >= 3.5 && classes(v) >= 2
}

const ident = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46

/** The keywords (lower case) a secret's name holds; `\b` ones must end the name there. */
const KEYWORDS: Array<[string, boolean]> = [['pass', false], ['pw', false], ['secret', false], ['token', false], ['key', false], ['auth', false], ['cred', false], ['dsn', false], ['sig', true], ['pat', true], ['senha', false], ['clave', false], ['chiave', false], ['contrase', false]]

/**
 * After a keyword: the rest of the identifier, a closing quote at any
 * escaping depth, the operator (`=`, `:`, `:=`, `=>`, `,` between quoted name
 * and value, or spaces — then judged in code), an opening quote, the value.
 * Run sticky at each keyword occurrence (found with indexOf on a lower-case
 * copy, much faster than one alternation over the text).
 */
const AFTER = new RegExp(
  String.raw`[a-z0-9_.\-]{0,40}(?<cq>\\*["'])?(?<op>[ \t]{0,4}(?::=|=>|==?|:|,)[ \t]{0,4}|[ \t]{1,4})(?<oq>\\*["'\x60]|\\*\(|b\\*["'])?(?<s>[^\s"'\x60\\,;<>(){}\[\]&|]{6,${MAX_TOKEN}})`,
  'dyi',
)
const strengthCache = new Map<string, number>()

/** In `.netrc` a space separates name and value (CLI flags, `--token VALUE`, are told by their dashes). */
function spaceAllowed(text: string, name: string): boolean {
  if (/^(?:password|passwd|login)$/i.test(name) && /(?:^|\s|\\n)machine\s/.test(text)) return true
  return false
}

/**
 * `- name: DB_PASSWORD` then `value: …` (Kubernetes env, ECS task
 * definitions `{"name": "…", "value": "…"}`): the name is in another key.
 */
const NAME_VALUE = new RegExp(
  String.raw`name\\*["']?\s*:\s*\\*["']?(?<n>[a-z0-9_.\-]{2,80})\\*["']?\s*,?(?:\s|\\+[nrt])*(?:-\s*)?value\\*["']?\s*:\s*(?<oq>\\*["'])?(?<s>[^\s"'\x60\\,;<>(){}\[\]&|]{6,${MAX_TOKEN}})`,
  'dgi',
)

function findNameValue(text: string, out: Array<[number, number]>): void {
  NAME_VALUE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = NAME_VALUE.exec(text)) !== null) {
    const [ns, ne] = m.indices!.groups!.n!
    const [vs, ve] = m.indices!.groups!.s!
    const name = text.slice(ns, ne)
    const v = text.slice(vs, ve)
    const strength = nameStrength(name)
    if (strength > 0 && secretValue(v, strength, name)) out.push([vs, ve])
  }
}

const isLetter = (c: number): boolean => c >= 97 && c <= 122

/** Each keyword in lower, upper and capitalised form: the engine's prefilter table reports where they occur (`findAt`). */
export const KEYWORD_FORMS: string[] = KEYWORDS.flatMap(([k]) => [k, k.toUpperCase(), k[0]!.toUpperCase() + k.slice(1)])
/** Keywords that must end the identifier where they occur (`sig` but not `signal`); the caller of `findAt` drops the others. */
export const KEYWORD_WORD_END = new Set(KEYWORDS.filter(([, w]) => w).map(([k]) => k))

/**
 * Whether the identifier holding the keyword at `at` follows `name:` /
 * `"name": "` at any escaping depth (NAME_VALUE's `name\\*["']?\s*:\s*\\*["']?`):
 * only then can findNameValue find anything.
 */
function afterName(text: string, at: number): boolean {
  let b = at
  while (b > 0 && at - b < 80 && ident(text.charCodeAt(b - 1))) b--
  let colon = false
  while (b > 0 && at - b < 120) {
    const c = text.charCodeAt(b - 1)
    if (c === 58) colon = true
    else if (c !== 92 && c !== 34 && c !== 39 && c !== 32 && c !== 9 && c !== 10 && c !== 13) break
    b--
  }
  return colon && b >= 4 && text.slice(b - 4, b).toLowerCase() === 'name'
}

/** The value the last assignment read (judged secret or not), as findAt's skip range. */
let valueStart = -1
let valueEnd = -1

/**
 * Keyword context at the given keyword occurrences (`hits`: start, length
 * pairs, in text order or not; a word-end keyword, `sig`, `pat`, already
 * known to end its identifier).
 */
function findAt(text: string, hits: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let nameValue = false
  const hasValue = text.includes('alue')
  valueStart = valueEnd = -1
  for (let k = 0; k < hits.length; k += 2) {
    const at = hits[k]!
    const next = at + hits[k + 1]!
    // A keyword inside the value an earlier one took (`password=password=…`) was judged with it: each value is read once, so a run of keywords stays linear.
    if (at >= valueStart && at < valueEnd) continue
    // `name: DB_PASSWORD` … `value: X`: the value is in another key (only looked for when a keyword sits in a `name`).
    if (hasValue && !nameValue) nameValue = afterName(text, at)
    const e = mayAssign(text, at, next) ? assignment(text, at, next) : null
    if (e) out.push(e)
    else {
      // Not an assignment: a cue in prose ("my API key is …").
      const p = proseValue(text, at, next, PROSE)
      if (p) out.push(p)
    }
  }
  if (nameValue) findNameValue(text, out)
  return out
}

const PROSE: ProseJudge = { strength: (n) => cachedStrength(n), value: (v, s, n) => secretValue(v, s, n), notSecret: (w) => NOT_SECRET.has(w) }

function cachedStrength(name: string): number {
  let s = strengthCache.get(name)
  if (s === undefined) {
    s = nameStrength(name)
    if (strengthCache.size < 10_000) strengthCache.set(name, s)
  }
  return s
}

/** Standalone form (all occurrences found here): for callers without the engine's table. */
function find(text: string): Array<[number, number]> {
  const hits: number[] = []
  for (const kw of KEYWORD_FORMS) {
    const wordEnd = KEYWORD_WORD_END.has(kw.toLowerCase())
    for (let at = text.indexOf(kw); at !== -1; at = text.indexOf(kw, at + kw.length)) if (!wordEnd || !isLetter(text.charCodeAt(at + kw.length) | 32)) hits.push(at, kw.length)
  }
  return findAt(text, hits)
}

/**
 * Cheap test before the regex: after the rest of the identifier comes a
 * quote, backslash or operator, or spaces then an operator, or spaces after a
 * `--flag` or a `.netrc` word (most keyword hits in prose and code fail here).
 */
function mayAssign(text: string, at: number, i: number): boolean {
  const end = Math.min(text.length, i + 41)
  let c = text.charCodeAt(i)
  while (i < end && ident(c)) c = text.charCodeAt(++i)
  if (c === 61 || c === 58 || c === 34 || c === 39 || c === 92 || c === 44) return true
  if (c !== 32 && c !== 9) return false
  let j = i
  while (j < text.length && j - i < 5 && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++
  const d = text.charCodeAt(j)
  if (d === 61 || d === 58 || d === 44) return true
  let b = at
  while (b > 0 && at - b < 60 && ident(text.charCodeAt(b - 1))) b--
  return text.charCodeAt(b) === 45 || /^(?:pass|login)/i.test(text.slice(b, i))
}

/** The value assigned to the identifier holding the keyword at `at`, when the name and the value both say secret. */
function assignment(text: string, at: number, from: number): [number, number] | null {
  // The whole identifier the keyword sits in, judged before the regex runs (most names say no).
  // AFTER's name part is the identifier characters after the keyword, at most 40: nothing else can follow them.
  let nameEnd = from
  while (nameEnd < text.length && ident(text.charCodeAt(nameEnd))) nameEnd++
  if (nameEnd - from > 40) return null
  let b = at
  while (b > 0 && at - b < 60 && ident(text.charCodeAt(b - 1))) b--
  // A name that starts right after a JSON escape (`\nDB_PASSWORD=`) starts after the escape's letter.
  if (b >= 1 && text.charCodeAt(b - 1) === 92 && /[nrt]/.test(text[b]!) && b < at) b++
  let name = text.slice(b, nameEnd)
  const flag = name.startsWith('-')
  if (flag) name = name.replace(/^-+/, '')
  let strength = strengthCache.get(name)
  if (strength === undefined) {
    strength = nameStrength(name)
    if (strengthCache.size < 10_000) strengthCache.set(name, strength)
  }
  if (strength === 0) return null
  AFTER.lastIndex = from
  const m = AFTER.exec(text)
  if (!m) return null
  const g = m.groups!
  const vStart = m.indices!.groups!.s![0]
  valueStart = vStart
  valueEnd = vStart + g.s!.length
  let v = text.slice(vStart, vStart + g.s!.length)
  const op = g.op!.trim()
  if (op === '' && !flag && !spaceAllowed(text, name)) return null
  if (op === ',' && !(g.cq && g.oq)) return null
  if (op === '==') return null
  // A function call (`getToken(`) or a member of a longer expression is code, not a value.
  const after = text.charCodeAt(vStart + v.length)
  if (after === 40 || (!g.oq && after === 46)) return null
  if (g.oq && g.oq.endsWith('(')) return null
  // A quoted value runs to its closing quote (a password may hold `&`, `;`, `(`): at most MAX_TOKEN, on one line.
  if (g.oq && !g.oq.endsWith('(')) {
    const close = g.oq.replace(/^b/, '')
    const stopAt = vStart + v.length
    const c = text.charCodeAt(stopAt)
    if (c !== 10 && c !== 32 && c !== 9 && !text.startsWith(close, stopAt)) {
      // Bounded: an unclosed quote must not make each keyword scan the rest of a 10 MB text.
      const rel = text.slice(stopAt, Math.min(text.length, vStart + MAX_TOKEN)).indexOf(close)
      const end = rel === -1 ? -1 : stopAt + rel
      if (end !== -1) {
        const full = text.slice(vStart, end)
        if (!/[\s]|\\n/.test(full)) v = full
      }
    }
  }
  // Trailing punctuation of prose or code is not part of the value.
  const trimmed = v.replace(/[.:!?]+$/, '')
  if (trimmed.length < v.length) v = trimmed
  const userPass = /auth[^a-z0-9]*$/i.test(name) && words(name).pop() === 'auth' && decodesToUserPass(v)
  if (!userPass && !secretValue(v, strength, name)) return null
  return [vStart, vStart + v.length]
}

/** Its keywords are not a prefilter: the engine's table collects their positions and calls `findAt`. */
export const KEYWORD: Rule & { findAt: typeof findAt } = {
  kind: 'generic-secret',
  keywords: [],
  findAt,
  re: /(?!)/g,
  find,
}
