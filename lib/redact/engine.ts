/**
 * The redaction engine: finds secrets in a string and replaces each with a
 * stable label `[REDACTED:<kind>:<n>]` (the same secret gets the same label
 * for the life of the Redactor, i.e. one run). Works on plain text and on
 * JSON text (`native.raw`): labels contain no quote or backslash, so JSON
 * stays valid, and a secret seen escaped (`\n` inside a PEM block) gets the
 * same label as its unescaped form.
 *
 * Speed: rules run only when one of their literal keywords occurs in the
 * string, found in one byte scan of the string (`candidates`; see
 * lib/redact/README.md), so ordinary text costs one pass.
 */
import { readFileSync } from 'node:fs'
import { BASE64_PEM } from './base64.js'
import { homePathPattern } from './home-path.js'
import { KEYWORD, KEYWORD_FORMS, KEYWORD_WORD_END } from './keyword.js'
import { entropy, isPlaceholder } from './placeholder.js'
import { MAX_TOKEN, type Rule } from './rule.js'
import { PROVIDER_RULES } from './rules/index.js'
import { STRUCTURAL } from './structural.js'
import { URL_CREDENTIALS } from './url.js'
import { USER_SECRET } from './userpass.js'
import { PROVIDER_CONTEXT } from './provider.js'

/** Every built-in detector but keyword context, in priority order. */
const BUILTIN: Rule[] = [...PROVIDER_RULES, BASE64_PEM, URL_CREDENTIALS, ...STRUCTURAL, ...USER_SECRET, PROVIDER_CONTEXT]

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

/** What candidates scans, a window of the string at a time (even, so windows keep their parity). */
const SCAN_WINDOW = 64 * 1024
// Its own ArrayBuffer, so the 16-bit view below is aligned (a pooled Buffer may start at an odd offset).
const SCAN = Buffer.from(new ArrayBuffer(SCAN_WINDOW + 4))
/** The scan buffer as pairs: one load reads a window's two characters (in this order on little-endian machines). */
const SCAN16 = new Uint16Array(SCAN.buffer, SCAN.byteOffset, (SCAN_WINDOW + 4) >> 1)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** How often letters occur in English text and code, per mille (lower case); a space is the commonest character of all. */
const LETTER_FREQ: Record<string, number> = { ' ': 180, e: 127, t: 91, a: 82, o: 75, i: 70, n: 67, s: 63, h: 61, r: 60, d: 43, l: 40, c: 28, u: 28, m: 24, w: 24, f: 22, g: 20, y: 20, p: 19, b: 15, v: 10, k: 8, j: 2, x: 2, q: 1, z: 1 }
/** Capitals are about a tenth as common as their lower case; digits and punctuation count 10. */
const charFreq = (c: string): number => LETTER_FREQ[c] ?? (LETTER_FREQ[c.toLowerCase()] ?? 100) / 10
/** The commonest pairs of English and of code identifiers, rated like the commonest letters. */
const COMMON_PAIRS = new Set('th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ta ec ol pe ct ss ac et ns'.split(' '))
const pairFreq = (a: string, b: string): number => (COMMON_PAIRS.has((a + b).toLowerCase()) ? 180 * 180 : charFreq(a) * charFreq(b))

/**
 * Token runs longer than MAX_TOKEN in `text`, as start, end pairs into `out`.
 * Such a run covers two probe points MAX_TOKEN / 2 apart, so only the
 * characters around token-character probes are looked at.
 */
