/**
 * redact: removes secrets (and optionally home paths, user names, e-mail
 * addresses) from every place they hide in a record stream. Its options are
 * `redactOptions` below.
 *
 * What is scanned: text, thinking text, tool_use `input` and `native_input`,
 * tool_result `content` and `structured`, unknown blocks, `x` extras,
 * session `title`/`cwd`/`git.remote`, boundary `summary`, end `title`, and
 * `native.raw` / `native.row` / `native.merged` of every record (JSON text:
 * secrets appear there with escapes; labels keep the JSON valid).
 *
 * Stream rules: a message whose modelled content changed loses `native` (its
 * bytes no longer match); a `native` record (no modelled content) keeps
 * `native` with `raw` rewritten consistently. Thinking blocks whose text
 * changed lose `signature`/`encrypted`. Ids never change. Every session is
 * marked, because its tool inputs may not be what really ran: the header
 * gets `redacted: true` and its title (and the `end` title) the suffix
 * ` [redacted]`, which every agent shows; the mark alone does not remove the
 * header's `native`.
 *
 * Nothing is printed: the stream emits `finding` for each record with
 * findings and `report` at its end, and keeps the same report in `report`.
 */
import type { Transform } from 'node:stream'
import type { Block, FerryRecord, MessageRec, NativePass, SessionRec, StreamRec } from '../lib/model.js'
import { mapRecords } from '../lib/pipeline.js'
import { Redactor } from '../lib/redact/engine.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'
import { mapStrings } from './util.js'

export const redactOptions = defineOptions({
  paths: { type: 'boolean', default: false, describe: 'Home directories → `~`, the user name → `user`' },
  emails: { type: 'boolean', default: false, describe: 'Redact e-mail addresses' },
  rulesFile: { type: 'string', flag: 'rules', describe: 'File of extra rules, one `kind regex` per line (`#` comments)' },
  allow: { type: 'list', describe: 'Values never redacted (exact strings)' },
  check: { type: 'boolean', default: false, describe: 'Write no records, only find; the CLI exits 1 when anything would be redacted' },
  report: { type: 'boolean', default: false, describe: 'Report each record with findings (kinds and counts, never the secret); the CLI prints it to stderr' },
})

/** `redactor` shares one engine (and so one label numbering) across streams; it is not a CLI option. */
export type RedactTransformOptions = OptionsOf<typeof redactOptions> & { redactor?: Redactor }

/** Kinds found in one record (never the secret). */
export interface RedactFinding {
  sid: string
  id: string
  kinds: Record<string, number>
}

/** What a redact stream found: totals per kind, and with `report` the records (at most 100,000). */
export interface RedactReport {
  redacted: Record<string, number>
  records: RedactFinding[]
}

export interface RedactStream extends Transform {
  readonly report: RedactReport
}

const REDACTED_SUFFIX = ' [redacted]'

function markTitle(title: string | undefined): string {
  if (title === undefined || title === '') return REDACTED_SUFFIX.trim()
  return title.endsWith(REDACTED_SUFFIX) || title === REDACTED_SUFFIX.trim() ? title : title + REDACTED_SUFFIX
}

const MAX_LISTED = 100_000

