/**
 * ferry interchange stream (JSON Lines) → records.
 *
 * Every line is one record. A line that is not JSON, not an object, or has no
 * `kind` becomes a located diagnostic (file, 1-based line) and is skipped;
 * the lines around it still come through. A session whose `ferry` major
 * version we do not know is refused (reported, its records skipped) rather
 * than guessed at.
 *
 * The same entry also accepts a plain JSON document with a Messages-style
 * `messages` array (see messages-doc.ts): it is recognised from the first
 * non-blank line, before anything is emitted.
 */
import { Transform, type TransformCallback } from 'node:stream'
import parser from 'stream-json/parser.js'
import { LineSplitter, DEFAULT_MAX_LINE_BYTES } from '../io/lines.js'
import { destroyWhenDrained } from '../io/drain.js'
import { MAX_NESTING, nestsDeeper } from '../io/line-file.js'
import { recordProblem, withHeaderDefaults } from './validate.js'
import type { Diagnostics } from '../diagnostics.js'
import { FerryError } from '../errors.js'
import type { FerryRecord } from '../model.js'
import { MessagesDocReader } from './messages-doc.js'

const SUPPORTED_MAJOR = 1

export interface ParseOptions {
  /** Name for diagnostics (`-` for stdin). */
  file?: string
  diagnostics: Diagnostics
  maxLineBytes?: number
  /** The reading harness's id: named in reports, and given to sessions read from a Messages document. */
  harness: string
}

type Mode = 'undecided' | 'lines' | 'document'

