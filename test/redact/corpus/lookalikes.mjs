/**
 * Look-alikes: strings that resemble secrets but must survive redaction, each
 * in the context where it appears in transcripts. `value` is what must still
 * be there afterwards.
 */
import { AN, B64, B64U, DIG, HEX, LO, UP, b64, pem, uuid } from './rng.mjs'

const l = (make) => make

export const LOOKALIKES = {
  'git-sha': l((r) => { const v = r.str(HEX, 40); return { value: v, text: r.pick([`commit ${v}\nAuthor: Dev <dev@example.com>\nDate:   Mon Nov 2 09:15:00 2026 +0100`, `HEAD is now at ${v.slice(0, 7)} fix tests\n"sha": "${v}"`, `"commit":"${v}"`]) } }),
  'git-sha-short': l((r) => { const v = r.str(HEX, 12); return { value: v, text: `[main ${v}] Fix rounding in toCents\n 2 files changed, 9 insertions(+), 3 deletions(-)` } }),
  uuid: l((r) => { const v = uuid(r); return { value: v, text: r.pick([`"sessionId":"${v}"`, `"parentUuid":"${v}"`, `x-request-id: ${v}`, `session ${v} resumed`]) } }),
  'tool-ids': l((r) => { const v = r.pick(['toolu_01' + r.str(AN, 22), 'call_' + r.str(AN, 24), 'msg_01' + r.str(AN, 22), 'prt_' + r.str(HEX, 12) + r.str(AN, 14), 'req_' + r.str(AN, 24), 'chatcmpl-' + r.str(AN, 29)]); return { value: v, text: `{"type":"tool_use","id":"${v}","name":"Bash"}` } }),
  'npm-integrity': l((r) => { const v = 'sha512-' + r.str(B64, 86) + '=='; return { value: v, text: `"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "${v}"\n}` } }),
  'go-sum': l((r) => { const v = 'h1:' + r.str(B64, 43) + '='; return { value: v, text: `github.com/pkg/errors v0.9.${r.int(0, 9)} ${v}\ngithub.com/pkg/errors v0.9.1/go.mod h1:${r.str(B64, 43)}=` } }),
  'cargo-lock': l((r) => { const v = r.str(HEX, 64); return { value: v, text: `[[package]]\nname = "serde"\nversion = "1.0.${r.int(100, 220)}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${v}"` } }),
  'yarn-lock': l((r) => { const v = '10c0/' + r.str(HEX, 128); return { value: v, text: `"typescript@npm:^5.6.0":\n  version: 5.6.3\n  resolution: "typescript@npm:5.6.3"\n  checksum: ${v}\n  languageName: node` } }),
  'terraform-lock': l((r) => { const v = 'h1:' + r.str(B64, 43) + '='; return { value: v, text: `provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.7${r.int(0, 9)}.0"\n  hashes = [\n    "${v}",\n    "zh:${r.str(HEX, 64)}",\n  ]\n}` } }),
  'image-digest': l((r) => { const v = 'sha256:' + r.str(HEX, 64); return { value: v, text: r.pick([`Digest: ${v}\nStatus: Downloaded newer image for node:20`, `"Image": "${v}",`]) } }),
  checksum: l((r) => { const v = r.str(HEX, r.pick([32, 40, 64])); return { value: v, text: `$ sha256sum dist/app.tar.gz\n${v}  dist/app.tar.gz` } }),
  'base64-image': l((r) => { const v = 'iVBORw0KGgoAAAANSUhEUgAA' + r.str(B64, r.int(200, 800)); return { value: v, text: `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${v}"}}` } }),
  'ssh-public-key': l((r) => { const v = r.pick(['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' + r.str(B64, 43), 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ' + r.str(B64, 300)]); return { value: v, text: `$ cat ~/.ssh/id_ed25519.pub\n${v} dev@laptop` } }),
  certificate: l((r) => { const v = pem(r, 'CERTIFICATE', r.int(4, 12)); return { value: v, text: `$ openssl s_client -showcerts -connect api.acme.io:443\n${v}` } }),
  'public-key-pem': l((r) => { const v = pem(r, 'PUBLIC KEY', r.int(3, 6)); return { value: v.split('\n')[1], text: `"jwks_public_key": ${JSON.stringify(v)}` } }),
  'kube-ca-data': l((r) => { const v = b64(pem(r, 'CERTIFICATE', 8) + '\n'); return { value: v, text: `clusters:\n- cluster:\n    certificate-authority-data: ${v}\n    server: https://10.0.0.1:6443` } }),
  'doc-example-keys': l((r) => { const v = r.pick(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', 'xoxb-not-a-real-token-this-will-not-work']); return { value: v, text: r.pick([`aws_access_key_id = ${v}`, `# from the docs: ${v}`, `"example": "${v}"`]) } }),
  placeholder: l((r) => { const v = r.pick(['your-api-key-here', '<your-api-key>', 'xxxxxxxxxxxxxxxxxxxxxxxx', '<redacted>', '********', 'changeme', 'REPLACE_ME', 'sk-...', 'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', '<YOUR_TOKEN>', 'TODO', 'dummy-password', '[REDACTED]']); const n = r.pick(['OPENAI_API_KEY', 'DB_PASSWORD', 'GITHUB_TOKEN', 'client_secret', 'apiKey']); return { value: `${n}=${v}`.slice(n.length + 1), text: r.pick([`${n}=${v}`, `"${n}": "${v}"`, `${n}: ${v}`]) } }),
  'env-reference': l((r) => { const n = r.pick(['OPENAI_API_KEY', 'DB_PASSWORD', 'STRIPE_SECRET_KEY', 'AUTH_TOKEN']); const v = r.pick([`\${${n}}`, `$${n}`, `process.env.${n}`, `os.environ["${n}"]`, `%${n}%`, `{{ secrets.${n} }}`, `\${{ secrets.${n} }}`, `env("${n}")`]); return { value: v, text: r.pick([`${n.toLowerCase()}: ${v}`, `const ${n.toLowerCase()} = ${v}`, `"${n}": "${v}"`, `password = ${v}`]) } }),
  'token-counts': l((r) => { const v = `"max_tokens": ${r.int(1000, 64000)}, "input_tokens": ${r.int(100, 99999)}, "cache_read_input_tokens": ${r.int(0, 99999)}`; return { value: v, text: `"usage": {${v}}` } }),
  'secretish-settings': l((r) => { const v = r.pick([`"token_type": "Bearer", "expires_in": ${r.int(600, 7200)}`, `password_min_length: ${r.int(8, 16)}`, `"tokenizer": "cl100k_base"`, `secret_name: prod/api/${r.str(LO, 6)}`, `"keyId": "${r.str(DIG, 12)}"`, `key_path: /etc/ssl/private/server.key`, `TOKEN_TTL=3600`, `"passwordPolicy": "strong"`, `auth: { type: "oidc" }`, `"primary_key": "id"`]); return { value: v, text: v } }),
  'minified-code': l((r) => { const v = `function(e,t){var n=e.token||t.apiKey,r=n.split(".");return r.length>1?${r.str(LO, 1)}(r[1]):null}`; return { value: v, text: `!${v}(window,document);var ${r.str(LO, 2)}="${r.str(AN, 24)}";` } }),
  'urls-without-credentials': l((r) => { const v = r.pick(['postgres://localhost:5432/app', 'https://github.com/acme/app.git', 'git@github.com:acme/app.git', 'redis://localhost:6379/0', 'mongodb://db.internal:27017/prod', 'https://api.acme.io/v1/items?page=2&sort=created&limit=50', 'postgres://app@db.internal/app', 'amqp://rabbitmq:5672/', 'postgres://user:password@localhost:5432/mydb', `postgres://app:\${DB_PASSWORD}@db:5432/app`]); return { value: v, text: r.pick([`DATABASE_URL=${v}`, `git clone ${v}`, `url: ${v}`]) } }),
  'mapbox-public-token': l((r) => { const v = 'pk.eyJ1IjoiYWNtZSIsImEiOiJ' + r.str(B64U, 20) + '.' + r.str(B64U, 22); return { value: v, text: `mapboxgl.accessToken = '${v}';` } }),
  'encrypted-reasoning': l((r) => { const v = r.pick(['gAAAAABo' + r.str(B64U, 300), 'EqQBCkgIBxABGAIiQ' + r.str(B64, 200)]); return { value: v, text: r.pick([`"encrypted_content":"${v}"`, `"signature":"${v}"`]) } }),
  'ulid-and-ids': l((r) => { const v = r.pick(['01' + r.str('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24), 'C0' + r.str(UP + DIG, 9), '0x' + r.str(HEX, 40), r.str(DIG, 19)]); return { value: v, text: r.pick([`"event_id": "${v}"`, `channel=${v}`, `wallet: ${v}`]) } }),
  'base64-data': l((r) => { const v = b64(r.pick(['hello world\n', 'Build finished in 3.2s\n', '{"alg":"none"}', 'version: 3\nservices: {}\n'])); return { value: v, text: `$ echo '${v}' | base64 -d` } }),
  'camel-identifiers': l((r) => { const v = r.pick(['handleAuthTokenRefreshCallback', 'validatePasswordStrength', 'SecretManagerServiceClient', 'getApiKeyFromVault', 'TokenBucketRateLimiter']); return { value: v, text: `export async function ${v}(ctx) {\n  const token = await ${v}Inner(ctx)\n  return token\n}` } }),
}

export const LOOKALIKE_KINDS = Object.keys(LOOKALIKES)