export function redact(options: RedactTransformOptions = {}): RedactStream {
  const opts = resolveOptions('redact', redactOptions, options)
  const engine = opts.redactor ?? new Redactor(opts)
  const report: RedactReport = { redacted: {}, records: [] }
  let found: Record<string, number> | null = null
  const note = (kind: string): void => {
    found ??= {}
    found[kind] = (found[kind] ?? 0) + 1
    report.redacted[kind] = (report.redacted[kind] ?? 0) + 1
  }
  const red = (s: string): string => engine.redact(s, note)
  const deep = <T>(v: T): T => mapStrings(v, red) as T

  function block(b: Block): Block {
    switch (b.type) {
      case 'text': {
        const t = red(b.text)
        return t === b.text ? b : { ...b, text: t }
      }
      case 'thinking': {
        const t = red(b.text)
        if (t === b.text) return b
        const { signature: _s, encrypted: _e, ...rest } = b
        return { ...rest, text: t }
      }
      case 'tool_use': {
        const input = deep(b.input)
        const ni = b.native_input === undefined ? undefined : deep(b.native_input)
        if (input === b.input && ni === b.native_input) return b
        return { ...b, input, ...(ni === undefined ? {} : { native_input: ni }) }
      }
      case 'tool_result': {
        const content = deep(b.content)
        const structured = b.structured === undefined ? undefined : deep(b.structured)
        if (content === b.content && structured === b.structured) return b
        return { ...b, content, ...(structured === undefined ? {} : { structured }) }
      }
      case 'unknown': {
        const value = deep(b.value)
        return value === b.value ? b : { ...b, value }
      }
      default:
        return b
    }
  }

  function nativeOf(n: NativePass): NativePass {
    const raw = n.raw === undefined ? undefined : red(n.raw)
    const row = n.row === undefined ? undefined : deep(n.row)
    const merged = n.merged === undefined ? undefined : deep(n.merged)
    if (raw === n.raw && row === n.row && merged === n.merged) return n
    return { ...n, ...(raw === undefined ? {} : { raw }), ...(row === undefined ? {} : { row }), ...(merged === undefined ? {} : { merged }) }
  }

  function one(rec: Exclude<FerryRecord, StreamRec>): Exclude<FerryRecord, StreamRec> {
    let out: Exclude<FerryRecord, StreamRec> = rec
    let changed = false
    const x = rec.x === undefined ? undefined : deep(rec.x)
    if (x !== rec.x) {
      out = { ...out, x } as typeof out
      changed = true
    }
    switch (rec.kind) {
      case 'session': {
        const s = out as SessionRec
        const title = s.title === undefined ? undefined : red(s.title)
        const cwd = s.cwd === undefined ? undefined : red(s.cwd)
        const remote = s.git?.remote === undefined ? undefined : red(s.git.remote)
        const next: SessionRec = { ...s, redacted: true, title: markTitle(title) }
        if (title !== s.title) changed = true
        if (cwd !== s.cwd) (next.cwd = cwd), (changed = true)
        if (remote !== s.git?.remote) (next.git = { ...s.git, remote }), (changed = true)
        out = next
        break
      }
      case 'message': {
        const m = out as MessageRec
        let blocks: Block[] | null = null
        m.blocks.forEach((b, i) => {
          const n = block(b)
          if (n !== b) {
            blocks ??= m.blocks.slice()
            blocks[i] = n
          }
        })
        if (blocks) {
          out = { ...m, blocks }
          changed = true
        }
        break
      }
      case 'boundary': {
        if (out.kind === 'boundary' && out.summary !== undefined) {
          const s = red(out.summary)
          if (s !== out.summary) (out = { ...out, summary: s }), (changed = true)
        }
        break
      }
      case 'end': {
        if (out.kind === 'end' && out.title !== undefined) {
          const t = red(out.title)
          if (t !== out.title) changed = true
          out = { ...out, title: markTitle(t) }
        }
        break
      }
    }
    if (out.native) {
      if (changed && rec.kind !== 'native') {
        const { native: _n, ...rest } = out
        out = rest as typeof out
      } else {
        const n = nativeOf(out.native)
        if (n !== out.native) out = { ...out, native: n } as typeof out
      }
    }
    return out
  }

  const stream = mapRecords(
    (rec) => {
      if (rec.kind === 'stream') return opts.check ? null : rec
      found = null
      const out = one(rec)
      if (found) {
        const f: RedactFinding = { sid: rec.sid, id: rec.id, kinds: found }
        if (opts.report && report.records.length < MAX_LISTED) report.records.push(f)
        stream.emit('finding', f)
      }
      return opts.check ? null : out
    },
    () => void stream.emit('report', report),
  ) as Transform & { report: RedactReport }
  stream.report = report
  return stream
}
