/**
 * Config formats whose structure, not a name, says where the credential is.
 * Most are covered by keyword context (`.npmrc` `_authToken=`, `.pypirc`
 * `password =`, Docker `"auth": "…"`, kubeconfig `token:`), `.netrc`'s
 * space-separated `password` included (keyword.ts), and base64 payloads
 * (base64.ts: kubeconfig `client-key-data`). What is left needs a parser:
 *
 * - `.pgpass` lines, `hostname:port:database:username:password`, where the
 *   fifth field is the password; `\:` escapes a colon inside a field.
 */
import type { Rule } from './rule.js'
import { isPlaceholder } from './placeholder.js'

/** One pgpass line at a line start (also after a JSON `\n` escape); the port is digits or `*`. */
const PGPASS = /(?:^|\n|\\n)(?:[A-Za-z0-9_.\-*\[\]]{1,253}):(?:\d{1,5}|\*):(?:[^\s:\\]|\\:){1,63}:(?:[^\s:\\]|\\:){1,63}:(?<s>(?:[^\s\\]|\\:){1,200})(?=$|\n|\r|\\+[nr"])/dg

function findPgpass(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  PGPASS.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PGPASS.exec(text)) !== null) {
    const [s, e] = m.indices!.groups!.s!
    const v = m.groups!.s!
    if (v.length >= 4 && !isPlaceholder(v) && !/^\d+$/.test(v)) out.push([s, e])
    PGPASS.lastIndex = Math.max(PGPASS.lastIndex, e)
    if (m[0].length === 0) PGPASS.lastIndex++
  }
  return out
}

export const STRUCTURAL: Rule[] = [
  { kind: 'pgpass-password', keywords: ['pgpass', ':5432:', ':5433:', ':6432:', ':*:', 'PGPASSFILE'], re: /(?!)/g, find: findPgpass },
]
