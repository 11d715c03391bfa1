/**
 * Credentials inside URLs, found by parsing each `scheme://` occurrence:
 * - userinfo `user:password@` → the password (`connection-string` for
 *   database and broker schemes, `basic-auth` for the rest);
 * - userinfo that is itself a token (`https://<32 hex>@o1.ingest.sentry.io`,
 *   `https://ghp_…@github.com`) → the userinfo (`url-credential`);
 * - query or `;`-parameters named like credentials (`?api_key=`, `&sig=`,
 *   `X-Amz-Signature=`, JDBC `;password=`) → the value (`url-credential`).
 * Placeholders and `${VAR}` references stay. URLs end at whitespace, quotes,
 * backslashes (a JSON escape) and brackets, so escaped text is handled alike.
 */
import type { Rule } from './rule.js'
import { entropy, isPlaceholder } from './placeholder.js'

const DB_SCHEMES = /^(?:jdbc:)?(?:[a-z0-9]+:)?(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?|bolt|oracle|db2|snowflake|cassandra|memcached|nats|kafka|mqtt|elasticsearch|influxdb|redshift|presto|trino)$/
const QUERY_NAMES = new Set(['api_key', 'apikey', 'api-key', 'key', 'access_token', 'accesstoken', 'token', 'auth', 'auth_token', 'authtoken', 'client_secret', 'secret', 'password', 'passwd', 'pwd', 'pass', 'sig', 'signature', 'x-amz-signature', 'x-amz-security-token', 'x-amz-credential', 'x-goog-signature', 'x-goog-credential', 'private_token', 'refresh_token', 'id_token', 'session_token', 'sessiontoken', 'access_key', 'secret_key', 'app_key', 'application_key', 'api_token', 'apitoken', 'code_secret', 'sharedaccesssignature', 'sas', 'jwt'])

const stop = (c: number): boolean => c <= 32 || c === 34 || c === 39 || c === 96 || c === 92 || c === 60 || c === 62 || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125 || c === 124

function okSecret(v: string): boolean {
  if (v.length < 3 || isPlaceholder(v)) return false
  if (/^(?:\$|%[A-Za-z_]|\{\{|\$\{|<)/.test(v) || v.includes('${')) return false
  return true
}

function find(text: string): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = []
  let at = text.indexOf('://')
  while (at !== -1) {
    // The scheme: letters, digits, `+.-`, and `jdbc:x:` prefixes.
    let s = at
    while (s > 0 && /[A-Za-z0-9+.\-:]/.test(text[s - 1]!) && at - s < 40) s--
    const scheme = text.slice(s, at).toLowerCase().replace(/^[^a-z]+/, '')
    let end = at + 3
    while (end < text.length && !stop(text.charCodeAt(end))) end++
    const url = text.slice(at + 3, end)
    const base = at + 3
    // Userinfo: up to the last `@` before the path.
    // The path starts at the first `/` (a `#` or `?` may sit inside an unencoded password).
    let pathAt = url.indexOf('/')
    if (pathAt === -1) pathAt = url.length
    const atSign = url.lastIndexOf('@', pathAt)
    if (atSign > 0) {
      const info = url.slice(0, atSign)
      const colon = info.indexOf(':')
      if (colon >= 0) {
        const pw = info.slice(colon + 1)
        if (okSecret(pw)) out.push([base + colon + 1, base + atSign, DB_SCHEMES.test(scheme) ? 'connection-string' : 'basic-auth'])
      } else if (info.length >= 16 && entropy(info) >= 3 && okSecret(info) && /^[A-Za-z0-9_\-.~%]+$/.test(info)) {
        out.push([base, base + atSign, 'url-credential'])
      }
    }
    // Query and matrix parameters.
    const qStart = url.search(/[?;]/)
    if (qStart !== -1) {
      // `#` may be a fragment or part of an unencoded password: it stays in the value (redacting a fragment too is harmless).
      const re = /[?&;]([A-Za-z0-9_.\-]{1,40})=([^&;]*)/g
      re.lastIndex = qStart
      let m: RegExpExecArray | null
      while ((m = re.exec(url)) !== null) {
        const name = m[1]!.toLowerCase()
        const v = m[2]!
        if (!QUERY_NAMES.has(name) || v.length < 8 || !okSecret(v)) continue
        if (!/password|passwd|pwd|pass/.test(name) && entropy(v) < 3) continue
        const vs = base + m.index + 1 + m[1]!.length + 1
        out.push([vs, vs + v.length, 'url-credential'])
      }
    }
    at = text.indexOf('://', Math.max(end, at + 3))
  }
  return out
}

export const URL_CREDENTIALS: Rule = { kind: 'url-credential', keywords: ['://'], re: /(?!)/g, find, noPlaceholderCheck: true }
