/**
 * Base64 payloads that decode to a credential:
 * - a base64 PEM (`LS0tLS1CRUdJTi…` is `-----BEGIN`) whose label says PRIVATE
 *   KEY — kubeconfig `client-key-data`, a `client-certificate-data` that holds
 *   a key, Kubernetes Secret `data:` fields. Certificates (`certificate-
 *   authority-data`) decode to CERTIFICATE and stay.
 * - `user:password` pairs (Docker `auths`, `.npmrc` `_auth`), checked by
 *   `decodesToUserPass` for keyword context that needs it.
 */
import type { Rule } from './rule.js'
import { MAX_TOKEN } from './rule.js'

const B64_PEM = /LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}={0,2}/g

const b64char = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61

function findPem64(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let at = text.indexOf('LS0tLS1CRUdJTi')
  while (at !== -1) {
    let end = at
    while (end < text.length && b64char(text.charCodeAt(end))) end++
    const head = Buffer.from(text.slice(at, Math.min(end, at + 80)), 'base64').toString('latin1')
    if (/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(head) && end - at >= 64) out.push([at, end])
    at = text.indexOf('LS0tLS1CRUdJTi', end)
  }
  return out
}

/** Whether a base64 string decodes to printable `user:password`. */
export function decodesToUserPass(v: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || v.length % 4 !== 0 || v.length > MAX_TOKEN) return false
  const d = Buffer.from(v, 'base64').toString('latin1')
  // `^[\x21-\x7e]{1,200}:[\x20-\x7e]{3,}$` in one pass (the regex backtracks over every colon): the first colon after the
  // first character decides, as any later one would have a printable-but-not-space run before it that holds this one.
  const colon = d.indexOf(':', 1)
  if (colon === -1 || colon > 200 || d.length - colon - 1 < 3) return false
  for (let i = 0; i < d.length; i++) {
    const c = d.charCodeAt(i)
    if (c > 0x7e || c < (i < colon ? 0x21 : 0x20)) return false
  }
  return true
}

export const BASE64_PEM: Rule = { kind: 'private-key', keywords: ['LS0tLS1CRUdJTi'], re: B64_PEM, find: findPem64, noPlaceholderCheck: true }