function longRuns(text: string, out: number[]): void {
  const step = MAX_TOKEN >> 1
  const isTok = (i: number): boolean => {
    const c = text.charCodeAt(i)
    return c < 128 && TOKEN_TABLE[c] === 1
  }
  let end = 0
  for (let p = step; p < text.length; p += step) {
    if (p < end || !isTok(p) || !isTok(p - step)) continue
    let s = p
    while (s > end && isTok(s - 1)) s--
    if (p - s < step) continue
    let e = p + 1
    while (e < text.length && isTok(e)) e++
    if (e - s > MAX_TOKEN) out.push(s, e)
    end = e
  }
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

/** One keyword of the prefilter table: where its occurrence starts relative to the window that found it. */
interface Entry {
  kw: string
  /** The keyword starts at window + delta (the scan looks at every other window, so each keyword is filed under two). */
  delta: number
  /** Indices of the rules it selects (empty for keyword context). */
  rules: number[]
  /** Generation (string) in which it was last found. */
  seen: number
  /** A keyword-context word: every occurrence is reported, never marked seen. */
  context: boolean
  /** Keyword context: the word must end the identifier there (`sig`, not `signal`). */
  wordEnd: boolean
}

export class Redactor {
  private readonly rules: Rule[]
  /** Bucket of each two-character window (ASCII pairs, `c0 << 7 | c1`); 0 is none. */
  private readonly bigrams = new Uint16Array(128 * 128)
  private readonly buckets: Entry[][] = [[]]
  /** Keyword context on (not `noGeneric`); its keyword occurrences in the current string, as start, length pairs. */
  private readonly keywordContext: boolean
  private readonly kwHits: number[] = []
  private bucketDone = new Uint32Array(1)
  private gen = 0
  /** Where each candidate rule's first keyword occurs in the current string (by rule index): its regex starts a little before. */
  private readonly firstAt: Int32Array
  /** The generation in which each rule (by index) became a candidate. */
  private readonly ruleGen: Uint32Array
  /** The candidate rules of the current string, by index (set by candidates). */
  private readonly cand: number[] = []
  /** Token runs over MAX_TOKEN long in the current string, as start, end pairs (set by candidates). */
  private readonly runs: number[] = []
  private readonly single = new Map<string, number[]>()
  private readonly always: number[]
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
    this.firstAt = new Int32Array(rules.length)
    this.ruleGen = new Uint32Array(rules.length)
    const byKw = new Map<string, { kw: string; ci: boolean; rules: number[] }>()
    this.always = []
    rules.forEach((r, i) => {
      if (r.keywords.length === 0) {
        this.always.push(i)
        return
      }
      for (const k of r.keywords) {
        const kw = r.ci ? k.toLowerCase() : k
        const key = (r.ci ? 'i:' : 's:') + kw
        let e = byKw.get(key)
        if (!e) byKw.set(key, (e = { kw, ci: !!r.ci, rules: [] }))
        if (!e.rules.includes(i)) e.rules.push(i)
      }
    })
    // Case-insensitive keywords are expanded to their lower, upper and capitalised forms.
    const all = new Map<string, number[]>()
    for (const e of byKw.values()) {
      const forms = e.ci ? [e.kw, e.kw.toUpperCase(), e.kw[0]!.toUpperCase() + e.kw.slice(1)] : [e.kw]
      for (const f of forms) {
        const cur = all.get(f) ?? []
        for (const r of e.rules) if (!cur.includes(r)) cur.push(r)
        all.set(f, cur)
      }
    }
    for (const [kw, ruleIds] of all) {
      if (!this.file(kw, ruleIds, false, false)) this.single.set(kw, ruleIds)
    }
    // Keyword-context words go in the same table, reported at every occurrence (never marked seen).
    this.keywordContext = !opts.noGeneric
    if (this.keywordContext) for (const kw of KEYWORD_FORMS) this.file(kw, [], true, KEYWORD_WORD_END.has(kw.toLowerCase()))
    this.bucketDone = new Uint32Array(this.buckets.length)
    this.allow = new Set(opts.allow ?? [])
    this.allowPatterns = opts.allowPatterns ?? []
    if (opts.paths) {
      const home = opts.home ?? process.env.HOME ?? ''
      const user = opts.user ?? process.env.USER ?? process.env.LOGNAME ?? ''
      this.pathRe = homePathPattern(home)
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
   * Files a keyword in the window table under its least common window of two
   * characters (the scan looks at every window, so one is enough). False when
   * it cannot be filed (one character, no window of two ASCII characters).
   */
  private file(kw: string, rules: number[], context: boolean, wordEnd: boolean): boolean {
    let best = -1
    for (let j = 0; j + 1 < kw.length; j++) {
      if (kw.charCodeAt(j) > 127 || kw.charCodeAt(j + 1) > 127) continue
      if (best === -1 || pairFreq(kw[j]!, kw[j + 1]!) < pairFreq(kw[best]!, kw[best + 1]!)) best = j
    }
    if (best === -1) return false
    const key = (kw.charCodeAt(best) << 7) | kw.charCodeAt(best + 1)
    let slot = this.bigrams[key]!
    if (slot === 0) {
      slot = this.buckets.length
      this.buckets.push([])
      this.bigrams[key] = slot
    }
    this.buckets[slot]!.push({ kw, delta: -best, rules, seen: 0, context, wordEnd })
    return true
  }

  /**
   * The rules whose keywords occur in `text` (into `cand`), and the
   * keyword-context occurrences (into `kwHits`): one pass over the windows of
   * two characters, each looked up in the table of the keywords' least
   * common windows, a hit confirmed with `startsWith`. Non-ASCII
   * characters are folded onto ASCII for the lookup (only a wasted
   * `startsWith`). Faster here than one regex alternation, even a trie, of
   * the ~150 literals.
   */
  private candidates(text: string): void {
    const cand = this.cand
    cand.length = 0
    const gen = ++this.gen
    const first = this.firstAt
    const ruleGen = this.ruleGen
    for (const r of this.always) (cand.push(r), (first[r] = 0), (ruleGen[r] = gen))
    for (const [kw, rules] of this.single) {
      const at = text.indexOf(kw)
      if (at !== -1) for (const r of rules) if (ruleGen[r] !== gen) (cand.push(r), (first[r] = at), (ruleGen[r] = gen))
    }
    const hits = this.kwHits
    hits.length = 0
    const n = text.length
    // The scan reads bytes: `charCodeAt` on a sliced string (every chunk of `redactText`, many JSON fields) unwraps it at each call.
    // latin1 writes each UTF-16 unit's low byte, and `& 127` folds it like any non-ASCII character.
    const buf = SCAN
    for (let base = 0; base < n; base += SCAN_WINDOW) {
      const len = Math.min(SCAN_WINDOW + 1, n - base)
      buf.write(base === 0 && len === n ? text : text.slice(base, base + len), 0, len, 'latin1')
      buf[len] = 0
      buf[len + 1] = 0
      buf[len + 2] = 0
      const stop = Math.min(SCAN_WINDOW, len)
      this.scan(text, base, stop, gen)
    }
    const runs = this.runs
    runs.length = 0
    if (n > MAX_TOKEN) longRuns(text, runs)
  }

  /**
   * The windows of SCAN up to `stop` (text from `base`), kept apart from
   * candidates' set-up so that this loop alone is compiled hot.
   */
  private scan(text: string, base: number, stop: number, gen: number): void {
    const table = this.bigrams
    const done = this.bucketDone
    if (!LITTLE_ENDIAN) {
      for (let j = 0; j < stop; j++) {
        const slot = table[((SCAN[j]! & 127) << 7) | (SCAN[j + 1]! & 127)]!
        if (slot !== 0 && done[slot] !== gen) this.visit(text, slot, base + j, gen)
      }
      return
    }
    const u16 = SCAN16
    // Two characters a load: `w0` holds the window at j, `w1` the one at j + 2; the window at j + 1 is w0's high byte and w1's low one.
    let w0 = u16[0]!
    for (let j = 0, k = 1; j < stop; j += 2, k++) {
      const w1 = u16[k]!
      const slot = table[((w0 & 127) << 7) | ((w0 >>> 8) & 127)]!
      if (slot !== 0 && done[slot] !== gen) this.visit(text, slot, base + j, gen)
      const o = table[((w0 >>> 1) & (127 << 7)) | (w1 & 127)]!
      if (o !== 0 && done[o] !== gen) this.visit(text, o, base + j + 1, gen)
      w0 = w1
    }
  }

  /** The keywords of one bucket at window `i`: context occurrences into kwHits, rules into cand. */
  private visit(text: string, slot: number, i: number, gen: number): void {
    const cand = this.cand
    const first = this.firstAt
    const ruleGen = this.ruleGen
    const hits = this.kwHits
    const bucket = this.buckets[slot]!
    let open = 0
    for (let k = 0; k < bucket.length; k++) {
      const e = bucket[k]!
      const at = i + e.delta
      if (e.context) {
        open++
        if (at >= 0 && text.startsWith(e.kw, at)) {
          const next = at + e.kw.length
          // `sig`, `pat` end the identifier (not `signal`, `path`).
          if (e.wordEnd && ((text.charCodeAt(next) | 32) - 97) >>> 0 < 26) continue
          hits.push(at, e.kw.length)
        }
        continue
      }
      if (e.seen === gen) continue
      if (at >= 0 && text.startsWith(e.kw, at)) {
        e.seen = gen
        for (const r of e.rules) if (ruleGen[r] !== gen) (cand.push(r), (first[r] = at), (ruleGen[r] = gen))
      } else open++
    }
    if (open === 0) this.bucketDone[slot] = gen
  }

  /**
   * Redacts one string. Returns the same string when nothing was found;
   * `onFind` is told the kind and label of each replacement (for reports).
   */
  redact(text: string, onFind?: (kind: string, label: string) => void): string {
    if (text.length < 8) return text
    this.candidates(text)
    const cand = this.cand
    if (cand.length === 0 && this.kwHits.length === 0) return this.pathRe ? this.hidePaths(text, onFind) : text
    let spans: Span[] | null = null
    // The list is reused by hugeRuns' candidates calls: copy what this string needs.
    const ids = cand.length > 0 ? cand.slice() : cand
    for (const id of ids) {
      const rule = this.rules[id]!
      const prio = id
      if (rule.find) {
        for (const [start, end, kind] of rule.find(text)) if (!this.allowed(text.slice(start, end))) (spans ??= []).push({ start, end, kind: kind ?? rule.kind, prio })
        continue
      }
      const re = rule.re
      // Every built-in regex matches within 64 characters before its keyword.
      re.lastIndex = Math.max(0, this.firstAt[id]! - 64)
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
    if (this.runs.length > 0 && ids.length > this.always.length) spans = this.hugeRuns(text, spans)
    let out = text
    if (spans) out = this.apply(text, spans, onFind)
    if (this.pathRe) out = this.hidePaths(out, onFind)
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
      this.candidates(text.slice(Math.max(0, i - 24), i + 24))
      if (this.cand.length > this.always.length) (spans ??= []).push({ start: i, end: runs[k + 1]!, kind: 'oversized-token', prio: -1 })
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

  /** Home directories → `~` (each told to `onFind` as kind `home-path`, label `~`), the user name → `user`. */
  private hidePaths(text: string, onFind?: (kind: string, label: string) => void): string {
    let out = text
    if (this.pathRe && (out.includes('/home/') || out.includes('/Users/') || out.includes('Users\\') || out.includes(process.env.HOME ?? '\u0000'))) {
      this.pathRe.lastIndex = 0
      out = out.replace(this.pathRe, () => {
        this.counts.set('home-path', (this.counts.get('home-path') ?? 0) + 1)
        onFind?.('home-path', '~')
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
  // Searched in a window: an unbounded indexOf or lastIndexOf would make the chunking quadratic in a text without them.
  const win = text.slice(from + CHUNK, from + CHUNK + 2050)
  let end = win.indexOf('\n\n')
  if (end === -1) end = win.indexOf('\n{')
  if (end === -1) end = win.indexOf('\n')
  end = end === -1 ? text.indexOf('\n', from + CHUNK + 2050) : from + CHUNK + end
  if (end === -1) return text.length
  end++
  const at = text.slice(from, end).lastIndexOf('-----BEGIN')
  const begin = at === -1 ? -1 : from + at
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

/** How far past a chunk's start chunkEnd may look before it can decide (CHUNK and its 2 KB window). */
const DECIDE = CHUNK + 2050

/**
 * Plain-text redaction fed piece by piece (`ferry redact --text` on stdin):
 * the same line-aligned chunks as redactText over the whole text, so the
 * output is the same byte for byte, with memory flat in the input. A chunk
 * is cut only once the text it looks at is all here: its window, and its
 * end (a line end, the END line of a PEM block it opens) before the end of
 * what was fed.
 */
export class TextRedactor {
  private pending = ''
  /** Pending length at which an undecided chunk is tried again (doubling: an unterminated PEM block or a line of MBs stays linear). */
  private retryAt = 0

  constructor(readonly redactor: Redactor) {}

  /** Adds text; returns the redacted text of the chunks now decided (often empty). */
  push(text: string): string {
    this.pending += text
    const pending = this.pending
    if (pending.length < this.retryAt || pending.length < DECIDE) return ''
    const parts: string[] = []
    let at = 0
    while (at + DECIDE <= pending.length) {
      const end = chunkEnd(pending, at)
      if (end >= pending.length) break
      parts.push(this.redactor.redact(pending.slice(at, end)))
      at = end
    }
    this.pending = at === 0 ? pending : pending.slice(at)
    this.retryAt = at === 0 ? 2 * pending.length : 0
    return parts.length === 1 ? parts[0]! : parts.join('')
  }

  /** The rest, at the end of the input. */
  end(): string {
    const text = this.pending
    this.pending = ''
    this.retryAt = 0
    if (text.length <= CHUNK) return this.redactor.redact(text)
    const parts: string[] = []
    for (let at = 0; at < text.length; ) {
      const end = chunkEnd(text, at)
      parts.push(this.redactor.redact(text.slice(at, end)))
      at = end
    }
    return parts.join('')
  }
}

/** Plain-text redaction (`ferry redact --text`): everything else byte for byte unchanged. Long texts are redacted line-aligned chunk by chunk, with one label numbering. */
export function redactText(text: string, opts: RedactOptions & { redactor?: Redactor } = {}): { text: string; found: Record<string, number> } {
  const r = opts.redactor ?? new Redactor(opts)
  const t = new TextRedactor(r)
  const out = t.push(text)
  return { text: out + t.end(), found: r.report() }
}
