/**
 * The issue-48 contexts of the evaluation corpus: credentials as people
 * write them in transcripts where no variable name gives them away —
 * tokens in URL paths (Telegram's `api.telegram.org/bot<token>/…`),
 * `curl -u`/`--user` and other command-line `user:secret` pairs, Basic
 * headers built by hand (Twilio `AC…:<auth token>`), secrets in prose (a cue
 * in the words before the value, in several languages), provider tokens
 * standing in code or JSON with only the provider named nearby (Cloudflare,
 * Datadog, Supabase, Heroku), and generic assignments under names that are
 * not on anyone's list. Look-alikes are written in the same contexts
 * (placeholders, references, documented examples, hashes and ids next to
 * the same cue words).
 *
 * Written from the providers' documented formats and from how people type
 * these things, never from lib/redact: this module imports nothing but the
 * corpus PRNG. Values are random from the seeded PRNG (no real credential).
 * None of these formats carries a checksum, so none is computed.
 *
 * Splits: WILD_HELD_OUT_SEED is read only by `npm run bench`; rule work and
 * test/redact/wild.test.ts use WILD_DEV_SEEDS.
 */
import { Rng, AN, B64, B64U, DIG, HEX, LO, UP, b64, uuid } from './rng.mjs'

export const WILD_HELD_OUT_SEED = 0x48a11d0e
export const WILD_DEV_SEEDS = [4801, 4802, 4803]

const b64url = (s) => Buffer.from(s, 'utf8').toString('base64url')

// ---- values, from the providers' documented formats ----

/** Telegram Bot API token: `<bot id>:<35 characters>` (core.telegram.org/bots/api#authorizing-your-bot). */
const telegramToken = (r) => `${r.str('123456789', 1)}${r.str(DIG, r.int(7, 9))}:${r.chance(0.9) ? 'AA' + r.str(B64U, 33) : r.str(UP, 1) + r.str(B64U, 34)}`
/** Twilio Account SID `AC` + 32 hex; its auth token, 32 hex. */
const twilioSid = (r) => 'AC' + r.str(HEX, 32)
const hex32 = (r) => r.str(HEX, 32)
/** Cloudflare API token: 40 characters of [A-Za-z0-9_-]. */
const cfToken = (r) => {
  for (;;) {
    const v = r.str(AN + '_-', 40)
    if (/[A-Z]/.test(v) && /[a-z]/.test(v) && /[0-9]/.test(v)) return v
  }
}
/** Datadog: API key 32 hex, application key 40 hex. */
const ddApi = (r) => r.str(HEX, 32)
const ddApp = (r) => r.str(HEX, 40)
/** Supabase service_role key: an HS256 JWT whose payload says role service_role. */
const supabaseServiceRole = (r) => {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(JSON.stringify({ iss: 'supabase', ref: r.str(LO, 20), role: 'service_role', iat: 1700000000 + r.int(0, 9e7), exp: 2000000000 + r.int(0, 9e7) }))
  return `${head}.${body}.${r.str(B64U, 43)}`
}
/** Heroku API key: a UUID (`heroku auth:token`, older) or `HRKU-AA` + 58 (newer). */
const herokuKey = (r) => (r.chance(0.6) ? uuid(r) : 'HRKU-AA' + r.str(AN + '_-', 58))
/** AWS secret access key: 40 base64 characters. */
const awsSecret = (r) => r.str(B64, 40)
/** Passwords as people choose them: words and digits with a symbol, or generated ones. */
const humanPassword = (r) =>
  r.pick([
    () => r.pick(['Summer', 'Winter', 'Dragon', 'Monkey', 'Sunshine', 'Welcome', 'Passw0rd', 'Falcon', 'Orange', 'Tiger']) + r.str(DIG, r.int(2, 4)) + r.pick(['!', '#', '$', '@', '?', '*']),
    () => r.str(AN, r.int(5, 9)) + r.pick(['!', '#', '%', '^', '&', '*', '-', '_', '+', '=', '.', '~', '@']) + r.str(AN, r.int(4, 10)),
    () => r.str(AN + '!#%^*_-+=.~', r.int(12, 24)),
    () => r.pick(['Tr0ub4dor', 'c0rr3ct', 'Gr33nT3a', 'Bl4ckC4t', 'M00nl1ght', 'Sh4d0w']) + r.pick(['&', '!', '#', '$']) + r.str(DIG, r.int(1, 3)),
  ])()
