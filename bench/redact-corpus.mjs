/**
 * A generated corpus for measuring redaction: transcript-shaped snippets
 * with planted, format-valid FAKE secrets (made at run time from a seeded
 * generator, never stored) and hard look-alike negatives that must survive.
 * Used by test/transforms/redact.test.ts and bench/workloads/redact.mjs; plain
 * JavaScript so the bench runs it without a build, and outside lib/ so it
 * does not ship in the package.
 *
 * @typedef {{ kind: string, value: string }} Planted
 * @typedef {{ text: string, secrets: Planted[], negatives: Planted[] }} Snippet
 */

import { Rng as BaseRng } from '../test/redact/corpus/rng.mjs'

/** The corpus generator's PRNG, without its warm-up draws (this corpus's values predate it). */
class Rng extends BaseRng {
  constructor(seed) {
    super(seed, 0)
  }
}

const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LO = 'abcdefghijklmnopqrstuvwxyz'
const DIG = '0123456789'
const AN = UP + LO + DIG
const HEX = '0123456789abcdef'
const B64 = AN + '+/'
const B64U = AN + '_-'
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** Secret kinds: name → maker. The name is ours; the engine's kind may differ. */
export const SECRET_MAKERS = {
  aws_access_key_id: (r) => 'AKIA' + r.str(B32, 16),
  aws_sts_key_id: (r) => 'ASIA' + r.str(B32, 16),
  github_pat: (r) => 'ghp_' + r.str(AN, 36),
  github_oauth: (r) => 'gho_' + r.str(AN, 36),
  github_app: (r) => 'ghs_' + r.str(AN, 36),
  github_fine_grained: (r) => 'github_pat_' + r.str(AN, 22) + '_' + r.str(AN, 59),
  gitlab_pat: (r) => 'glpat-' + r.str(AN + '_-', 20),
  openai_proj: (r) => 'sk-proj-' + r.str(B64U, 64) + 'T3BlbkFJ' + r.str(B64U, 64),
  openai_svcacct: (r) => 'sk-svcacct-' + r.str(B64U, 74),
  anthropic: (r) => 'sk-ant-api03-' + r.str(B64U, 93) + 'AA',
  anthropic_admin: (r) => 'sk-ant-admin01-' + r.str(B64U, 93) + 'AA',
  openrouter: (r) => 'sk-or-v1-' + r.str(HEX, 64),
  xai: (r) => 'xai-' + r.str(AN, 80),
  groq: (r) => 'gsk_' + r.str(AN, 52),
  huggingface: (r) => 'hf_' + r.str(UP + LO, 34),
  replicate: (r) => 'r8_' + r.str(AN, 37),
  perplexity: (r) => 'pplx-' + r.str(AN, 48),
  deepseek: (r) => 'sk-' + r.str(HEX, 32),
  slack_bot: (r) => `xoxb-${r.str(DIG, 11)}-${r.str(DIG, 12)}-${r.str(AN, 24)}`,
  slack_user: (r) => `xoxp-${r.str(DIG, 11)}-${r.str(DIG, 11)}-${r.str(DIG, 13)}-${r.str(HEX, 32)}`,
  slack_webhook: (r) => `https://hooks.slack.com/services/T${r.str(UP + DIG, 10)}/B${r.str(UP + DIG, 10)}/${r.str(AN, 24)}`,
  discord_webhook: (r) => `https://discord.com/api/webhooks/${r.str(DIG, 18)}/${r.str(B64U, 68)}`,
  telegram_bot: (r) => `${r.str(DIG, 10)}:AA${r.str(B64U, 33)}`,
  stripe_live: (r) => 'sk_live_' + r.str(AN, 24),
  stripe_restricted: (r) => 'rk_live_' + r.str(AN, 99),
  stripe_webhook: (r) => 'whsec_' + r.str(AN, 32),
  square: (r) => 'sq0atp-' + r.str(B64U, 22),
  shopify: (r) => 'shpat_' + r.str(HEX, 32),
  google_api: (r) => 'AIza' + r.str(B64U, 35),
  google_oauth_secret: (r) => 'GOCSPX-' + r.str(B64U, 28),
  google_access_token: (r) => 'ya29.' + r.str(B64U, 120),
  azure_storage: (r) => 'AccountKey=' + r.str(B64, 86) + '==',
  npm: (r) => 'npm_' + r.str(AN, 36),
  pypi: (r) => 'pypi-AgEIcHlwaS5vcmc' + r.str(B64U, 70),
  docker: (r) => 'dckr_pat_' + r.str(B64U, 27),
  sendgrid: (r) => 'SG.' + r.str(B64U, 22) + '.' + r.str(B64U, 43),
  mailgun: (r) => 'key-' + r.str(HEX, 32),
  twilio: (r) => 'SK' + r.str(HEX, 32),
  digitalocean: (r) => 'dop_v1_' + r.str(HEX, 64),
  databricks: (r) => 'dapi' + r.str(HEX, 32),
  linear: (r) => 'lin_api_' + r.str(AN, 40),
  newrelic: (r) => 'NRAK-' + r.str(UP + DIG, 27),
  grafana: (r) => 'glsa_' + r.str(AN, 32) + '_' + r.str(HEX, 8),
  sentry: (r) => 'sntryu_' + r.str(HEX, 64),
  vault: (r) => 'hvs.' + r.str(B64U, 94),
  pulumi: (r) => 'pul-' + r.str(HEX, 40),
  doppler: (r) => 'dp.pt.' + r.str(AN, 43),
  figma: (r) => 'figd_' + r.str(B64U, 40),
  age: (r) => 'AGE-SECRET-KEY-1' + r.str('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58),
  jwt: (r) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${r.str(B64U, r.int(40, 120))}.${r.str(B64U, 43)}`,
  postgres_url: (r) => `postgres://app:${r.str(AN, 20)}@db.internal:5432/app`,
  mongodb_url: (r) => `mongodb+srv://admin:${r.str(AN, 16)}@cluster0.${r.str(LO, 5)}.mongodb.net/prod`,
  redis_url: (r) => `redis://default:${r.str(AN, 24)}@cache.internal:6379`,
  basic_auth_url: (r) => `https://deploy:${r.str(AN, 18)}@git.internal.example/acme/app.git`,
  private_key_rsa: (r) => `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: r.int(6, 20) }, () => r.str(B64, 64)).join('\n')}\n-----END RSA PRIVATE KEY-----`,
  private_key_openssh: (r) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${Array.from({ length: r.int(5, 12) }, () => r.str(B64, 70)).join('\n')}\n-----END OPENSSH PRIVATE KEY-----`,
  generic_password: (r) => r.str(AN, 6) + r.pick(['!', '#', '%', '^']) + r.str(AN, 10),
  generic_api_key: (r) => r.str(HEX + UP, 32),
  bearer_opaque: (r) => r.str(AN, 40),
}

/** How a secret of each kind is written into text, by context. */
const ASSIGN_NAME = {
  generic_password: 'DB_PASSWORD',
  generic_api_key: 'PAYMENTS_API_KEY',
}

function negativeMakers(r) {
  const sha = r.str(HEX, 40)
  return [
    { kind: 'git-sha', value: sha },
    { kind: 'git-sha-short', value: sha.slice(0, 12) },
    { kind: 'uuid', value: `${r.str(HEX, 8)}-${r.str(HEX, 4)}-4${r.str(HEX, 3)}-a${r.str(HEX, 3)}-${r.str(HEX, 12)}` },
    { kind: 'toolu-id', value: 'toolu_01' + r.str(AN, 22) },
    { kind: 'call-id', value: 'call_' + r.str(AN, 24) },
    { kind: 'msg-id', value: 'msg_01' + r.str(AN, 22) },
    { kind: 'opencode-id', value: 'prt_' + r.str(HEX, 12) + r.str(AN, 14) },
    { kind: 'integrity', value: 'sha512-' + r.str(B64, 86) + '==' },
    { kind: 'sha256-digest', value: 'sha256:' + r.str(HEX, 64) },
    { kind: 'image-base64', value: 'iVBORw0KGgoAAAANSUhEUgAA' + r.str(B64, 400) },
    { kind: 'public-key', value: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' + r.str(B64, 43) + ' dev@laptop' },
    { kind: 'certificate', value: `-----BEGIN CERTIFICATE-----\nMIID${r.str(B64, 60)}\n${r.str(B64, 64)}\n-----END CERTIFICATE-----` },
    { kind: 'pem-public-key', value: `-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${r.str(B64, 20)}\n-----END PUBLIC KEY-----` },
    { kind: 'aws-example', value: 'AKIAIOSFODNN7EXAMPLE' },
    { kind: 'aws-example-secret', value: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    { kind: 'placeholder', value: '<your-api-key>' },
    { kind: 'placeholder-sk', value: 'sk-...' },
    { kind: 'placeholder-x', value: 'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' },
    { kind: 'env-ref', value: '${OPENAI_API_KEY}' },
    { kind: 'md5', value: r.str(HEX, 32) },
    { kind: 'request-id', value: 'req_' + r.str(AN, 24) },
    { kind: 'encrypted-content', value: 'gAAAAABo' + r.str(B64U, 200) },
    { kind: 'thinking-signature', value: 'EqQBCkgIBxABGAIiQ' + r.str(B64, 160) },
    { kind: 'npm-version-range', value: '^' + r.int(1, 20) + '.' + r.int(0, 30) + '.' + r.int(0, 9) },
    { kind: 'max-tokens', value: String(r.int(1000, 64000)) },
  ]
}

function negativeContext(r, n) {
  switch (n.kind) {
    case 'git-sha':
      return r.pick([`commit ${n.value}\nAuthor: Dev <dev@example.com>`, `"commit":"${n.value}"`, `HEAD is now at ${n.value} fix tests`])
    case 'git-sha-short':
      return `[main ${n.value}] Fix rounding`
    case 'uuid':
      return r.pick([`"sessionId":"${n.value}"`, `"parentUuid":"${n.value}","uuid":"${n.value}"`, `session ${n.value} resumed`])
    case 'toolu-id':
      return `{"type":"tool_use","id":"${n.value}","name":"Bash"}`
    case 'call-id':
      return `{"type":"function_call_output","call_id":"${n.value}"}`
    case 'msg-id':
      return `"message":{"id":"${n.value}","model":"claude"}`
    case 'integrity':
      return `"integrity": "${n.value}",`
    case 'sha256-digest':
      return r.pick([`Digest: ${n.value}`, `image: node@${n.value}`])
    case 'image-base64':
      return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${n.value}"}}`
    case 'max-tokens':
      return `"max_tokens": ${n.value}, "input_tokens": ${n.value}`
    case 'npm-version-range':
      return `"typescript": "${n.value}"`
    case 'aws-example':
      return `aws_access_key_id = ${n.value}`
    case 'aws-example-secret':
      return `aws_secret_access_key = ${n.value}`
    case 'placeholder':
      return `export OPENAI_API_KEY=${n.value}`
    case 'placeholder-sk':
      return `set ANTHROPIC key to ${n.value} in settings`
    case 'placeholder-x':
      return `GITHUB_TOKEN=${n.value}`
    case 'env-ref':
      return `api_key: ${n.value}`
    case 'md5':
      return `${n.value}  dist/app.js`
    case 'request-id':
      return `"request_id":"${n.value}"`
    case 'encrypted-content':
      return `"encrypted_content":"${n.value}"`
    case 'thinking-signature':
      return `"signature":"${n.value}"`
    default:
      return n.value
  }
}

