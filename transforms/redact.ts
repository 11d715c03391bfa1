/**
 * redact: removes secrets (and optionally home paths, user names, e-mail
 * addresses) from every place they hide in a record stream. Its options are
 * `redactOptions` below.
 *
 * What is scanned: every string of every record at any depth — text and
 * thinking, tool inputs (and `native_input`), tool results (and
 * `structured`), unknown blocks, file names, `x` extras, session title, cwd,
 * `git` fields, model names, boundary summaries, end titles and warnings —
 * except the fields that are structure (ids, kinds, timestamps, enums; image
 * and file bytes), and `native.raw` / `native.row` / `native.merged` of every
 * record (JSON text: secrets appear there with escapes; labels keep the JSON
 * valid).
 *
 * Stream rules: a message whose modelled content changed loses `native` (its
 * bytes no longer match); a `native` record (no modelled content) keeps
 * `native` with `raw` rewritten consistently. Thinking blocks whose text
 * changed lose `signature`/`encrypted`. Ids never change. Every session is
 * marked, because its tool inputs may not be what really ran: the header
 * gets `redacted: true` (metadata; a rendered page says it in its footer).
 * The title is left as written (#46: a suffix there was cut mid-word and
 * claimed redaction where nothing was found); the mark alone does not remove
 * the header's `native`.
 *
 * Nothing is printed: the stream emits `finding` for each record with
 * findings and `report` at its end, and keeps the same report in `report`.
 */
import type { Transform } from 'node:stream'
import type { Block, FerryRecord, NativePass, StreamRec, ThinkingBlock } from '../lib/model.js'
import { mapRecords } from '../lib/io/pipeline.js'
import { Redactor } from '../lib/redact/engine.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'

export const redactOptions = defineOptions({
  paths: { type: 'boolean', default: false, describe: 'Home directories → `~`, the user name → `user`' },
  emails: { type: 'boolean', default: false, describe: 'Redact e-mail addresses' },
  rulesFile: { type: 'string', flag: 'rules', describe: 'File of extra rules, one `kind regex` per line (`#` comments)' },
  allow: { type: 'list', describe: 'Values never redacted (exact strings)' },
  check: { type: 'boolean', default: false, describe: 'Write no records, only find; the CLI exits 1 when anything would be redacted' },
  report: { type: 'boolean', default: false, describe: 'Report each record with findings (field path, kind and label, never the secret); the CLI prints it to stderr' },
})

/** `redactor` shares one engine (and so one label numbering) across streams; it is not a CLI option. */
export type RedactTransformOptions = OptionsOf<typeof redactOptions> & { redactor?: Redactor }

/** One replacement: where (a field path such as `blocks[1].input.command` or `native.raw`), what kind, which label — never the value. */
export interface RedactField {
  path: string
  kind: string
  label: string
}

/** Kinds found in one record (never the secret), and with `report` the fields. */
export interface RedactFinding {
  sid: string
  id: string
  kinds: Record<string, number>
  /** With `report`: each replacement (at most 1,000 per record). */
  fields?: RedactField[]
}

/** What a redact stream found: totals per kind, and with `report` the records (at most 100,000). */
export interface RedactReport {
  redacted: Record<string, number>
  records: RedactFinding[]
}

export interface RedactStream extends Transform {
  readonly report: RedactReport
}

const MAX_LISTED = 100_000
const MAX_FIELDS = 1_000

/** Record fields that are structure, not content: ids, kinds, timestamps, enums. Every other field, at any depth, is scanned. */
const RECORD_STRUCTURE = new Set(['kind', 'sid', 'id', 'seq', 'role', 'ts', 'parent', 'native', 'native_type', 'created_at', 'updated_at', 'stop_reason', 'context', 'context_kind', 'redacted', 'branch', 'usage', 'counts', 'type', 'trigger', 'complete', 'context_window', 'title_source', 'pre_tokens', 'replaces_history', 'api_message_id', 'turn'])
/** Block fields that are structure; `data` of images and files is bytes (base64), not text. */
const BLOCK_STRUCTURE = new Set(['type', 'id', 'tool_use_id', 'mime', 'signature', 'encrypted', 'is_error', 'exit_code', 'redacted', 'data', 'provider', 'truncated'])