const genericSecret = (r) => r.pick([() => r.str(HEX, r.pick([32, 48, 64])), () => r.str(B64, r.pick([32, 44])), () => r.str(AN, r.int(24, 48)), () => b64(r.str(AN, 32))])()
const genericApiKey = (r) => r.pick([() => r.str(AN, r.int(24, 40)), () => r.str(HEX, 32), () => r.str(UP + DIG, 32), () => r.str(LO + DIG, r.int(20, 40)), () => uuid(r).replace(/-/g, '')])()
const user = (r) => r.pick(['admin', 'deploy', 'ci', 'api', 'bob', 'svc-orders', 'jenkins', 'root', 'ops@acme.io', 'elastic', 'grafana'])
const host = (r) => r.pick(['api.acme.io', 'registry.acme.internal', 'es.acme.io:9200', 'jenkins.ci.local:8080', '10.0.3.17:8443', 'nexus.corp.example'])

// ---- the classes: each kind gives a value and a rendering by context ----

/** Each maker returns { text, secret, context } for one planted credential. */
export const WILD = {
  // Tokens inside URL paths after a known API host.
  telegram_url: {
    cls: 'url-path',
    make: (r) => {
      const t = telegramToken(r)
      const m = r.pick(['sendMessage', 'getUpdates', 'getMe', 'setWebhook', 'sendDocument', 'deleteWebhook'])
      const chat = '-100' + r.str(DIG, 10)
      const [context, text] = r.pick([
        ['curl', `$ curl -s "https://api.telegram.org/bot${t}/${m}" -d chat_id=${chat} -d text="deploy finished"`],
        ['curl', `curl -X POST https://api.telegram.org/bot${t}/${m} -H 'Content-Type: application/json' -d '{"chat_id": "${chat}", "text": "hi"}'`],
        ['code-py', `resp = requests.post(f"https://api.telegram.org/bot${t}/${m}", json={"chat_id": CHAT_ID, "text": msg})`],
        ['code-js', `await fetch(\`https://api.telegram.org/bot${t}/${m}?chat_id=${chat}\`)`],
        ['log', `2026-11-02 10:00:0${r.int(0, 9)},114 ERROR httpx: HTTP Request: POST https://api.telegram.org/bot${t}/${m} "HTTP/1.1 409 Conflict"`],
        ['json', JSON.stringify({ webhook: `https://api.telegram.org/bot${t}/${m}`, retries: 3 })],
        ['prose', `I opened https://api.telegram.org/bot${t}/getMe in the browser and it returns ok: true, so the bot is fine.`],
        ['markdown', `Test it with:\n\n\`\`\`sh\nwget -qO- https://api.telegram.org/bot${t}/${m}\n\`\`\``],
        ['url-bare', `api.telegram.org/bot${t}/${m}`],
        ['url-file', `https://api.telegram.org/file/bot${t}/documents/file_${r.int(1, 99)}.pdf`],
      ])
      return { text, secret: t.split(':')[1], context }
    },
  },
  // Twilio: account SID and auth token on the command line, or a Basic header built by hand.
  twilio_basic: {
    cls: 'user-secret',
    make: (r) => {
      const sid = twilioSid(r)
      const tok = hex32(r)
      const url = `https://api.twilio.com/2010-04-01/Accounts/${sid}/Messages.json`
      const [context, text] = r.pick([
        ['curl', `$ curl -X POST ${url} --data-urlencode "To=+15558675310" --data-urlencode "Body=hi" -u ${sid}:${tok}`],
        ['curl', `curl '${url}' -X POST --user "${sid}:${tok}" --data-urlencode 'From=+15017122661'`],
        ['curl', `curl -G https://api.twilio.com/2010-04-01/Accounts/${sid}/Calls.json -u '${sid}:${tok}'`],
        ['code-js', `const auth = 'Basic ' + Buffer.from('${sid}:${tok}').toString('base64')`],
        ['code-js', `headers: { Authorization: \`Basic \${btoa("${sid}:${tok}")}\` }`],
        ['code-py', `client = Client("${sid}", "${tok}")`],
        ['code-py', `r = requests.get(url, auth=("${sid}", "${tok}"))`],
        ['shell', `$ echo -n '${sid}:${tok}' | base64`],
        ['code-go', `req.SetBasicAuth("${sid}", "${tok}")`],
        ['prose', `The account SID is ${sid} and the auth token ${tok}; both are from the console.`],
      ])
      return { text, secret: tok, context }
    },
  },
  // Other user:secret pairs on the command line.
  cli_userpass: {
    cls: 'user-secret',
    make: (r) => {
      const pw = r.chance(0.5) ? humanPassword(r) : genericApiKey(r)
      const u = user(r)
      const h = host(r)
      const [context, text] = r.pick([
        ['curl', `$ curl -u ${u}:${pw} https://${h}/api/v1/status`],
        ['curl', `curl -sS --user "${u}:${pw}" -X GET "https://${h}/_cluster/health?pretty"`],
        ['curl', `curl -k -u '${u}:${pw}' https://${h}/job/build/api/json`],
        ['curl', `curl --user=${u}:${pw} https://${h}/`],
        ['httpie', `$ http -a ${u}:${pw} GET https://${h}/v1/me`],
        ['mysql', `$ mysql -h db.internal -u root -p${pw} orders`],
        ['shell', `$ sshpass -p '${pw}' ssh ${u}@10.0.3.17`],
        ['shell', `$ redis-cli -h cache.internal -a '${pw}' ping`],
        ['code-js', `const auth = "Basic " + Buffer.from("${u}:${pw}").toString("base64");`],
        ['code-py', `session.auth = ("${u}", "${pw}")`],
        ['code-py', `headers = {"Authorization": "Basic " + base64.b64encode(b"${u}:${pw}").decode()}`],
        ['shell', `$ printf '%s' '${u}:${pw}' | base64`],
        ['wget', `$ wget --user=${u} --password='${pw}' https://${h}/artifact.tgz`],
      ])
      return { text, secret: pw, context }
    },
  },
  // Secrets in prose: the cue is in the words before the value.
  aws_secret_prose: { cls: 'prose', make: (r) => prose(r, awsSecret(r), ['AWS secret access key', 'aws secret key', 'secret access key', 'AWS secret']) },
  cloudflare_prose: { cls: 'prose', make: (r) => prose(r, cfToken(r), ['Cloudflare token', 'Cloudflare API token', 'CF token', 'cloudflare api key']) },
  supabase_prose: { cls: 'prose', make: (r) => prose(r, supabaseServiceRole(r), ['service role key', 'Supabase service_role key', 'supabase secret key']) },
  password_prose: { cls: 'prose', make: (r) => prose(r, humanPassword(r), ['password', 'DB password', 'admin password', 'root password', 'passphrase']) },
  token_prose: { cls: 'prose', make: (r) => prose(r, genericApiKey(r), ['API key', 'api token', 'access token', 'secret', 'Datadog API key', 'Heroku API key']) },
  // Provider tokens in code or JSON with no telling key, the provider named nearby.
  cloudflare_bare: { cls: 'bare-provider', make: (r) => bare(r, 'cloudflare', cfToken(r)) },
  datadog_api_bare: { cls: 'bare-provider', make: (r) => bare(r, 'datadog', ddApi(r)) },
  datadog_app_bare: { cls: 'bare-provider', make: (r) => bare(r, 'datadog-app', ddApp(r)) },
  supabase_bare: { cls: 'bare-provider', make: (r) => bare(r, 'supabase', supabaseServiceRole(r)) },
  heroku_bare: { cls: 'bare-provider', make: (r) => bare(r, 'heroku', herokuKey(r)) },
  // Generic assignments under names not on a list.
  generic_secret_assign: { cls: 'generic', make: (r) => assign(r, genericSecret(r), ['webhookSigningSecret', 'session_secret', 'JWT_SECRET', 'cookieSecret', 'hmac_secret', 'appSecret', 'signing_secret', 'encryptionSecret', 'client_secret', 'SHARED_SECRET', 'oauthClientSecret', 'secretKeyBase', 'flask_secret', 'djangoSecret']) },
  password_assign: { cls: 'generic', make: (r) => assign(r, humanPassword(r), ['password', 'db_pass', 'smtpPassword', 'mysql_root_password', 'adminPwd', 'redisPass', 'PGPASSWORD', 'keystorePassword', 'ldap_bind_password', 'passwd', 'userPassword', 'rabbitmq_pass', 'sftpPassword', 'MASTER_PASSWORD']) },
  api_key_assign: { cls: 'generic', make: (r) => assign(r, genericApiKey(r), ['apiKey', 'api_key', 'x_api_key', 'mapsApiKey', 'upstreamApiKey', 'ingestKey', 'licenseKey', 'serviceKey', 'writeKey', 'accessKey', 'partnerApiKey', 'API_KEY', 'apikey', 'subscriptionKey']) },
}

