/** Value tests shared by the rules: placeholders, documented example keys, entropy. */

const PLACEHOLDER = /^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|\{[A-Za-z_][A-Za-z0-9_.]*\}|%\([A-Za-z0-9_.]+\)[sdr]|:[a-z_][a-z0-9_]*|\*+|x+|X+|\.+|your[_\-].*|.*[_\-]here|changeme|change_me|replace_?me|password|passwd|secret|example|redacted|null|none|nil|undefined|true|false|dummy|test|token|todo|tbd)$/i

/** Example values printed in provider documentation (AWS, jwt.io, Slack): public, never secrets. */
const DOC_EXAMPLES = new Set([
  'AKIAIOSFODNN7EXAMPLE',
  // Telegram's Bot API documentation.
  '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
])

export function isPlaceholder(v: string): boolean {
  if (PLACEHOLDER.test(v)) return true
  if (/EXAMPLE|example|\[REDACTED|not-a-real|placeholder|PLACEHOLDER|dummy|DUMMY/.test(v)) return true
  if (DOC_EXAMPLES.has(v)) return true
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

/** Character classes present (lower, upper, digit, other): random secrets have at least two. */
export function classes(v: string): number {
  let lo = 0, up = 0, dg = 0, ot = 0
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (c >= 97 && c <= 122) lo = 1
    else if (c >= 65 && c <= 90) up = 1
    else if (c >= 48 && c <= 57) dg = 1
    else ot = 1
  }
  return lo + up + dg + ot
}
