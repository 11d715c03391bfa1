/**
 * Secret detection rules. Each rule names a `kind` (the label in
 * `[REDACTED:kind:N]`), literal `keywords` of which at least one must occur
 * in the text before the regex runs (the prefilter), and a regex whose group
 * `s` (or whole match) is the secret.
 *
 * The provider list follows gitleaks' default rule set as a checklist; the
 * patterns are written from the providers' documented token formats (see
 * lib/redact/README.md). Boundaries: a token may sit right after a JSON
 * escape (`\nAKIA…` inside `native.raw`), so the left boundary accepts a
 * preceding `\n`/`\t`/`\r` escape as well as a non-word character.
 */

export interface Rule {
  kind: string
  keywords: string[]
  /** Match the keywords case-insensitively. */
  ci?: boolean
  re: RegExp
  /** The secret must not follow an alphanumeric (a JSON escape like `\n` is fine). Checked in code, so the regex keeps its literal prefix fast. */
  lb?: boolean
  /** The secret starts this many characters before the match (a lookbehind checked them); keeps a literal first. */
  back?: number
  /** What those `back` characters must look like (and no alphanumeric before them). */
  backRe?: RegExp
  /** Shannon entropy (bits/char) the secret must reach; filters placeholders. */
  entropy?: number
  /** A linear finder used instead of `re` (spans of the secret). */
  find?: (text: string) => Array<[number, number]>
  /** Generic rules: a value check beyond entropy. */
  check?: (secret: string, match: RegExpExecArray) => boolean
}

/** Left boundary: start, a non-alphanumeric, or a JSON escape `\n` `\t` `\r`. */
const L = String.raw`(?:(?<=\\[nrt])|(?<![A-Za-z0-9]))`
/** Right boundary: not followed by an alphanumeric. */
const R = String.raw`(?![A-Za-z0-9])`

/** The longest token a quantifier takes: every open-ended `{n,}` is bounded (a multi-MB run must not overflow the regex stack); longer runs go to the engine's linear huge-run pass. */
export const MAX_TOKEN = 4096

function rx(src: string, flags = 'dg'): RegExp {
  return new RegExp(src.replace(/\{L\}/g, L).replace(/\{R\}/g, R).replace(/\{(\d+),\}/g, `{$1,${MAX_TOKEN}}`), flags)
}

const p = (kind: string, keywords: string[], src: string, entropy = 3): Rule => {
  const lb = src.startsWith('{L}')
  return { kind, keywords, re: rx(lb ? src.slice(3) : src), entropy, ...(lb ? { lb } : {}) }
}