/** Natural-language cues before a value: "my X is", "the X: ", "here is the X", in several languages. */
function prose(r, v, names) {
  const n = r.pick(names)
  const q = r.pick(['', '', '`', '"'])
  const w = `${q}${v}${q}`
  const [context, text] = r.pick([
    ['prose-en', `my ${n} is ${w}, can you add it to the deploy script?`],
    ['prose-en', `The ${n}: ${w}`],
    ['prose-en', `here is the ${n} ${w} — put it in the secrets manager`],
    ['prose-en', `Use this ${n} for staging: ${w}. Do not commit it.`],
    ['prose-en', `ok I rotated it, new ${n} = ${w}`],
    ['prose-en', `I've set the ${n} to ${w} in the dashboard.`],
    ['prose-en', `${n[0].toUpperCase() + n.slice(1)} is ${w}\nPlease verify it works.`],
    ['prose-de', `mein ${n} ist ${w}, bitte in die .env eintragen`],
    ['prose-fr', `voici le ${n} : ${w}`],
    ['prose-es', `mi ${n} es ${w}, úsalo para las pruebas`],
    ['prose-pt', `a minha ${n} é ${w}`],
    ['prose-it', `la ${n} è ${w}`],
    ['prose-md', `- **${n}**: ${w}\n- region: eu-west-1`],
  ])
  return { text, secret: v, context }
}

