/**
 * Secrets in prose: a cue in the words before a value says what it is —
 * "my AWS secret access key is …", "the Cloudflare token: …", "here is the
 * service role key …", "mein Passwort ist …", "voici le mot de passe : …",
 * "la contraseña es …", "a senha é …". Called by keyword context at each
 * keyword occurrence its assignment form did not take: the noun phrase (the
 * keyword's word and up to three words before it) must name a secret
 * (`nameStrength` 2: `Cloudflare token`, `service role key`, not `public
 * key` or `key file`), then come at most three short words ("for staging"),
 * a connector (`is`, `:`, `=`, `to`, `ist`, `est`, `es`, `é`, `è`…) and the
 * value, which is judged as an assigned value is. With no connector ("here
 * is the service role key eyJ…") the value must be long and random. Work is
 * bounded per occurrence, so the scan stays linear.
 */
import { classes } from './placeholder.js'

/** Connectors between a cue and its value, in several languages (lower case). */
const CONNECTOR_WORDS = ['is', 'are', 'was', 'to', 'ist', 'lautet', 'est', 'es', 'era', 'é', 'è', 'e', 'är', 'er', 'als', 'como', 'vale', 'равен', 'это']
/** Each also as its UTF-8 bytes read as latin1 (lower-cased): `ferry redact --text` reads bytes that way. */
const CONNECTORS = new Set(CONNECTOR_WORDS.flatMap((w) => [w, Buffer.from(w, 'utf8').toString('latin1').toLowerCase()]))
const N_TILDE = new RegExp(`ñ|${Buffer.from('ñ', 'utf8').toString('latin1')}`, 'gi')
/** Words that may stand between the cue and its connector ("… key for staging: …"); others end the cue. */
const GAP_MAX = 3

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c > 127
const isSpace = (c: number): boolean => c === 32 || c === 9

/** One word of letters (and `_-`) ending at `e` (exclusive), or null. */
function wordBefore(text: string, e: number): [number, number] | null {
  let s = e
  while (s > 0 && e - s < 30 && isWordChar(text.charCodeAt(s - 1))) s--
  return s < e ? [s, e] : null
}

/** A JSON escape (`\n`, `\t`) before `i`: where a line ends in escaped text. */
const escapeAt = (text: string, i: number): boolean => i >= 2 && text.charCodeAt(i - 2) === 92 && /[nrt]/.test(text[i - 1]!)

export interface ProseJudge {
  strength: (name: string) => number
  value: (v: string, strength: number, name: string) => boolean
  notSecret: (word: string) => boolean
}

/**
 * The value after the cue whose keyword occurrence is at `at` (the keyword
 * ends at `next`), or null.
 */
export function proseValue(text: string, at: number, next: number, judge: ProseJudge): [number, number] | null {
  // The keyword's word, to its end (letters: `password`, `tokens`, `Passwort`).
  let we = next
  while (we < text.length && we - next < 20 && isWordChar(text.charCodeAt(we))) we++
  // Cheap exit: prose has a space, colon, or markdown emphasis after the cue word.
  const c0 = text.charCodeAt(we)
  if (!(isSpace(c0) || c0 === 58 || c0 === 42 || c0 === 96 || c0 === 95)) return null
  // After the cue: markdown `**`, at most GAP_MAX short words, a connector, the value.
  let i = we
  while (i < text.length && (text.charCodeAt(i) === 42 || text.charCodeAt(i) === 96) && i - we < 3) i++
  let connector = false
  let gap = 0
  for (;;) {
    const s0 = i
    while (i < text.length && isSpace(text.charCodeAt(i)) && i - s0 < 3) i++
    const c = text.charCodeAt(i)
    if (c === 58 || c === 61) {
      // `:` `=` `:=`, `→`-like arrows are rare in prose.
      i++
      if (text.charCodeAt(i) === 61) i++
      connector = true
      break
    }
    if (!isWordChar(c)) break
    let e = i
    while (e < text.length && e - i < 16 && isWordChar(text.charCodeAt(e))) e++
    const raw = text.slice(i, e)
    const w = raw.toLowerCase()
    if (CONNECTORS.has(w) && isSpace(text.charCodeAt(e))) {
      i = e
      connector = true
      break
    }
    // No connector yet: this is either the value (no gap words before it) or a gap word.
    if (gap === GAP_MAX || e - i >= 16 || !/^[a-z]+$/.test(raw) || judge.notSecret(w)) break
    gap++
    i = e
  }
  if (!connector && gap > 0) return null
  if (!connector) i = we
  const from = i
  while (i < text.length && isSpace(text.charCodeAt(i)) && i - from < 4) i++
  // An opening quote, at any escaping depth.
  while (text.charCodeAt(i) === 92 && i - from < 12) i++
  const q = text.charCodeAt(i)
  if (q === 34 || q === 39 || q === 96) i++
  const vs = i
  while (i < text.length && i - vs < 512) {
    const c = text.charCodeAt(i)
    if (c <= 32 || c === 34 || c === 39 || c === 96 || c === 92 || c === 60 || c === 62 || c === 44 || c === 59 || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125 || c === 124) break
    i++
  }
  let ve = i
  // Sentence punctuation after the value is not part of it.
  while (ve > vs && /[.:!?]/.test(text[ve - 1]!)) ve--
  // What follows is read before the phrase before: most keyword occurrences in code have no value there, and the phrase costs more.
  if (ve - vs < 6) return null
  const v = text.slice(vs, ve)
  // Without a connector the value must look generated: long with letters and digits, or with symbols too.
  if (!connector && !((v.length >= 16 && /[0-9]/.test(v) && /[A-Za-z]/.test(v)) || classes(v) >= 3)) return null
  let ws = at
  while (ws > 0 && at - ws < 30 && isWordChar(text.charCodeAt(ws - 1))) ws--
  if (escapeAt(text, ws + 1) && ws + 1 <= at) ws += 1
  // The noun phrase: up to three words before, separated by single spaces.
  const phrase: string[] = [text.slice(ws, we)]
  let p = ws
  for (let k = 0; k < 3; k++) {
    if (p < 2 || !isSpace(text.charCodeAt(p - 1))) break
    const w = wordBefore(text, p - 1)
    if (!w) break
    // A word right after a JSON escape (`\nAPI key is …`) starts after the escape's letter, and ends the phrase.
    if (escapeAt(text, w[0] + 1)) {
      if (w[1] > w[0] + 1) phrase.unshift(text.slice(w[0] + 1, w[1]))
      break
    }
    phrase.unshift(text.slice(w[0], w[1]))
    p = w[0]
  }
  // The strongest reading of the phrase: `service role key`, not `the`.
  let name = ''
  let strength = 0
  for (let k = phrase.length - 1; k >= 0; k--) {
    const n = phrase.slice(k).join('_').replace(/\*+/g, '').replace(N_TILDE, 'n')
    const s = judge.strength(n)
    if (s === 0 && k < phrase.length - 1) break
    if (s >= strength) (strength = s), (name = n)
  }
  if (strength < 2) return null
  if (!judge.value(v, strength, name)) return null
  return [vs, ve]
}
