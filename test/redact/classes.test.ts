// Each detector class of issue 19, positive cases and look-alikes, at JSON
// escaping depths 0–3 (plain; a JSONL string; a JSON string inside one; once
// more). Values are random from a seeded PRNG and assembled at run time: no
// format-valid secret sits in the repository.
import t from 'tap'
import { Redactor } from '../../lib/redact/engine.js'
import { Rng, AN, B64, B64U, HEX, b64, pem, jwt, password } from './corpus/rng.mjs'
import { escapeDepth } from './corpus/index.mjs'

const r = new Rng(1919)
const pw = password(r).replace(/[@:]/g, '_')
const tok40 = r.str(AN, 40)
const hex32 = r.str(HEX, 32)
const hex40 = r.str(HEX, 40)

/** [case, text, the secret that must go]. */
const POSITIVE: Array<[string, string, string]> = [
  ['kubeconfig client-key-data', `users:\n- name: ci\n  user:\n    client-key-data: ${b64(pem(r, 'RSA PRIVATE KEY', 6))}`, b64(pem(new Rng(5), 'RSA PRIVATE KEY', 6)).slice(0, 0) || 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ'],
  ['kubeconfig client-certificate-data holding a key', `    client-certificate-data: ${b64(pem(r, 'EC PRIVATE KEY', 3))}`, 'LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t'],
  ['kubeconfig token', `users:\n- name: ci\n  user:\n    token: ${tok40}`, tok40],
  ['docker config.json auths', `{"auths":{"ghcr.io":{"auth":"${b64('deploy:' + pw)}"}}}`, b64('deploy:' + pw)],
  ['.netrc', `machine git.acme.internal\n  login deploy\n  password ${pw}\n`, pw],
  ['.pgpass', `$ cat ~/.pgpass\ndb.internal:5432:app:app:${pw}\n`, pw],
  ['.npmrc _authToken', `//npm.acme.io/:_authToken=${tok40}\n`, tok40],
  ['.npmrc _auth', `_auth=${b64('ci:' + pw)}\n`, b64('ci:' + pw)],
  ['.pypirc', `[internal]\nrepository = https://pypi.acme.io/\nusername = deploy\npassword = ${pw}\n`, pw],
  ['Sentry DSN', `SENTRY_DSN=https://${hex32}@o450123.ingest.sentry.io/5512345`, hex32],
  ['redis URL', `REDIS_URL=rediss://:${tok40}@cache.acme.io:6380`, tok40],
  ['postgres URL', `DATABASE_URL=postgres://app:${pw}@db.internal:5432/app`, pw],
  ['mongodb+srv URL', `mongodb+srv://admin:${tok40}@cluster0.ab1cd.mongodb.net/prod`, tok40],
  ['amqp URL', `amqps://svc:${pw}@mq.acme.io:5671/%2F`, pw],
  ['JDBC URL', `jdbc:postgresql://db:5432/app?user=app&password=${pw}&ssl=true`, pw],
  ['URL query credential', `curl "https://api.acme.io/v1/x?q=1&api_key=${tok40}&units=metric"`, tok40],
  ['AWS session token', `AWS_SESSION_TOKEN=IQoJb3JpZ2luX2Vj${r.str(B64, 300)}`, 'IQoJb3JpZ2luX2Vj'],
  ['AWS secret key, STS JSON', `{"Credentials":{"AccessKeyId":"ASIA${r.str('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}","SecretAccessKey":"${r.str(B64, 40)}"}}`, ''],
  ['Datadog application key', `DD_APP_KEY=${hex40}`, hex40],
  ['Datadog header', `curl -H "DD-APPLICATION-KEY: ${hex40}" https://api.datadoghq.com/api/v1/validate`, hex40],
  ['Twilio auth token', `TWILIO_AUTH_TOKEN=${hex32}`, hex32],
  ['Authorization: Basic', `> Authorization: Basic ${b64('admin:' + pw)}`, b64('admin:' + pw)],
  ['Discord bot token', `DISCORD=${b64('1' + r.str('0123456789', 18)).replace(/=+$/, '')}.${r.str(B64U, 6)}.${r.str(B64U, 38)}`, ''],
  ['Cloudflare API token', `export CLOUDFLARE_API_TOKEN="${r.str(AN + '_-', 40)}"`, ''],
  ['Supabase service-role JWT', `SUPABASE_KEY=${jwt(r, { iss: 'supabase', role: 'service_role' })}`, 'eyJpc3MiOiJzdXBhYmFzZSIs'],
  ['*_SECRET in env', `JWT_SECRET=${tok40}`, tok40],
  ['*_PASSWORD in YAML', `database:\n  admin_password: "${pw}"`, pw],
  ['*_TOKEN in JSON', `{"refreshToken":"${tok40}","ok":true}`, tok40],
  ['*_API_KEY in TOML', `[svc]\npayments_api_key = "${tok40}"`, tok40],
  ['INI', `[default]\nsecret_key = ${tok40}`, tok40],
  ['Terraform', `provider "acme" {\n  api_token = "${tok40}"\n}`, tok40],
  ['JS code', `const apiKey = "${tok40}";`, tok40],
  ['Go code', `clientSecret := "${tok40}"`, tok40],
  ['shell export, single quotes', `export SERVICE_PASSWORD='${pw}'`, pw],
  ['Kubernetes env name/value', `env:\n- name: STRIPE_SECRET\n  value: ${tok40}`, tok40],
  ['CLI flag', `$ acme login --api-token ${tok40} --region eu`, tok40],
]
// Cases whose secret is the value after `=`/`:` when not given explicitly.
for (const c of POSITIVE) if (c[2] === '') c[2] = /[=:]\s*"?([^"\s]+)"?\s*\}*$/.exec(c[1])![1]!.replace(/"\}\}$/, '')

