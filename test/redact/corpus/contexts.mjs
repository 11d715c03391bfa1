/**
 * Transcript-shaped contexts a secret is planted in: tool outputs (`env`,
 * `cat .env`, `docker inspect`, `kubectl`, curl, diffs, stack traces, JSON API
 * responses) and code in several languages. A name is given in UPPER_SNAKE
 * (or in the provider's own spelling) and rendered in the context's case.
 */
import { AN } from './rng.mjs'

const words = (n) => n.split(/[_\-]/).filter(Boolean)
const isUpperSnake = (n) => /^[A-Z0-9_]+$/.test(n)
const upper = (n) => (isUpperSnake(n) ? n : n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase())
const snake = (n) => upper(n).toLowerCase()
const camel = (n) => (isUpperSnake(n) || n.includes('-') ? words(n.toLowerCase()).map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('') : n)
const header = (n) => words(upper(n).toLowerCase()).map((w) => w[0].toUpperCase() + w.slice(1)).join('-')
const kebab = (n) => words(snake(n)).join('-')

const q = (r, v) => r.pick([v, `"${v}"`, `'${v}'`])

/** Contexts that take a name and a value. */
export const NAMED = {
  'env-output': (r, n, v) => `$ env | sort\nHOME=/home/dev\nLANG=C.UTF-8\n${upper(n)}=${v}\nPATH=/usr/local/bin:/usr/bin:/bin\nTERM=xterm-256color`,
  dotenv: (r, n, v) => `$ cat .env\n# local development\nNODE_ENV=development\nPORT=3000\n${upper(n)}=${q(r, v)}\nLOG_LEVEL=debug`,
  'shell-export': (r, n, v) => `#!/usr/bin/env bash\nset -euo pipefail\nexport ${upper(n)}=${q(r, v)}\nexec node dist/server.js "$@"`,
  yaml: (r, n, v) => r.pick([`services:\n  api:\n    image: acme/api:1.4.2\n    environment:\n      ${upper(n)}: ${q(r, v)}\n      LOG_LEVEL: info`, `production:\n  adapter: postgresql\n  ${snake(n)}: ${q(r, v)}\n  pool: 5`]),
  'k8s-secret': (r, n, v) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-secrets\ntype: Opaque\nstringData:\n  ${upper(n)}: ${q(r, v)}`,
  'json-api': (r, n, v) => r.pick([JSON.stringify({ id: r.int(1000, 99999), [camel(n)]: v, created_at: '2026-11-02T09:15:00Z', active: true }), JSON.stringify({ data: { [snake(n)]: v, region: 'eu-west-1' }, meta: { request_id: 'req_' + r.str(AN, 20) } }, null, 2)]),
  toml: (r, n, v) => `[service]\nname = "orders"\n${snake(n)} = "${v}"\ntimeout = 30`,
  ini: (r, n, v) => `[default]\nregion = eu-west-1\n${snake(n)} = ${v}\noutput = json`,
  terraform: (r, n, v) => `provider "acme" {\n  endpoint = "https://api.acme.io"\n  ${snake(n)} = "${v}"\n}`,
  'js-code': (r, n, v) => { const c = r.pick(['"', "'", '`']); return r.pick([`const ${camel(n)} = ${c}${v}${c}`, `export const config = {\n  port: 8080,\n  ${camel(n)}: "${v}",\n}`, `const client = new Client({ ${camel(n)}: '${v}', retries: 3 })`]) },
  'python-code': (r, n, v) => r.pick([`${upper(n)} = "${v}"`, `client = Client(${snake(n)}="${v}", timeout=30)`, `settings = {\n    "${snake(n)}": '${v}',\n    "debug": False,\n}`]),
  'go-code': (r, n, v) => `func newClient() *Client {\n\t${camel(n)} := "${v}"\n\treturn &Client{key: ${camel(n)}}\n}`,
  'docker-inspect': (r, n, v) => `$ docker inspect api-1 --format '{{json .Config.Env}}'\n["PATH=/usr/local/sbin:/usr/local/bin","NODE_VERSION=20.18.0","${upper(n)}=${v}","YARN_VERSION=1.22.22"]`,
  'docker-run': (r, n, v) => `$ docker run --rm -e ${upper(n)}=${v} -p 8080:8080 acme/api:latest`,
  'curl-header': (r, n, v) => `$ curl -sS -H "${header(n)}: ${v}" -H 'Accept: application/json' https://api.acme.io/v1/status\n{"ok":true}`,
  diff: (r, n, v) => `diff --git a/config/.env.example b/config/.env\nindex 3f2a1c0..9b8e7d1 100644\n--- a/config/.env.example\n+++ b/config/.env\n@@ -1,3 +1,3 @@\n NODE_ENV=production\n-${upper(n)}=\n+${upper(n)}=${v}\n PORT=3000`,
  'stack-trace': (r, n, v) => `Traceback (most recent call last):\n  File "/app/main.py", line 42, in <module>\n    client = connect(${snake(n)}="${v}")\n  File "/app/db.py", line 17, in connect\n    raise AuthError("rejected")\nAuthError: rejected`,
  'cli-flag': (r, n, v) => r.pick([`$ acme login --${kebab(n)} ${v} --region eu`, `$ acme deploy --${kebab(n)}=${v}`]),
}