export function parseStream(opts: ParseOptions): Transform {
  const file = opts.file ?? '<stdin>'
  const diags = opts.diagnostics
  const SOURCE = opts.harness
  // Set while the splitter flushes an unterminated last line: one that does not parse was cut short.
  let flushing = false
  let mode: Mode = 'undecided'
  let head: Buffer[] = []
  let skipSid: string | null = null
  let out: Transform

  const onLine = (buf: Buffer, no: number) => {
    if (buf.length === 0 || (buf.length === 1 && buf[0] === 0x0d)) return
    let rec: unknown
    try {
      rec = JSON.parse(buf.toString('utf8'))
    } catch (err) {
      if (flushing) diags.error('torn-line', `last line has no newline and does not parse (cut short?): ${(err as Error).message}`, { file, line: no + 1 }, SOURCE)
      else diags.error('bad-line', `not valid JSON: ${(err as Error).message}`, { file, line: no + 1 }, SOURCE)
      return
    }
    if (rec !== null && typeof rec === 'object' && nestsDeeper(buf)) {
      diags.error('bad-line', `nested deeper than ${MAX_NESTING} levels; skipped`, { file, line: no + 1 }, SOURCE)
      return
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec) || typeof (rec as { kind?: unknown }).kind !== 'string') {
      diags.error('bad-record', 'not a ferry record (a JSON object with a "kind")', { file, line: no + 1 }, SOURCE)
      return
    }
    const problem = recordProblem(rec as Record<string, unknown>)
    if (problem) {
      diags.error('bad-record', `${problem}; skipped`, { file, line: no + 1 }, SOURCE)
      return
    }
    const r = withHeaderDefaults(rec as Record<string, unknown>, SOURCE) as unknown as FerryRecord
    if (r.kind === 'session') {
      skipSid = null
      const major = Number(String(r.ferry ?? '1').split('.')[0])
      if (major !== SUPPORTED_MAJOR) {
        diags.error('bad-version', `session ${r.sid} uses ferry format ${r.ferry}; this ferry reads ${SUPPORTED_MAJOR}.x`, { file, line: no + 1 }, SOURCE)
        skipSid = r.sid
        return
      }
    } else if (skipSid !== null && 'sid' in r && r.sid === skipSid) return
    out.push(r)
  }

  const splitter = new LineSplitter({
    onLine,
    maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    onOverlong: (no, bytes) => diags.error('line-too-long', `line of ${bytes} bytes is over the ${opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES}-byte cap (--max-line-bytes); skipped`, { file, line: no + 1 }, SOURCE),
  })

  let doc: { write: (b: Buffer) => void; end: () => void } | null = null
  const startDocument = () => {
    const reader = new MessagesDocReader((rec) => out.push(rec), opts.harness, opts.file === '<stdin>' ? undefined : opts.file, (e) => diags.error('bad-record', `${e.message}; skipped`, { file }, SOURCE))
    const p = parser.asStream()
    p.on('data', (tok: { name: string; value?: unknown }) => {
      try {
        reader.consume(tok)
      } catch (err) {
        p.destroy(err as Error)
      }
    })
    doc = {
      write: (b) => p.write(b),
      end: () => p.end(),
    }
    const done = new Promise<void>((res, rej) => {
      p.on('error', (err) => (docError ??= err))
      p.on('end', () => {
        reader.end()
        res()
      })
      p.on('error', (err) =>
        rej(err instanceof FerryError ? err : new FerryError(`not a valid JSON document: ${err.message}`, { code: 'bad-document', source: opts.harness, position: { file } })),
      )
    })
    // Awaited in flush; an error before then must not surface as an unhandled rejection.
    done.catch(() => {})
    return done
  }
  let docError: Error | null = null
  let docDone: Promise<void> | null = null

  /**
   * Looks at what arrived so far: decides once the first non-blank line is
   * complete. A document is recognised only by what a document starts with
   * (`[`, an object without `kind`, or a first line that is not JSON and
   * names no `kind` — pretty-printed `{`); a damaged or over-long first
   * record line stays a line stream, so one bad line loses one record.
   */
  const decide = (final: boolean): boolean => {
    let all = Buffer.concat(head)
    // A UTF-8 BOM (editors on Windows) is not part of the first line or of the document.
    if (all.length >= 3 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf) all = all.subarray(3)
    else if (all.length < 3 && !final && all.length > 0 && all[0] === 0xef) return false
    let i = 0
    while (i < all.length && (all[i] === 0x20 || all[i] === 0x0a || all[i] === 0x0d || all[i] === 0x09)) i++
    if (i >= all.length && !final) return false
    const nl = all.indexOf(0x0a, i)
    if (nl < 0 && !final && all.length < 1024 * 1024) return false
    const first = all.subarray(i, nl < 0 ? all.length : nl).toString('utf8')
    let isDoc = false
    if (first.startsWith('[')) {
      // A document is one JSON value: a first line that is a whole array with records after it is a damaged stream.
      const rest = nl < 0 ? '' : all.subarray(nl + 1, nl + 1 + 4096).toString('utf8')
      if (rest.trim() === '' && !final && nl >= 0) return false
      let whole = false
      try {
        JSON.parse(first)
        whole = true
      } catch {
        whole = false
      }
      isDoc = whole ? rest.trim() === '' : !/"kind"\s*:/.test(rest)
    } else if (first.startsWith('{')) {
      const rest = nl < 0 ? '' : all.subarray(nl + 1, nl + 1 + 4096).toString('utf8')
      try {
        const v = JSON.parse(first) as unknown
        const noKind = typeof v !== 'object' || v === null || typeof (v as { kind?: unknown }).kind !== 'string'
        // A whole object with more lines after it is no document (that is one value): a stream whose first record is damaged.
        if (noKind && rest.trim() === '' && !final && nl >= 0) return false
        isDoc = noKind && rest.trim() === ''
      } catch {
        isDoc = !/"kind"\s*:/.test(first.slice(0, 4096))
      }
    }
    head = []
    if (isDoc) {
      mode = 'document'
      docDone = startDocument()
      doc!.write(all)
    } else {
      mode = 'lines'
      splitter.push(all)
    }
    return true
  }

  out = new Transform({
    readableObjectMode: true,
    readableHighWaterMark: 64,
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      if (mode === 'lines') splitter.push(chunk)
      else if (mode === 'document') {
        if (docError) return cb()
        doc!.write(chunk)
      }
      else {
        head.push(chunk)
        decide(false)
      }
      cb()
    },
    flush(cb) {
      if (mode === 'undecided') decide(true)
      if (mode === 'lines') {
        flushing = true
        splitter.end()
        flushing = false
        return cb()
      }
      if (mode === 'document') {
        doc!.end()
        // Not cb(err): the records parsed before the damage may still wait in the buffer.
        docDone!.then(() => cb(), (err: Error) => destroyWhenDrained(out, err))
        return
      }
      cb()
    },
  })
  return out
}