export const RULES: Rule[] = [
  // Private keys first: a PEM body would otherwise be seen as base64 noise.
  // Private keys first: a PEM body would otherwise be seen as base64 noise. Found in code (findPem), linearly.
  {
    kind: 'private-key',
    keywords: ['PRIVATE KEY'],
    re: /(?!)/g,
    find: findPem,
  },
  // Cloud
  p('aws-access-key', ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], String.raw`{L}(?<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}){R}`, 2.5),
  {
    kind: 'aws-secret-key',
    keywords: ['aws', 'AWS', 'Aws'],
    re: rx(String.raw`(?:aws|AWS|Aws)[A-Za-z0-9_.\- ]{0,30}?(?:secret|SECRET|Secret)[A-Za-z0-9_.\-]{0,20}(?:\\?["'])?\s*(?:[:=]|=>|\s)\s*(?:\\?["'])?(?<s>[A-Za-z0-9/+]{40}){R}`),
    entropy: 3.5,
  },
  p('gcp-api-key', ['AIza'], String.raw`{L}(?<s>AIza[0-9A-Za-z_\-]{35}){R}`),
  p('gcp-oauth-secret', ['GOCSPX-'], String.raw`(?<s>GOCSPX-[A-Za-z0-9_\-]{28}){R}`),
  p('gcp-access-token', ['ya29.'], String.raw`{L}(?<s>ya29\.[0-9A-Za-z_\-]{30,})`),
  p('azure-storage-key', ['AccountKey='], String.raw`AccountKey=(?<s>[A-Za-z0-9+/]{86}==)`),
  p('azure-ad-secret', ['Q~'], String.raw`{L}(?<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}){R}`),
  p('alibaba-access-key', ['LTAI'], String.raw`{L}(?<s>LTAI[A-Za-z0-9]{20}){R}`),
  p('digitalocean-token', ['_v1_'], String.raw`{L}(?<s>do[opr]_v1_[a-f0-9]{64}){R}`),
  p('databricks-token', ['dapi'], String.raw`{L}(?<s>dapi[a-f0-9]{32}(?:-[0-9])?){R}`),
  p('heroku-token', ['HRKU-'], String.raw`{L}(?<s>HRKU-[A-Za-z0-9_\-]{60}){R}`),
  p('flyio-token', ['fm1_', 'fm2_', 'FlyV1'], String.raw`{L}(?<s>(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})`),
  p('vault-token', ['hvs.', 'hvb.'], String.raw`{L}(?<s>hv[sb]\.[A-Za-z0-9_\-]{90,})`),
  { kind: 'terraform-token', keywords: ['.atlasv1.'], re: rx(String.raw`\.atlasv1\.[A-Za-z0-9_=\-]{60,70}{R}`), back: 14, backRe: /^[A-Za-z0-9]{14}$/ },
  p('pulumi-token', ['pul-'], String.raw`{L}(?<s>pul-[a-f0-9]{40}){R}`),
  p('doppler-token', ['dp.pt.'], String.raw`{L}(?<s>dp\.pt\.[A-Za-z0-9]{43}){R}`),
  p('supabase-token', ['sbp_'], String.raw`{L}(?<s>sbp_[a-f0-9]{40}){R}`),
  p('planetscale-token', ['pscale_'], String.raw`{L}(?<s>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}){R}`),
  // Source hosts and registries
  p('github-token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], String.raw`{L}(?<s>gh[pousr]_[A-Za-z0-9]{36,251}){R}`),
  p('github-token', ['github_pat_'], String.raw`{L}(?<s>github_pat_[A-Za-z0-9_]{82}){R}`),
  p('gitlab-token', ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'glsoat-', 'glft-', 'GR1348941'], String.raw`{L}(?<s>(?:glpat|glptt|gldt|glrt|glcbt|glsoat|glft)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20})`),
  p('bitbucket-token', ['ATBB'], String.raw`{L}(?<s>ATBB[A-Za-z0-9_=.\-]{32,}){R}`),
  p('atlassian-token', ['ATATT3'], String.raw`{L}(?<s>ATATT3[A-Za-z0-9_\-=]{150,})`),
  p('npm-token', ['npm_'], String.raw`{L}(?<s>npm_[A-Za-z0-9]{36}){R}`),
  p('pypi-token', ['pypi-AgEIcHlwaS5vcmc'], String.raw`(?<s>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})`),
  p('rubygems-token', ['rubygems_'], String.raw`{L}(?<s>rubygems_[a-f0-9]{48}){R}`),
  p('docker-token', ['dckr_pat_'], String.raw`{L}(?<s>dckr_pat_[A-Za-z0-9_\-]{27,}){R}`),
  // AI providers
  p('anthropic-key', ['sk-ant-'], String.raw`{L}(?<s>sk-ant-(?:api|admin|sid)[0-9]{2}-[A-Za-z0-9_\-]{80,})`),
  p('openrouter-key', ['sk-or-'], String.raw`{L}(?<s>sk-or-v1-[a-f0-9]{64}){R}`),
  p('openai-key', ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'T3BlbkFJ'], String.raw`{L}(?<s>sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,})`),
  p('xai-key', ['xai-'], String.raw`{L}(?<s>xai-[A-Za-z0-9]{70,}){R}`),
  p('groq-key', ['gsk_'], String.raw`{L}(?<s>gsk_[A-Za-z0-9]{48,}){R}`),
  p('huggingface-token', ['hf_'], String.raw`{L}(?<s>hf_[A-Za-z]{34}){R}`),
  p('replicate-token', ['r8_'], String.raw`{L}(?<s>r8_[A-Za-z0-9]{37}){R}`),
  p('perplexity-key', ['pplx-'], String.raw`{L}(?<s>pplx-[A-Za-z0-9]{48}){R}`),
  // Generic `sk-` keys (DeepSeek, Moonshot, older OpenAI): long random body only.
  p('api-key', ['sk-'], String.raw`{L}(?<s>sk-[A-Za-z0-9]{32,}){R}`, 3.5),
  // Payments and commerce
  p('stripe-key', ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'], String.raw`{L}(?<s>(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/=]{32,})){R}`),
  p('square-token', ['sq0atp-', 'sq0csp-', 'EAAA'], String.raw`{L}(?<s>sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{60}){R}`),
  p('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], String.raw`{L}(?<s>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}){R}`),
  p('braintree-token', ['access_token$production$'], String.raw`(?<s>access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32})`),
  // Chat, mail, webhooks and bots
  p('slack-token', ['xox'], String.raw`{L}(?<s>xox[abposer]-(?:[0-9]+-)?[0-9A-Za-z\-]{10,}|xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,})`),
  p('slack-token', ['xapp-'], String.raw`{L}(?<s>xapp-[0-9]-[A-Z0-9]{1,64}-[0-9]{1,32}-[a-z0-9]{1,256}){R}`),
  p('slack-webhook', ['hooks.slack.com'], String.raw`(?<s>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{30,})`),
  p('discord-webhook', ['/api/webhooks/'], String.raw`(?<s>https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]{60,})`),
  p('teams-webhook', ['webhook.office.com'], String.raw`(?<s>https://[a-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@\-/]{40,}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9\-]{36}(?:/[A-Za-z0-9_\-]+)?)`),
  p('telegram-bot-token', [':AA'], String.raw`{L}(?<s>[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}){R}`),
  p('sendgrid-key', ['SG.'], String.raw`{L}(?<s>SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}){R}`),
  p('mailgun-key', ['key-'], String.raw`{L}(?<s>key-[a-f0-9]{32}){R}`),
  { kind: 'mailchimp-key', keywords: ['-us'], re: rx(String.raw`-us[0-9]{1,2}{R}`), back: 32, backRe: /^[a-f0-9]{32}$/ },
  p('twilio-key', ['SK'], String.raw`{L}(?<s>SK[0-9a-f]{32}){R}`),
  p('postman-key', ['PMAK-'], String.raw`{L}(?<s>PMAK-[a-f0-9]{24}-[a-f0-9]{34}){R}`),
  // Observability and SaaS
  p('newrelic-key', ['NRAK-', 'NRII-'], String.raw`{L}(?<s>NR(?:AK|II)-[A-Z0-9]{27}){R}`),
  p('grafana-token', ['glc_', 'glsa_'], String.raw`{L}(?<s>glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`),
  p('sentry-token', ['sntrys_', 'sntryu_'], String.raw`{L}(?<s>sntrys_eyJ[A-Za-z0-9+/=_\-]{60,}|sntryu_[a-f0-9]{64})`),
  p('linear-key', ['lin_api_'], String.raw`{L}(?<s>lin_api_[A-Za-z0-9]{40}){R}`),
  p('notion-token', ['ntn_', 'secret_'], String.raw`{L}(?<s>ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}){R}`, 3.5),
  p('airtable-token', ['pat'], String.raw`{L}(?<s>pat[A-Za-z0-9]{14}\.[a-f0-9]{64}){R}`),
  p('figma-token', ['figd_'], String.raw`{L}(?<s>figd_[A-Za-z0-9_\-]{40}){R}`),
  p('mapbox-token', ['sk.eyJ'], String.raw`{L}(?<s>sk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,})`),
  p('onepassword-token', ['ops_eyJ'], String.raw`{L}(?<s>ops_eyJ[A-Za-z0-9+/=_\-]{100,})`),
  p('age-secret-key', ['AGE-SECRET-KEY-1'], String.raw`(?<s>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`),
  // Tokens by shape
  p('jwt', ['eyJ'], String.raw`{L}(?<s>eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})`),
  // Credentials inside URLs: replace only the password.
  {
    kind: 'connection-string',
    keywords: ['://'],
    re: rx(String.raw`(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j|jdbc:[a-z]+)://[^\s:/@'"\\]{1,100}:(?<s>[^\s:/@'"\\]{3,200})@`),
    check: (s) => !isPlaceholder(s),
  },
  {
    kind: 'basic-auth',
    keywords: ['://'],
    re: rx(String.raw`(?:https?|ftp|ssh|git|svn)://[^\s:/@'"\\]{1,100}:(?<s>[^\s:/@'"\\]{3,200})@`),
    check: (s) => !isPlaceholder(s),
  },
  {
    kind: 'basic-auth',
    keywords: ['Basic '],
    re: rx(String.raw`[Aa]uthorization:?\s*(?:\\?["'])?\s*Basic\s+(?<s>[A-Za-z0-9+/]{12,}={0,2})`),
    entropy: 3,
  },
  {
    kind: 'bearer-token',
    keywords: ['Bearer ', 'bearer '],
    re: rx(String.raw`[Bb]earer\s+(?<s>[A-Za-z0-9_\-.~+/]{20,}={0,2})`),
    entropy: 3.5,
    check: (s) => !isPlaceholder(s),
  },
]

/**
 * Generic assignments: `password=…`, `"client_secret": "…"`, `API_KEY: …`.
 * Only values with secret-like entropy and shape are taken.
 */
export const GENERIC: Rule = {
  kind: 'generic-secret',
  keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'credential', 'PASS', 'PWD', 'SECRET', 'TOKEN', 'KEY', 'AUTH', 'CREDENTIAL'],
  ci: false,
  re: rx(
    String.raw`(?<name>(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key|private[_.\-]?key|auth[_.\-]?key|credentials?|PASS(?:WORD|WD|PHRASE)?|PWD|SECRET|TOKEN|API[_.\-]?KEY|APIKEY|ACCESS[_.\-]?KEY|PRIVATE[_.\-]?KEY|AUTH[_.\-]?KEY|CREDENTIALS?|Password|Secret|Token|ApiKey|AccessKey)[A-Za-z0-9_]{0,20})(?:\\?["'])?\s{0,3}(?::=|=>|[:=])\s{0,3}(?:\\?["'])?(?<s>[^\s"'\\,;<>(){}\[\]]{8,256})`,
  ),
  entropy: 3.2,
  check: genericValue,
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function genericValue(v: string, m: RegExpExecArray): boolean {
  // The identifier the keyword ends: walk back over identifier characters.
  let b = m.index
  const input = m.input
  while (b > 0 && m.index - b < 40 && /[A-Za-z0-9_.\-]/.test(input[b - 1]!)) b--
  const name = (input.slice(b, m.index) + (m.groups?.name ?? '')).toLowerCase()
  // Counters and settings named like secrets: max_tokens=4096, token_count: 12.
  if (/tokens?_?(?:count|usage|limit|used)|max_?tokens|input_?tokens|output_?tokens|total_?tokens|keys?_?(?:count|len|path|file|id|name)|_?(?:path|file|dir|url|env|name|id|type|len|length|size)$/.test(name)) return false
  if (isPlaceholder(v)) return false
  if (UUID.test(v) && !/pass|secret|api[_.\-]?key|apikey/.test(name)) return false
  if (/^[a-z]+(?:[._-][a-z]+)*$/.test(v)) return false // an identifier or word
  if (/^(?:process\.env|os\.environ|env\.|\$|%|getenv|os\.getenv|self\.|this\.)/.test(v)) return false
  if (/^[./~]/.test(v) || /^[a-z]+:\/\//i.test(v)) return false // paths and URLs
  if (/^\[REDACTED/.test(v)) return false
  let classes = 0
  if (/[a-z]/.test(v)) classes++
  if (/[A-Z]/.test(v)) classes++
  if (/[0-9]/.test(v)) classes++
  if (/[^A-Za-z0-9]/.test(v)) classes++
  return classes >= 2
}

const PLACEHOLDER = /^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|\*+|x+|X+|\.+|your[_\-].*|.*[_\-]here|changeme|change_me|password|passwd|secret|example|redacted|null|none|undefined|true|false|dummy|test|token)$/i

export function isPlaceholder(v: string): boolean {
  if (PLACEHOLDER.test(v)) return true
  if (/EXAMPLE|example|\[REDACTED/.test(v)) return true
  if (/(.)\1{7,}/.test(v)) return true // xxxxxxxx, 00000000
  return false
}

/** Shannon entropy in bits per character. */
const counts = new Uint32Array(65536)
export function entropy(s: string): number {
  const n = s.length
  for (let i = 0; i < n; i++) counts[s.charCodeAt(i)]++
  let e = 0
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    const k = counts[c]!
    if (k === 0) continue
    const f = k / n
    e -= f * Math.log2(f)
    counts[c] = 0
  }
  return e
}

const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,30} PRIVATE KEY(?: BLOCK)?-----/g
const PEM_END = /-----END[ A-Z0-9]{0,30} PRIVATE KEY(?: BLOCK)?-----/y
/** Body characters of a PEM block, also JSON-escaped (`\\n`) and with `Proc-Type:` headers. */
function pemBody(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61 || c === 92 || c === 32 || c === 9 || c === 10 || c === 13 || c === 58 || c === 44 || c === 45
}

/**
 * PEM private keys, linear in the text: each BEGIN line, then the body up to
 * its END line. An unterminated block (a
 * truncated paste) is redacted from BEGIN to the end of its body when the
 * body holds at least 64 characters; a BEGIN line alone is left.
 */
export function findPem(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  PEM_BEGIN.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PEM_BEGIN.exec(text)) !== null) {
    const start = m.index
    let i = PEM_BEGIN.lastIndex
    while (i < text.length && pemBody(text.charCodeAt(i))) {
      if (text.charCodeAt(i) === 45 && text.startsWith('-----', i)) break
      i++
    }
    PEM_END.lastIndex = i
    const e = PEM_END.exec(text)
    if (e) {
      out.push([start, PEM_END.lastIndex])
      PEM_BEGIN.lastIndex = PEM_END.lastIndex
    } else {
      if (i - PEM_BEGIN.lastIndex >= 64) out.push([start, i])
      PEM_BEGIN.lastIndex = Math.max(PEM_BEGIN.lastIndex, i)
    }
  }
  return out
}