function secretContext(r, kind, v) {
  if (kind === 'azure_storage') return `DefaultEndpointsProtocol=https;AccountName=acmeprod;${v};EndpointSuffix=core.windows.net`
  if (kind === 'generic_password') return r.pick([`${ASSIGN_NAME[kind]}=${v}`, `"password": "${v}"`, `password: ${v}`])
  if (kind === 'generic_api_key') return r.pick([`${ASSIGN_NAME[kind]}=${v}`, `"api_key": "${v}"`, `client_secret = "${v}"`])
  if (kind === 'bearer_opaque') return `curl -H "Authorization: Bearer ${v}" https://api.internal/v1/me`
  if (kind.endsWith('_url') || kind.startsWith('private_key') || kind.endsWith('webhook')) return r.pick([v, `url = "${v}"`, `DATABASE=${v}`])
  return r.pick([
    `${kind.toUpperCase()}=${v}`,
    `export TOKEN=${v}`,
    `use this key for the test env: ${v}`,
    `"credential": "${v}"`,
    `curl -H "X-Api-Key: ${v}" https://api.example.com`,
    `  ${v}`,
    `(${v})`,
  ])
}

const FILLER = [
  'Let me check the test configuration first.',
  'The failing assertion is in src/money.test.ts line 42: expected 10.05, received 10.04.',
  '$ npm test\n> demo-app@1.0.0 test\n> vitest run\n\n FAIL  src/money.test.ts > rounds totals\nAssertionError: expected 1004 to be 1005',
  'export function toCents(x: number): number {\n  return Math.floor(x * 100)\n}',
  'total 48\ndrwxr-xr-x  5 dev dev 4096 Nov 29 10:01 .\n-rw-r--r--  1 dev dev  612 Nov 29 10:01 package.json',
  'const key = cache.get(id) ?? computeKey(input); // keys are memoised per token window',
  'I updated the token refresh logic so the auth middleware retries once before failing.',
  '{"name":"demo-app","version":"1.0.0","scripts":{"test":"vitest run","build":"tsc -p ."}}',
  'The password field is validated on the client; the secret is never logged.',
]