/** Contexts for values recognisable by themselves (no name needed). */
export const BARE = {
  prose: (r, v) => `Here is the value you asked for: ${v} — it should work for the staging deploy.`,
  'log-line': (r, v) => `2026-11-02T10:00:0${r.int(0, 9)}.123Z INFO uploader: using credential ${v} for bucket acme-artifacts`,
  'stack-trace-bare': (r, v) => `Error: Request failed with status code 401\n    at createError (/app/node_modules/axios/lib/core/createError.js:16:15)\n    at settle (/app/node_modules/axios/lib/core/settle.js:17:12)\n  config: { headers: { 'X-Token': '${v}' } }`,
  'json-array': (r, v) => JSON.stringify({ keys: [{ id: r.int(1, 99), value: v, scopes: ['read'] }] }),
  markdown: (r, v) => `Set it in the CI settings:\n\n\`\`\`\n${v}\n\`\`\`\n\nthen re-run the workflow.`,
}

/** URL contexts. */
export const URL = {
  'env-url': (r, v) => `$ printenv | grep URL\n${r.pick(['DATABASE_URL', 'REDIS_URL', 'BROKER_URL', 'SENTRY_DSN', 'UPSTREAM', 'BACKUP_URL'])}=${v}`,
  'yaml-url': (r, v) => `spring:\n  datasource:\n    url: ${v}\n    hikari:\n      maximum-pool-size: 10`,
  'error-url': (r, v) => `Error: connect ECONNREFUSED 10.0.3.17:5432\n    while connecting to ${v}\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)`,
  'json-url': (r, v) => JSON.stringify({ name: 'worker', env: { CONN: v }, replicas: 2 }),
  'code-url': (r, v) => `const pool = createPool('${v}')`,
  'curl-url': (r, v) => `$ curl -sSfL "${v}" -o /tmp/out`,
  'log-url': (r, v) => `[worker] 12:01:44 fetching ${v} (attempt 2/5)`,
}

/** Bearer / Basic header contexts. */
export const HEADER = {
  'curl-header': (r, s, v) => `$ curl -v -H "Authorization: ${s} ${v}" https://api.acme.io/v1/me`,
  'http-dump': (r, s, v) => `> GET /v1/me HTTP/1.1\n> Host: api.acme.io\n> Authorization: ${s} ${v}\n> User-Agent: curl/8.5.0\n>\n< HTTP/1.1 200 OK`,
  'json-headers': (r, s, v) => JSON.stringify({ method: 'POST', url: 'https://api.acme.io/v1/jobs', headers: { Authorization: `${s} ${v}`, 'Content-Type': 'application/json' } }),
  'python-code': (r, s, v) => `resp = requests.get(url, headers={"Authorization": "${s} ${v}"})`,
}

export const FILLER = [
  'Let me check the test configuration first.',
  'The failing assertion is in src/money.test.ts line 42: expected 10.05, received 10.04.',
  '$ npm test\n> demo-app@1.0.0 test\n> vitest run\n\n FAIL  src/money.test.ts > rounds totals\nAssertionError: expected 1004 to be 1005',
  'export function toCents(x: number): number {\n  return Math.floor(x * 100)\n}',
  'total 48\ndrwxr-xr-x  5 dev dev 4096 Nov 29 10:01 .\n-rw-r--r--  1 dev dev  612 Nov 29 10:01 package.json',
  'const key = cache.get(id) ?? computeKey(input); // keys are memoised per token window',
  'I updated the token refresh logic so the auth middleware retries once before failing.',
  'The password field is validated on the client; the secret is never logged.',
  "I'll read the config loader to see where the credentials come from.",
  '$ git status\nOn branch main\nChanges not staged for commit:\n  modified:   src/auth/session.ts',
  '    at Object.<anonymous> (/app/src/index.ts:12:9)\n    at Module._compile (node:internal/modules/cjs/loader:1554:14)',
  'Ran 214 tests in 3.2s. 2 failed, 212 passed. The failures are both in the token bucket rate limiter.',
]

