/**
 * Text from a session made safe to print or embed: nothing in a transcript
 * may break the document or the terminal showing it. Lone surrogates become
 * U+FFFD, NUL and other control characters go (newline and tab stay), ANSI
 * escape sequences are stripped, bidi controls are shown as their codes, and text over the cap is cut with a
 * visible marker. The cut happens first so a 100 MB output costs a slice.
 */

/** CSI, OSC (BEL or ST terminated), and the other two-byte ESC sequences. */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g
/** C0 and C1 controls except tab and newline; DEL. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * Bidi embeddings, overrides and isolates: they reorder what follows on the line, so a transcript
 * could show text other than what it holds. A view shows each as a visible code instead.
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Lone surrogates (invalid UTF-16, unencodable as UTF-8) → U+FFFD. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD')
}

export interface Cleaned {
  text: string
  /** Characters left out by the cap (0 when nothing was cut). */
  cut: number
}

export function cutMarker(n: number): string {
  return `… [${n.toLocaleString('en-US')} more characters not shown]`
}

/** Cleans `s`; with `max`, keeps at most that many characters (plus the marker). */
export function clean(s: string, max = Infinity): Cleaned {
  let text = s
  let cut = 0
  if (text.length > max) {
    // Never end on the first half of a surrogate pair.
    let end = max
    const c = text.charCodeAt(end - 1)
    if (c >= 0xd800 && c <= 0xdbff) end--
    cut = text.length - end
    text = text.slice(0, end)
  }
  text = wellFormed(text).replace(ANSI, '').replace(/\r\n?/g, '\n').replace(CONTROL, '').replace(BIDI, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`)
  return { text, cut }
}

/** `clean` with the marker appended to the text. */
export function cleanText(s: string, max = Infinity): string {
  const { text, cut } = clean(s, max)
  return cut ? `${text}\n${cutMarker(cut)}` : text
}

/** One line: whitespace runs (newlines included) become one space; cut at `max` with `…`. */
export function oneLine(s: string, max: number): string {
  const t = clean(s, max * 4).text.replace(/\s+/g, ' ').trim()
  return t.length > max ? `${wellFormed(t.slice(0, Math.max(1, max - 1)))}…` : t
}