/** One snippet: filler around one planted secret (or none) and a few negatives. */
function snippet(r, kinds, i, escaped) {
  const secrets = []
  const parts = [r.pick(FILLER)]
  const kind = kinds[i % kinds.length]
  const value = SECRET_MAKERS[kind](r)
  // The value to check: for AccountKey= the key itself.
  const planted = kind === 'azure_storage' ? value.slice('AccountKey='.length) : kind.endsWith('_url') ? /:\/\/[^:]+:([^@]+)@/.exec(value)[1] : value
  secrets.push({ kind, value: planted })
  parts.push(secretContext(r, kind, value))
  const negs = negativeMakers(r)
  const negatives = []
  for (let k = 0; k < 3; k++) {
    const n = negs[(i * 3 + k) % negs.length]
    negatives.push(n)
    parts.push(negativeContext(r, n))
  }
  parts.push(r.pick(FILLER))
  let text = parts.join(r.pick(['\n', '\n\n', ' ']))
  if (escaped) {
    // As inside native.raw: a JSON line holding the text as an escaped string.
    text = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01${r.str(AN, 22)}","content":${JSON.stringify(text)}}]}}`
    return {
      text,
      secrets: secrets.map((s) => ({ kind: s.kind, value: JSON.stringify(s.value).slice(1, -1) })),
      negatives: negatives.map((n) => ({ kind: n.kind, value: JSON.stringify(n.value).slice(1, -1) })),
    }
  }
  return { text, secrets, negatives }
}