/** A provider's token with the provider named nearby, but no key that says what it is. */
function bare(r, provider, v) {
  const [context, text] = {
    cloudflare: () => r.pick([
      ['code-js', `const cf = new Cloudflare("${v}")`],
      ['code-py', `cf = CloudFlare.CloudFlare("${v}")`],
      ['json', JSON.stringify({ cloudflare: v, zone: 'acme.io' })],
      ['json', JSON.stringify({ provider: 'cloudflare', value: v })],
      ['yaml', `dns:\n  provider: cloudflare\n  cloudflare: ${v}`],
      ['code-go', `api, err := cloudflare.NewWithAPIToken("${v}")`],
      ['shell', `$ wrangler secret put CF ${v} # cloudflare`],
    ]),
    datadog: () => r.pick([
      ['code-py', `initialize(**{"statsd_host": "127.0.0.1"}) ; dd = datadog.ThreadStats("${v}")`],
      ['code-js', `const dd = new Datadog("${v}")`],
      ['json', JSON.stringify({ datadog: { api: v, site: 'datadoghq.eu' } })],
      ['json', JSON.stringify({ provider: 'datadog', value: v })],
      ['yaml', `datadog:\n  site: datadoghq.com\n  api: ${v}`],
      ['shell', `$ datadog-agent config set api ${v}`],
    ]),
    'datadog-app': () => r.pick([
      ['code-py', `api = DatadogClient("${r.str(HEX, 32)}", "${v}")  # datadog api, app`],
      ['json', JSON.stringify({ datadog: { app: v, site: 'datadoghq.eu' } })],
      ['yaml', `datadog:\n  site: datadoghq.com\n  app: ${v}`],
      ['code-js', `const datadog = { app: "${v}" }`],
    ]),
    supabase: () => r.pick([
      ['code-js', `const supabase = createClient('https://${r.str(LO, 20)}.supabase.co', '${v}')`],
      ['code-py', `supabase = create_client("https://${r.str(LO, 20)}.supabase.co", "${v}")`],
      ['json', JSON.stringify({ supabase: { url: `https://${r.str(LO, 20)}.supabase.co`, service: v } })],
      ['yaml', `supabase:\n  url: https://${r.str(LO, 20)}.supabase.co\n  service: ${v}`],
    ]),
    heroku: () => r.pick([
      ['code-py', `heroku = heroku3.from_key("${v}")`],
      ['code-rb', `heroku = PlatformAPI.connect_oauth('${v}')`],
      ['json', JSON.stringify({ heroku: v, app: 'acme-api' })],
      ['yaml', `deploy:\n  provider: heroku\n  heroku: ${v}`],
      ['shell', `$ heroku auth:token\n${v}`],
    ]),
  }[provider]()
  return { text, secret: v, context }
}