/** `blocks[1].input.command`: keys joined by dots, indices in brackets. */
function fieldPath(path: Array<string | number>): string {
  let out = ''
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : '.' + seg
  return out
}

export function redact(options: RedactTransformOptions = {}): RedactStream {
  const opts = resolveOptions('redact', redactOptions, options)
  const engine = opts.redactor ?? new Redactor(opts)
  const report: RedactReport = { redacted: {}, records: [] }
  let found: Record<string, number> | null = null
  let fields: RedactField[] | null = null
  // The path of the field being scanned, as keys and indices (`blocks`, 1, `input`), formatted only when a replacement is reported.
  const path: Array<string | number> = []
  const note = (kind: string, label: string): void => {
    found ??= {}
    found[kind] = (found[kind] ?? 0) + 1
    report.redacted[kind] = (report.redacted[kind] ?? 0) + 1
    if (opts.report) {
      fields ??= []
      if (fields.length < MAX_FIELDS) fields.push({ path: fieldPath(path), kind, label })
    }
  }

  /** Maps every string inside a JSON value, keeping references when nothing changed (the path is in `path`). */
  function deep(v: unknown): unknown {
    if (typeof v === 'string') return engine.redact(v, note)
    if (v === null || typeof v !== 'object') return v
    if (Array.isArray(v)) {
      let out: unknown[] | null = null
      for (let i = 0; i < v.length; i++) {
        const x = v[i]
        if (x === null || (typeof x !== 'string' && typeof x !== 'object') || (typeof x === 'string' && x.length < 8)) continue
        path.push(i)
        const n = deep(x)
        path.pop()
        if (n !== x) (out ??= v.slice())[i] = n
      }
      return out ?? v
    }
    let out: Record<string, unknown> | null = null
    for (const k in v) {
      const val = (v as Record<string, unknown>)[k]
      if (val === null || (typeof val !== 'string' && typeof val !== 'object') || (typeof val === 'string' && val.length < 8)) continue
      path.push(k)
      const n = deep(val)
      path.pop()
      if (n !== val) (out ??= { ...(v as Record<string, unknown>) })[k] = n
    }
    return out ?? v
  }

  /** An object's fields but `skip`, each scanned. */
  function fieldsOf<T extends object>(o: T, skip: Set<string>): T {
    let out: Record<string, unknown> | null = null
    for (const k in o) {
      const val = (o as Record<string, unknown>)[k]
      if (val === undefined || skip.has(k)) continue
      path.push(k)
      const n = k === 'blocks' && Array.isArray(val) ? blocksOf(val as Block[]) : deep(val)
      path.pop()
      if (n !== val) (out ??= { ...(o as Record<string, unknown>) })[k] = n
    }
    return (out as T | null) ?? o
  }

  function blocksOf(blocks: Block[]): Block[] {
    let out: Block[] | null = null
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!
      path.push(i)
      let n = fieldsOf(b, BLOCK_STRUCTURE)
      path.pop()
      // Changed thinking text invalidates the provider's signature over it.
      if (n !== b && n.type === 'thinking' && n.text !== (b as ThinkingBlock).text) {
        const { signature: _s, encrypted: _e, ...rest } = n
        n = rest
      }
      if (n !== b) (out ??= blocks.slice())[i] = n
    }
    return out ?? blocks
  }

  function nativeOf(n: NativePass): NativePass {
    path.push('native')
    const out = deep(n) as NativePass
    path.pop()
    return out
  }

  function one(rec: Exclude<FerryRecord, StreamRec>): Exclude<FerryRecord, StreamRec> {
    let out = fieldsOf(rec, RECORD_STRUCTURE)
    const changed = out !== rec
    if (out.kind === 'session' && out.redacted !== true) out = { ...out, redacted: true }
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
      fields = null
      const out = one(rec)
      if (found) {
        const f: RedactFinding = { sid: rec.sid, id: rec.id, kinds: found, ...(fields ? { fields } : {}) }
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
