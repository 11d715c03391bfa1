/**
 * What a detection rule is, and the regex helpers rules are written with.
 * A rule has a kind (the label's `[REDACTED:<kind>:N]`), literal `keywords` of
 * which at least one must occur in the text before it runs (the prefilter),
 * and either a regex whose group `s` (or whole match) is the secret, or a
 * linear `find` function returning spans.
 */

export interface Rule {
  kind: string
  keywords: string[]
  /** Match the keywords case-insensitively. */
  ci?: boolean
  re: RegExp
  /** The secret must not follow an alphanumeric (a JSON escape like `\n` is fine). Checked in code, so the regex keeps its literal prefix fast. */
  lb?: boolean
  /** The secret starts this many characters before the match (a lookbehind checked them); keeps a literal first. */
  back?: number
  /** What those `back` characters must look like (and no alphanumeric before them). */
  backRe?: RegExp
  /** Shannon entropy (bits/char) the secret must reach; filters placeholders. */
  entropy?: number
  /** A linear finder used instead of `re`: spans of secrets, optionally with their own kind. */
  find?: (text: string) => Array<[number, number] | [number, number, string]>
  /** A value check beyond entropy. */
  check?: (secret: string, match: RegExpExecArray) => boolean
  /** Skip the shared placeholder check (the rule's own check is stricter or the shape cannot be one). */
  noPlaceholderCheck?: boolean
}

/** Left boundary: start, a non-alphanumeric, or a JSON escape `\n` `\t` `\r`. */
const L = String.raw`(?:(?<=\\[nrt])|(?<![A-Za-z0-9]))`
/** Right boundary: not followed by an alphanumeric. */
const R = String.raw`(?![A-Za-z0-9])`

/** The longest token a quantifier takes: every open-ended `{n,}` is bounded (a multi-MB run must not overflow the regex stack); longer runs go to the engine's linear huge-run pass. */
export const MAX_TOKEN = 4096

export function rx(src: string, flags = 'dg'): RegExp {
  return new RegExp(src.replace(/\{L\}/g, L).replace(/\{R\}/g, R).replace(/\{(\d+),\}/g, `{$1,${MAX_TOKEN}}`), flags)
}

/** A provider rule: `{L}` at the start of `src` becomes a left-boundary check in code. */
export const p = (kind: string, keywords: string[], src: string, entropy = 3): Rule => {
  const lb = src.startsWith('{L}')
  return { kind, keywords, re: rx(lb ? src.slice(3) : src), entropy, ...(lb ? { lb } : {}) }
}