/** `count` snippets, cycling through every secret kind; every 3rd one JSON-escaped. */
export function corpus(count, seed = 7) {
  const r = new Rng(seed)
  const kinds = Object.keys(SECRET_MAKERS)
  const out = []
  for (let i = 0; i < count; i++) out.push(snippet(r, kinds, i, i % 3 === 2))
  return out
}

/** A secret is caught when no 8-character run of it survives in the output. */
export function survives(secret, output, background = '') {
  for (let i = 0; i + 8 <= secret.length; i++) {
    const run = secret.slice(i, i + 8)
    // A run that also occurs in the text around the secret (`-----BEGIN` of a certificate) proves nothing.
    if (output.includes(run) && !background.includes(run)) return true
  }
  return false
}

export function score(snips, outputs) {
  const s = { secrets: 0, caught: 0, negatives: 0, kept: 0, missedKinds: {}, touchedKinds: {} }
  snips.forEach((sn, i) => {
    const out = outputs[i]
    for (const p of sn.secrets) {
      s.secrets++
      if (!survives(p.value, out, sn.text.split(p.value).join(''))) s.caught++
      else s.missedKinds[p.kind] = (s.missedKinds[p.kind] ?? 0) + 1
    }
    for (const n of sn.negatives) {
      s.negatives++
      if (out.includes(n.value)) s.kept++
      else s.touchedKinds[n.kind] = (s.touchedKinds[n.kind] ?? 0) + 1
    }
  })
  return s
}

export const SECRET_KIND_COUNT = Object.keys(SECRET_MAKERS).length
