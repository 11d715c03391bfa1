/**
 * `user:secret` pairs written on a command line or built by hand, where no
 * variable name says "password":
 * - `curl -u user:secret`, `--user "user:secret"`, `--user=…`, httpie
 *   `-a`/`--auth user:secret` → the secret;
 * - `mysql -pSECRET` (the password glued to `-p`), `sshpass -p SECRET`,
 *   `redis-cli … -a SECRET`;
 * - a quoted `"user:secret"` literal handed to base64 (`btoa(…)`,
 *   `Buffer.from(…).toString('base64')`, `b64encode(b"…")`, `echo -n … | base64`)
 *   to build a Basic header;
 * - `auth=("user", "secret")`, `SetBasicAuth("user", "secret")`,
 *   `HTTPBasicAuth('user', 'secret')`;
 * - a Twilio Account SID (`AC` + 32 hex) followed within a line by a 32-hex
 *   auth token (`-u AC…:token`, `Client("AC…", "token")`, prose).
 * Quotes at any JSON escaping depth. Every regex is bounded after a literal
 * start, so the scan is linear in the text.
 */
import type { Rule } from './rule.js'
import { classes, entropy, isPlaceholder } from './placeholder.js'
import { NOT_KEY } from './provider.js'

/** A password or key as people type them: not a placeholder, reference, number, or short word. */
export function userSecret(v: string): boolean {
  if (v.length < 6 || isPlaceholder(v)) return false
  if (/^(?:\$|%|<|\{|\[|@|\/)/.test(v) || v.includes('${') || v.includes('$(')) return false
  if (/^[0-9]+$/.test(v) || /^[a-z]+$/.test(v)) return false
  if (/^(?:pass(?:word)?|secret|token|api_?key|your[_\-]|my[_\-])/i.test(v) && classes(v) <= 2) return false
  return classes(v) >= 2 && entropy(v) >= 2.3
}

type Span = [number, number, string]

/** `-u`/`--user`/`-a`/`--auth` then `user:secret`. */
const FLAG_PAIR = /(?<![A-Za-z0-9_\-])(?:-u|--user|-a|--auth)(?:[ \t]+|=)(?:\\*["'])?(?<u>[^\s:"'\\]{1,128}):(?<s>[^\s"'\\]{1,512})/dg
/** `mysql -pSECRET`: only where mysql or mariadb was named before on the line. */
const MYSQL_P = /(?<![A-Za-z0-9_\-])-p(?:\\*["'])?(?<s>[^\s"'\\\-][^\s"'\\]{3,511})/dg
/** `sshpass -p X`, `redis-cli … -a X`. */
const FLAG_ALONE = /(?:sshpass(?:[ \t]+-[A-Za-z])*[ \t]+-p|redis-cli[^\n\\]{0,160}?[ \t]-a)[ \t]+(?:\\*["'])?(?<s>[^\s"'\\]{1,512})/dg
/** A quoted `user:secret` literal. */
const QUOTED_PAIR = /\\*["'`](?<u>[A-Za-z0-9_.@+\-]{1,64}):(?<s>[^\s"'`\\:]{1,512})\\*["'`]/dg
/** `auth=("u", "p")`, `BasicAuth("u", "p")`. */
const AUTH_TUPLE = /(?:auth|Auth)[ \t]*(?:=[ \t]*)?[(\[][ \t]*\\*["'][^\s"'\\]{1,128}\\*["'][ \t]*,[ \t]*\\*["'](?<s>[^\s"'\\]{1,512})\\*["']/dg
/** A Twilio Account SID, then a 32-hex auth token within the line. */
const TWILIO = /AC[0-9a-f]{32}(?![A-Za-z0-9])[^\n]{0,80}?(?<![A-Za-z0-9])(?<s>[0-9a-f]{32})(?![A-Za-z0-9])/dg

/** `sha256:…`, `https://…`, `urn:…`: a digest or a URI, not a user name and its secret. */
const NOT_USER = /^(?:sha\d*|sha3-?\d*|md5|h1|blake\w*|crc32|xxh\w*|https?|s?ftp|git|ssh|file|data|urn|mailto|tcp|udp|tel|arn|gs|s3|docker|oci)$/i

function each(re: RegExp, text: string, from: number, kind: string, out: Span[], ok: (s: string, i: number) => boolean): void {
  re.lastIndex = from
  let m: RegExpExecArray | null
  while ((m = re.exec(text)) !== null) {
    if (m.groups!.u !== undefined && NOT_USER.test(m.groups!.u)) continue
    const [s, e] = m.indices!.groups!.s!
    const v = text.slice(s, e)
    if (ok(v, s)) out.push([s, e, kind])
  }
}

/** Whether one of `words` occurs in the `back` characters before `i` (the same command line, roughly). */
function named(text: string, i: number, back: number, re: RegExp): boolean {
  return re.test(text.slice(Math.max(0, i - back), i))
}

/** One rule per form, each behind its own keywords: a string holding `-u` runs one regex, not six. */
const rule = (keywords: string[], find: (text: string, out: Span[]) => void): Rule => ({
  kind: 'basic-auth',
  keywords,
  re: /(?!)/g,
  find: (text) => {
    const out: Span[] = []
    find(text, out)
    return out
  },
  noPlaceholderCheck: true,
})

export const USER_SECRET: Rule[] = [
  // With the space before: `u ` and `a ` alone would be looked up all over English text.
  rule([' -u ', ' -u=', ' -u\\', ' -u\t', '--user', ' -a ', '--auth'], (text, out) => each(FLAG_PAIR, text, 0, 'basic-auth', out, userSecret)),
  rule(['mysql', 'mariadb'], (text, out) => each(MYSQL_P, text, 0, 'password', out, (v, i) => named(text, i, 200, /mysql|mariadb/) && userSecret(v))),
  rule(['sshpass', 'redis-cli'], (text, out) => each(FLAG_ALONE, text, 0, 'password', out, userSecret)),
  rule(['base64', 'btoa', 'Basic', 'b64encode'], (text, out) => each(QUOTED_PAIR, text, 0, 'basic-auth', out, (v, i) => named(text.slice(0, i + v.length + 120), i + v.length + 120, 240, /base64|btoa|Basic|b64encode/) && userSecret(v))),
  rule(['auth=(', 'auth = (', 'auth=[', 'Auth(', 'auth('], (text, out) => each(AUTH_TUPLE, text, 0, 'basic-auth', out, userSecret)),
  // The token follows the SID on its line (no `\n` escape between), and is not called an id or a hash.
  // Keywords of three characters (`AC` and a hex digit): two-character ones are looked up at every window.
  rule([...'0123456789abcdef'].map((h) => 'AC' + h), (text, out) => each(TWILIO, text, 0, 'twilio-auth-token', out, (v, i) => entropy(v) >= 3 && !/\\n/.test(text.slice(Math.max(0, i - 80), i).split(/AC[0-9a-f]{32}/).pop()!) && !NOT_KEY.test(text.slice(Math.max(0, i - 24), i)))),
]