/** A generic assignment in JSON and code, under an unlisted name. */
function assign(r, v, names) {
  const n = r.pick(names)
  const snake = n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
  const [context, text] = r.pick([
    ['json', JSON.stringify({ [n]: v, port: 8080 })],
    ['json', JSON.stringify({ service: { name: 'orders', [n]: v } }, null, 2)],
    ['code-js', `const ${n.replace(/^[A-Z_]+$/, (x) => x.toLowerCase())} = "${v}";`],
    ['code-js', `module.exports = { ${n}: '${v}', retries: 3 }`],
    ['code-py', `${snake} = "${v}"`],
    ['code-py', `settings = {"${n}": "${v}"}`],
    ['code-go', `cfg := Config{\n\t${n[0].toUpperCase() + n.slice(1)}: "${v}",\n}`],
    ['code-php', `'${snake}' => '${v}',`],
    ['code-rb', `config.${snake} = '${v}'`],
    ['code-java', `props.setProperty("${n}", "${v}");`],
    ['yaml', `${snake}: "${v}"`],
    ['env', `${snake.toUpperCase()}=${v}`],
  ])
  return { text, secret: v, context }
}

/** Look-alikes in the same contexts: what must survive. */
export const WILD_LOOKALIKES = {
  'telegram-doc-example': (r) => { const v = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11'; return { value: v, text: `curl https://api.telegram.org/bot${v}/getMe` } },
  'telegram-placeholder': (r) => { const v = r.pick(['<TOKEN>', '${BOT_TOKEN}', '{token}', '$TELEGRAM_TOKEN', '<your-bot-token>']); return { value: v, text: `curl "https://api.telegram.org/bot${v}/sendMessage"` } },
  'twilio-placeholder': (r) => { const v = r.pick(['ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX:your_auth_token', '$TWILIO_ACCOUNT_SID:$TWILIO_AUTH_TOKEN', 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx:[AuthToken]']); return { value: v, text: `curl -X POST https://api.twilio.com/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Messages.json -u ${v}` } },
  'curl-user-reference': (r) => { const v = r.pick(['"$USER:$TOKEN"', '${API_USER}:${API_PASS}', 'admin:<password>', 'user:pass', 'username:password', '"$(cat ~/.creds)"', 'elastic:changeme']); return { value: v, text: `$ curl -u ${v} https://${host(r)}/` } },
  'prose-placeholder': (r) => { const v = r.pick(['<your-token-here>', 'xxxx', 'changeme', 'YOUR_API_KEY', '********', '<paste it here>', 'REPLACE_ME', 'sk-...']); return { value: v, text: r.pick([`my API key is ${v} for now`, `set the password to ${v} in .env`, `the Cloudflare token: ${v}`]) } },
  'format-placeholder': (r) => { const v = r.pick(['%(password)s', '%(api_key)s', '{password}', '{{ .Values.db.password }}', '${DB_PASSWORD}', '${{ secrets.CF_API_TOKEN }}', ':password', '?']); return { value: v, text: r.pick([`"password": "${v}",`, `api_key = "${v}"`, `DSN = "host=db user=app password=${v}"`]) } },
  'prose-hash': (r) => { const v = r.pick([r.str(HEX, 40), r.str(HEX, 64), r.str(HEX, 32)]); return { value: v, text: r.pick([`the commit hash is ${v}, can you cherry-pick it?`, `sha256 checksum: ${v}`, `The build id is ${v}.`, `md5 of the key file is ${v}`]) } },
  'prose-uuid': (r) => { const v = uuid(r); return { value: v, text: r.pick([`the request id is ${v}`, `My Heroku app id: ${v}`, `Datadog monitor ${v} fired twice`, `session ${v} was resumed`]) } },
  'provider-ids': (r) => { const v = r.pick([r.str(HEX, 32), r.str(HEX, 40)]); return { value: v, text: r.pick([`"cloudflare_zone_id": "${v}",`, `datadog trace_id=${v}`, `"account_id": "${v}"`, `zone: ${v} # cloudflare`]) } },
  'twilio-sid-alone': (r) => { const v = twilioSid(r); return { value: v, text: `Account SID: ${v}` } },
  integrity: (r) => { const v = 'sha512-' + r.str(B64, 86) + '=='; return { value: v, text: `"integrity": "${v}"` } },
  'public-key-prose': (r) => { const v = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' + r.str(B64, 43); return { value: v, text: `my public key is ${v} dev@laptop, add it to authorized_keys` } },
  'aws-example-prose': (r) => { const v = r.pick(['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AKIAIOSFODNN7EXAMPLE']); return { value: v, text: `my AWS secret access key is ${v} (the docs example)` } },
  'identifier-assign': (r) => { const v = r.pick(['getSecretFromVault', 'process.env.API_KEY', 'os.environ["DB_PASSWORD"]', 'settings.SECRET_KEY', 'readPasswordFile()', 'config.get("apiKey")', 'None', 'null', 'True']); return { value: v, text: r.pick([`password = ${v}`, `"apiKey": ${v},`]) } },
  'supabase-anon-url': (r) => { const v = `https://${r.str(LO, 20)}.supabase.co`; return { value: v, text: `SUPABASE_URL=${v}` } },
}
export const WILD_KINDS = Object.keys(WILD)
export const WILD_LOOKALIKE_KINDS = Object.keys(WILD_LOOKALIKES)

const FILLER = [
  'Sure — let me wire that up.',
  "I'll check the webhook handler next.",
  '$ npm run build\n> tsc -p .\n',
  'The job failed with 401 Unauthorized; the credentials were rejected.',
  'Done. The notifier now posts to the channel after each deploy.',
  'Here is the updated script:',
  "Let's verify the connection before we change anything else.",
  'diff --git a/scripts/notify.sh b/scripts/notify.sh\n@@ -1,3 +1,4 @@\n #!/bin/sh\n set -e',
]

/** Escaping depth d: as the text sits inside d nested JSON strings. */
export function escapeDepth(s, d) {
  for (let i = 0; i < d; i++) s = JSON.stringify(s).slice(1, -1)
  return s
}

/** How transcripts hold a text at depth 1–3: a user prompt or tool result, a Codex command, a tool result printing a Codex line. */
function wrap(r, text, depth) {
  if (depth === 0) return text
  const prompt = (t) => JSON.stringify({ type: 'user', message: { role: 'user', content: t }, uuid: uuid(r), timestamp: '2026-11-03T08:00:00.000Z' })
  const result = (t) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01' + r.str(AN, 22), content: t }] } })
  const codex = (t) => JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', t] }), call_id: 'call_' + r.str(AN, 24) } })
  const codexOut = (t) => JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_' + r.str(AN, 24), output: JSON.stringify({ output: t, metadata: { exit_code: 0 } }) } })
  if (depth === 1) return r.chance(0.5) ? prompt(text) : result(text)
  if (depth === 2) return r.chance(0.5) ? codex(text) : codexOut(text)
  return result(r.chance(0.5) ? codex(text) : codexOut(text))
}

function snippet(r, kind, depth) {
  const p = WILD[kind].make(r)
  const parts = [r.pick(FILLER), p.text]
  const looks = []
  for (let k = 0; k < 2; k++) {
    const lk = r.pick(WILD_LOOKALIKE_KINDS)
    const made = WILD_LOOKALIKES[lk](r)
    looks.push({ kind: lk, value: made.value })
    parts.push(made.text)
  }
  parts.push(r.pick(FILLER))
  if (r.chance(0.5)) [parts[1], parts[2]] = [parts[2], parts[1]]
  return {
    text: wrap(r, parts.join(r.pick(['\n', '\n\n'])), depth),
    depth,
    cls: WILD[kind].cls,
    context: p.context,
    secrets: [{ kind, value: escapeDepth(p.secret, depth) }],
    lookalikes: looks.map((l) => ({ kind: l.kind, value: escapeDepth(l.value, depth) })),
  }
}

/** `count` snippets cycling through the kinds, each at depth 0–3 (a quarter each). */
export function generateWild(count, seed) {
  const r = new Rng(seed)
  const out = []
  for (let i = 0; i < count; i++) out.push(snippet(r, WILD_KINDS[i % WILD_KINDS.length], i % 4 === 0 ? 0 : r.int(0, 3)))
  return out
}


/** A secret is caught when no 8-character run of it survives (runs also found around it prove nothing). */
export function survives(secret, output, background = '') {
  if (output.includes('[REDACTED:')) output = output.replace(/\[REDACTED:[a-z0-9\-]+:\d+\]/g, '')
  for (let i = 0; i + 8 <= secret.length; i++) {
    const run = secret.slice(i, i + 8)
    if (output.includes(run) && !background.includes(run)) return true
  }
  return secret.length < 8 && output.includes(secret)
}

const bump = (m, k, hit) => {
  const e = (m[k] ??= { n: 0, ok: 0 })
  e.n++
  if (hit) e.ok++
}

/** Recall per class, kind, context and depth; look-alikes kept per kind. */
export function scoreWild(snips, outputs) {
  const s = { secrets: 0, caught: 0, lookalikes: 0, kept: 0, byClass: {}, byKind: {}, byContext: {}, byDepth: {}, byLookalike: {}, missed: [] }
  snips.forEach((sn, i) => {
    const out = outputs[i]
    for (const p of sn.secrets) {
      s.secrets++
      const hit = !survives(p.value, out, sn.text.split(p.value).join(''))
      if (hit) s.caught++
      else if (s.missed.length < 200) s.missed.push({ kind: p.kind, context: sn.context, depth: sn.depth, i })
      bump(s.byClass, sn.cls, hit)
      bump(s.byKind, p.kind, hit)
      bump(s.byContext, sn.context, hit)
      bump(s.byDepth, sn.depth, hit)
    }
    for (const l of sn.lookalikes) {
      s.lookalikes++
      const kept = out.includes(l.value)
      if (kept) s.kept++
      bump(s.byLookalike, l.kind, kept)
    }
  })
  s.recall = s.caught / s.secrets
  s.keptRate = s.kept / s.lookalikes
  return s
}
