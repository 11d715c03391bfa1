/** PEM private keys, found linearly (a multi-MB unterminated block must not go quadratic). */
const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,30} PRIVATE KEY(?: BLOCK)?-----/g
const PEM_END = /-----END[ A-Z0-9]{0,30} PRIVATE KEY(?: BLOCK)?-----/y
/** Body characters of a PEM block, also JSON-escaped (`\\n`) and with `Proc-Type:` headers. */
function pemBody(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61 || c === 92 || c === 32 || c === 9 || c === 10 || c === 13 || c === 58 || c === 44 || c === 45
}

/**
 * PEM private keys, linear in the text: each BEGIN line, then the body up to
 * its END line. An unterminated block (a
 * truncated paste) is redacted from BEGIN to the end of its body when the
 * body holds at least 64 characters; a BEGIN line alone is left.
 */
export function findPem(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  PEM_BEGIN.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PEM_BEGIN.exec(text)) !== null) {
    const start = m.index
    let i = PEM_BEGIN.lastIndex
    while (i < text.length && pemBody(text.charCodeAt(i))) {
      if (text.charCodeAt(i) === 45 && text.startsWith('-----', i)) break
      i++
    }
    PEM_END.lastIndex = i
    const e = PEM_END.exec(text)
    if (e) {
      out.push([start, PEM_END.lastIndex])
      PEM_BEGIN.lastIndex = PEM_END.lastIndex
    } else {
      if (i - PEM_BEGIN.lastIndex >= 64) out.push([start, i])
      PEM_BEGIN.lastIndex = Math.max(PEM_BEGIN.lastIndex, i)
    }
  }
  return out
}