const LOOKALIKE: Array<[string, string]> = [
  ['UUID', `"sessionId":"6aa5ab65-b9aa-40b5-ac69-2a4b8690a2b5"`],
  ['git SHA', `commit ${hex40}`],
  ['npm integrity', `"integrity": "sha512-${r.str(B64, 86)}=="`],
  ['go.sum', `github.com/pkg/errors v0.9.1 h1:${r.str(B64, 43)}=`],
  ['Cargo.lock checksum', `checksum = "${r.str(HEX, 64)}"`],
  ['placeholder', 'OPENAI_API_KEY=your-api-key-here'],
  ['xxxx', 'GITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxx'],
  ['${VAR}', 'password: ${DB_PASSWORD}'],
  ['<redacted>', '"client_secret": "<redacted>"'],
  ['env reference', 'const apiKey = process.env.STRIPE_API_KEY'],
  ['public key', `"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${r.str(B64, 43)}"`],
  ['kube CA data', `certificate-authority-data: ${b64(pem(r, 'CERTIFICATE', 6))}`],
  ['AWS doc example', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['base64 image', `"data":"iVBORw0KGgoAAAANSUhEUgAA${r.str(B64, 300)}"`],
  ['token counts', '"max_tokens": 32000, "input_tokens": 1234'],
  ['token type', '"token_type": "Bearer", "expires_in": 3600'],
  ['key id', `"keyId": "${r.str('0123456789', 12)}"`],
  ['password policy', 'password_min_length: 12'],
  ['URL without credentials', 'DATABASE_URL=postgres://localhost:5432/app'],
  ['URL with placeholder password', 'postgres://user:password@localhost:5432/mydb'],
  ['minified code', 'function(e,t){var n=e.token||t.apiKey,r=n.split(".");return r}'],
  ['identifier value', 'const token = getTokenFromHeader(req)'],
  ['Mapbox public token', `mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOiJ${r.str(B64U, 20)}.${r.str(B64U, 22)}'`],
  ['prose', 'The token bucket refills every second; the secret is never logged.'],
]

t.test('every class is caught at escaping depths 0–3', async (t) => {
  for (const [name, text, secret] of POSITIVE) {
    for (let d = 0; d <= 3; d++) {
      const red = new Redactor()
      const out = red.redact(escapeDepth(text, d))
      t.notOk(out.includes(escapeDepth(secret, d)), `${name} @${d}: ${out.length > 300 ? out.slice(0, 300) + '…' : out}`)
      t.match(out, /\[REDACTED:[a-z0-9\-]+:1\]/, `${name} @${d} labelled`)
    }
  }
})

t.test('look-alikes are left alone at escaping depths 0–3', async (t) => {
  for (const [name, text] of LOOKALIKE) {
    for (let d = 0; d <= 3; d++) {
      const s = escapeDepth(text, d)
      t.equal(new Redactor().redact(s), s, `${name} @${d}`)
    }
  }
})

t.test('escaped text stays valid JSON after redaction', async (t) => {
  const red = new Redactor()
  for (const [name, text] of POSITIVE) {
    const line = JSON.stringify({ content: JSON.stringify({ arguments: text }) })
    const out = red.redact(line)
    t.doesNotThrow(() => JSON.parse(JSON.parse(out).content), name)
  }
})
