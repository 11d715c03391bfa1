/**
 * The redaction engine: finds secrets in a string and replaces each with a
 * stable label `[REDACTED:<kind>:<n>]` (the same secret gets the same label
 * for the life of the Redactor, i.e. one run). Works on plain text and on
 * JSON text (`native.raw`): labels contain no quote or backslash, so JSON
 * stays valid, and a secret seen escaped (`\n` inside a PEM block) gets the
 * same label as its unescaped form.
 *
 * Speed: rules run only when one of their literal keywords occurs in the
 * string (one `indexOf` per distinct keyword, on a lower-cased copy only for
 * the few case-insensitive ones), so ordinary text costs a few scans.
 */
import { readFileSync } from 'node:fs'
import { BASE64_PEM } from './base64.js'
import { KEYWORD, KEYWORD_FORMS } from './keyword.js'
import { entropy, isPlaceholder } from './placeholder.js'
import { MAX_TOKEN, type Rule } from './rule.js'
import { PROVIDER_RULES } from './rules/index.js'
import { STRUCTURAL } from './structural.js'
import { URL_CREDENTIALS } from './url.js'

/** Every built-in detector but keyword context, in priority order. */
const BUILTIN: Rule[] = [...PROVIDER_RULES, BASE64_PEM, URL_CREDENTIALS, ...STRUCTURAL]

export interface RedactOptions {
  /** Replace home directories and the user name (`/home/ada/x` → `~/x`, `ada` → `user`). */
  paths?: boolean
  /** Home directory and user name to hide with `paths` (default: this machine's). */
  home?: string
  user?: string
  /** Redact e-mail addresses. */
  emails?: boolean
  /** Extra rules: a file of lines `kind<TAB or space>regex` (`#` comments). */
  rulesFile?: string
  /** Extra rules as objects. */
  extraRules?: Array<{ kind: string; pattern: string; flags?: string }>
  /** Values that are never redacted (exact strings), and regexes for the same. */
  allow?: string[]
  allowPatterns?: RegExp[]
  /** Turn off keyword context (the generic `password=` / `"api_key": "…"` detector). */
  noGeneric?: boolean
}

export interface Finding {
  kind: string
  /** Where it was found (a record id, a field), as the caller says. */
  where?: string
}

interface Span {
  start: number
  end: number
  kind: string
  /** Rule order: a provider rule beats the generic one on the same span. */
  prio: number
}

const EMAIL: Rule = {
  kind: 'email',
  keywords: ['@'],
  re: /(?<![A-Za-z0-9._%+\-])(?<s>[A-Za-z0-9._%+\-]{1,64}@(?:[A-Za-z0-9\-]{1,63}\.)+[A-Za-z]{2,24})(?![A-Za-z0-9])/dg,
  check: (s) => !/@(?:example\.(?:com|org|net)|localhost|users\.noreply\.github\.com)$/i.test(s) && !/\.(?:png|jpe?g|gif|svg|webp)$/i.test(s),
}

function parseRulesFile(path: string): Rule[] {
  const out: Rule[] = []
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const l = line.trim()
    if (!l || l.startsWith('#')) continue
    const m = /^(\S+)\s+(.+)$/.exec(l)
    if (!m) throw new Error(`${path}: expected "kind regex" in: ${l}`)
    out.push(customRule(m[1]!, m[2]!))
  }
  return out
}

function customRule(kind: string, pattern: string, flags = ''): Rule {
  const re = new RegExp(pattern, [...new Set((flags + 'gd').split(''))].join(''))
  return { kind, keywords: [], re }
}

/** Unescapes the JSON escapes a secret may contain, so raw and text forms share a label. */
function labelKey(kind: string, secret: string): string {
  const k = secret.includes('\\') ? secret.replace(/\\([nrt"\\/])/g, (_m, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c)) : secret
  return kind + '\u0000' + k
}

/** Characters of a token run (as a table, for the candidates loop). */
const TOKEN_TABLE = new Uint8Array(128)
for (let c = 0; c < 128; c++) TOKEN_TABLE[c] = tokenChar(c) ? 1 : 0

/** Characters of a token run: base64, base64url, and `.~` (JWTs, Bearer tokens). */
function tokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61 || c === 95 || c === 45 || c === 46 || c === 126
}

/** Whether `start` follows a JSON escape `\n`, `\r` or `\t` (a boundary, though its letter is alphanumeric). */
function afterEscape(text: string, start: number): boolean {
  if (start < 2 || text.charCodeAt(start - 2) !== 92) return false
  const c = text.charCodeAt(start - 1)
  return c === 110 || c === 114 || c === 116
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

export class Redactor {
  private readonly rules: Rule[]
  private readonly bigrams = new Uint16Array(128 * 128)
  private readonly buckets: Array<Array<{ kw: string; rules: Rule[]; seen: number; context?: boolean }>> = [[]]
  /** Keyword context on (not `noGeneric`); its keyword occurrences in the current string, as start, length pairs. */
  private readonly keywordContext: boolean
  private readonly kwHits: number[] = []
  private bucketDone = new Uint32Array(1)
  private gen = 0
  /** Where each candidate rule's first keyword occurs in the current string: its regex starts a little before. */
  private readonly firstAt = new Map<Rule, number>()
  /** Token runs over MAX_TOKEN long in the current string, as start, end pairs (set by candidates). */
  private readonly runs: number[] = []
  private readonly single = new Map<string, Rule[]>()
  private readonly prio = new Map<Rule, number>()
  private readonly always: Rule[]
  private readonly labels = new Map<string, string>()
  private readonly perKind = new Map<string, number>()
  private readonly allow: Set<string>
  private readonly allowPatterns: RegExp[]
  private readonly pathRe: RegExp | null
  private readonly userRe: RegExp | null
  /** Occurrences replaced, per kind (counted on every replacement). */
  readonly counts = new Map<string, number>()

  constructor(opts: RedactOptions = {}) {
    const rules = [...BUILTIN]
    if (opts.emails) rules.push(EMAIL)
    if (opts.rulesFile) rules.push(...parseRulesFile(opts.rulesFile))
    for (const r of opts.extraRules ?? []) rules.push(customRule(r.kind, r.pattern, r.flags))
    this.rules = rules
    rules.forEach((r, i) => this.prio.set(r, i))
    const byKw = new Map<string, { kw: string; ci: boolean; rules: Rule[] }>()
    this.always = []
    for (const r of rules) {
      if (r.keywords.length === 0) {
        this.always.push(r)
        continue
      }
      for (const k of r.keywords) {
        const kw = r.ci ? k.toLowerCase() : k
        const key = (r.ci ? 'i:' : 's:') + kw
        let e = byKw.get(key)
        if (!e) byKw.set(key, (e = { kw, ci: !!r.ci, rules: [] }))
        if (!e.rules.includes(r)) e.rules.push(r)
      }
    }
    // Case-insensitive keywords are expanded to their lower, upper and capitalised forms.
    const all = new Map<string, Rule[]>()
    for (const e of byKw.values()) {
      const forms = e.ci ? [e.kw, e.kw.toUpperCase(), e.kw[0]!.toUpperCase() + e.kw.slice(1)] : [e.kw]
      for (const f of forms) {
        const cur = all.get(f) ?? []
        for (const r of e.rules) if (!cur.includes(r)) cur.push(r)
        all.set(f, cur)
      }
    }
    for (const [kw, rules] of all) {
      if (kw.length < 2 || kw.charCodeAt(0) >= 128 || kw.charCodeAt(1) >= 128) {
        this.single.set(kw, rules)
        continue
      }
      const key = (kw.charCodeAt(0) << 7) | kw.charCodeAt(1)
      let slot = this.bigrams[key]!
      if (slot === 0) {
        slot = this.buckets.length
        this.buckets.push([])
        this.bigrams[key] = slot
      }
      this.buckets[slot]!.push({ kw, rules, seen: 0 })
    }
    // Keyword-context words go in the same table, reported at every occurrence (never marked seen).
    this.keywordContext = !opts.noGeneric
    if (this.keywordContext) {
      for (const kw of KEYWORD_FORMS) {
        const key = (kw.charCodeAt(0) << 7) | kw.charCodeAt(1)
        let slot = this.bigrams[key]!
        if (slot === 0) {
          slot = this.buckets.length
          this.buckets.push([])
          this.bigrams[key] = slot
        }
        this.buckets[slot]!.push({ kw, rules: [], seen: 0, context: true })
      }
    }
    this.bucketDone = new Uint32Array(this.buckets.length)
    this.allow = new Set(opts.allow ?? [])
    this.allowPatterns = opts.allowPatterns ?? []
    if (opts.paths) {
      const home = opts.home ?? process.env.HOME ?? ''
      const user = opts.user ?? process.env.USER ?? process.env.LOGNAME ?? ''
      const homes = ['/home/[^/\\s"\'\\\\]+', '/Users/[^/\\s"\'\\\\]+', 'C:\\\\{1,2}Users\\\\{1,2}[^\\\\\\s"\']+']
      if (home && home !== '/') homes.unshift(home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      this.pathRe = new RegExp(`(?:${homes.join('|')})(?=[/\\\\]|$|[\\s"'])`, 'g')
      this.userRe = user && user.length >= 3 && user !== 'root' && user !== 'user' ? new RegExp(`(?<![A-Za-z0-9_])${user.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`, 'g') : null
    } else {
      this.pathRe = null
      this.userRe = null
    }
  }

  /** Kinds found so far (`kind → occurrences`), never the secrets. */
  report(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }

  private label(kind: string, secret: string): string {
    const key = labelKey(kind, secret)
    let l = this.labels.get(key)
    if (!l) {
      const n = (this.perKind.get(kind) ?? 0) + 1
      this.perKind.set(kind, n)
      l = `[REDACTED:${kind}:${n}]`
      this.labels.set(key, l)
    }
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
    return l
  }

  private allowed(s: string): boolean {
    if (this.allow.has(s)) return true
    for (const re of this.allowPatterns) if (re.test(s)) return true
    return false
  }

  /**
   * The rules whose keywords occur in `text`: one pass over the string with
   * a table of the keywords' first two characters; a hit is confirmed with
   * `startsWith`. (Faster here than one regex alternation of ~100 literals.)
   */
  private candidates(text: string): Set<Rule> {
    const out = new Set<Rule>(this.always)
    const first = this.firstAt
    for (const r of this.always) first.set(r, 0)
    for (const [kw, rules] of this.single) {
      const at = text.indexOf(kw)
      if (at !== -1) for (const r of rules) if (!out.has(r)) (out.add(r), first.set(r, at))
    }
    const table = this.bigrams
    // A bucket whose keywords were all found is not looked at again in this string.
    const gen = ++this.gen
    const done = this.bucketDone
    const n = text.length - 1
    // Token runs longer than MAX_TOKEN are noted on the way (for hugeRuns), so no second pass is needed.
    const runs = this.runs
    runs.length = 0
    const hits = this.kwHits
    hits.length = 0
    let runStart = -1
    let c0 = text.charCodeAt(0)
    if (c0 < 128 && TOKEN_TABLE[c0] === 1) runStart = 0
    for (let i = 0; i < n; i++) {
      const c1 = text.charCodeAt(i + 1)
      if (c1 < 128 && TOKEN_TABLE[c1] === 1) {
        if (runStart < 0) runStart = i + 1
      } else if (runStart >= 0) {
        if (i + 1 - runStart > MAX_TOKEN) runs.push(runStart, i + 1)
        runStart = -1
      }
      if (c0 < 128 && c1 < 128) {
        const slot = table[(c0 << 7) | c1]!
        if (slot !== 0 && done[slot] !== gen) {
          let open = 0
          for (const e of this.buckets[slot]!) {
            if (e.context) {
              if (text.startsWith(e.kw, i)) hits.push(i, e.kw.length)
              open++
              continue
            }
            if (e.seen === gen) continue
            if (text.startsWith(e.kw, i)) {
              e.seen = gen
              for (const r of e.rules) if (!out.has(r)) (out.add(r), first.set(r, i))
            } else open++
          }
          if (open === 0) done[slot] = gen
        }
      }
      c0 = c1
    }
    if (runStart >= 0 && text.length - runStart > MAX_TOKEN) runs.push(runStart, text.length)
    return out
  }


  /**
   * Redacts one string. Returns the same string when nothing was found;
   * `onFind` is told the kind and label of each replacement (for reports).
   */
  redact(text: string, onFind?: (kind: string, label: string) => void): string {
    if (text.length < 8) return text
    const rules = this.candidates(text)
    if (rules.size === 0 && this.kwHits.length === 0 && !this.pathRe) return text
    let spans: Span[] | null = null
    for (const rule of rules) {
      const prio = this.prio.get(rule) ?? 0
      if (rule.find) {
        for (const [start, end, kind] of rule.find(text)) if (!this.allowed(text.slice(start, end))) (spans ??= []).push({ start, end, kind: kind ?? rule.kind, prio })
        continue
      }
      const re = rule.re
      // Every built-in regex matches within 64 characters before its keyword.
      re.lastIndex = Math.max(0, (this.firstAt.get(rule) ?? 0) - 64)
      let m: RegExpExecArray | null
      while ((m = re.exec(text)) !== null) {
        if (m[0].length === 0) {
          re.lastIndex++
          continue
        }
        let s = m.groups?.s ?? m[0]
        let start = m.indices?.groups?.s?.[0] ?? m.index
        if (rule.back) {
          start -= rule.back
          if (start < 0 || !rule.backRe!.test(text.slice(start, start + rule.back)) || (start > 0 && isAlnum(text.charCodeAt(start - 1)) && !afterEscape(text, start))) continue
          s = text.slice(start, start + rule.back) + s
        }
        if (rule.lb && start > 0 && isAlnum(text.charCodeAt(start - 1)) && !afterEscape(text, start)) continue
        if (rule.entropy !== undefined && entropy(s) < rule.entropy) continue
        if (rule.check && !rule.check(s, m)) continue
        if (!rule.noPlaceholderCheck && isPlaceholder(s)) continue
        if (this.allowed(s)) continue
        ;(spans ??= []).push({ start, end: start + s.length, kind: rule.kind, prio })
      }
    }
    if (this.keywordContext && this.kwHits.length > 0) {
      const prio = this.rules.length
      for (const [start, end] of KEYWORD.findAt(text, this.kwHits)) if (!this.allowed(text.slice(start, end))) (spans ??= []).push({ start, end, kind: KEYWORD.kind, prio })
    }
    if (this.runs.length > 0 && rules.size > this.always.length) spans = this.hugeRuns(text, spans)
    let out = text
    if (spans) out = this.apply(text, spans, onFind)
    if (this.pathRe) out = this.hidePaths(out)
    return out
  }

  /**
   * The linear fallback for token runs longer than any rule's bounded
   * quantifier (a multi-MB `Bearer …` or `xoxb-…`): a run of token characters
   * over MAX_TOKEN long whose start, or the 24 characters before it, holds a
   * rule keyword is redacted whole as `oversized-token`.
   */
  private hugeRuns(text: string, spans: Span[] | null): Span[] | null {
    const runs = this.runs.slice()
    for (let k = 0; k < runs.length; k += 2) {
      const i = runs[k]!
      const ctx = text.slice(Math.max(0, i - 24), i + 24)
      if (this.candidates(ctx).size > this.always.length) (spans ??= []).push({ start: i, end: runs[k + 1]!, kind: 'oversized-token', prio: -1 })
    }
    return spans
  }

  private apply(text: string, spans: Span[], onFind?: (kind: string, label: string) => void): string {
    // Earlier start wins; on a tie the earlier rule (a provider's exact token beats keyword context's looser value), then the longer span. Overlaps go to the first.
    spans.sort((a, b) => a.start - b.start || a.prio - b.prio || b.end - a.end)
    let out = ''
    let pos = 0
    for (const sp of spans) {
      if (sp.start < pos) continue
      const label = this.label(sp.kind, text.slice(sp.start, sp.end))
      out += text.slice(pos, sp.start) + label
      onFind?.(sp.kind, label)
      pos = sp.end
    }
    return out + text.slice(pos)
  }

  private hidePaths(text: string): string {
    let out = text
    if (this.pathRe && (out.includes('/home/') || out.includes('/Users/') || out.includes('Users\\') || out.includes(process.env.HOME ?? '\u0000'))) {
      this.pathRe.lastIndex = 0
      out = out.replace(this.pathRe, () => {
        this.counts.set('home-path', (this.counts.get('home-path') ?? 0) + 1)
        return '~'
      })
    }
    if (this.userRe) {
      this.userRe.lastIndex = 0
      out = out.replace(this.userRe, 'user')
    }
    return out
  }
}

/** Chunks `redactText` cuts a long text into, at line ends: the keyword prefilter then skips the rules a chunk does not need. */
const CHUNK = 4 * 1024

/**
 * Where the chunk starting at `from` ends: a line end after CHUNK
 * characters, moved past the END line of a PEM block the chunk opens (a key
 * is never cut in two; an unterminated block runs to the end of the text).
 */
function chunkEnd(text: string, from: number): number {
  if (text.length - from <= CHUNK) return text.length
  // Prefer a blank line or the start of a JSON line, so that a multi-line context (`.netrc`, `name:`/`value:`) stays in one chunk.
  let end = text.indexOf('\n\n', from + CHUNK)
  if (end === -1 || end > from + CHUNK + 2048) end = text.indexOf('\n{', from + CHUNK)
  if (end === -1 || end > from + CHUNK + 2048) end = text.indexOf('\n', from + CHUNK)
  if (end === -1) return text.length
  end++
  const begin = text.lastIndexOf('-----BEGIN', end)
  if (begin >= from) {
    const close = text.indexOf('-----END', begin)
    if (close === -1) return text.length
    if (close + 8 > end) {
      const nl = text.indexOf('\n', close)
      end = nl === -1 ? text.length : nl + 1
    }
  }
  return end
}

/** Plain-text redaction (`ferry redact --text`): everything else byte for byte unchanged. Long texts are redacted line-aligned chunk by chunk, with one label numbering. */
export function redactText(text: string, opts: RedactOptions & { redactor?: Redactor } = {}): { text: string; found: Record<string, number> } {
  const r = opts.redactor ?? new Redactor(opts)
  if (text.length <= CHUNK) return { text: r.redact(text), found: r.report() }
  const parts: string[] = []
  for (let at = 0; at < text.length; ) {
    const end = chunkEnd(text, at)
    parts.push(r.redact(text.slice(at, end)))
    at = end
  }
  return { text: parts.join(''), found: r.report() }
}
