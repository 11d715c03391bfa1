/**
 * What the CLI prints besides records: written-session reports and the
 * final diagnostics summary (the session table is table.ts).
 */
import { Readable, Writable, type Transform } from 'node:stream'
import type { WrittenSession } from '../harness/types.js'
import type { Diagnostics } from '../diagnostics.js'
import { asFerryError, errorMessage, fromSource } from '../errors.js'
import { reportFailure } from './failure.js'
import { recordId, type EndRec, type FerryRecord } from '../model.js'
import { isEpipe } from '../pipeline.js'
import { readableOf } from '../io/drain.js'

/** A tab, newline or CR inside a field (a cwd, an id) would forge a column or a line of the report: written as \t \n \r. */
function field(s: string): string {
  return s.replace(/[\t\n\r]/g, (c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
}

export function writtenLine(ws: WrittenSession, json: boolean): string {
  if (json) return JSON.stringify(ws)
  return [ws.harness, ws.id, ws.path, ...(ws.note ? [ws.note] : [])].map(field).join('\t')
}

/**
 * What stdout is for this run. For `cat` and the filters it carries the
 * records: when its reader goes away (`ferry cat … | head -1`) there is
 * nothing left to do, so ferry stops with success. For `write`/`convert` it
 * is only a report: the sessions are the job, so a reader that went away
 * stops the report and the job goes on (and fails or succeeds on its own).
 */
let stdoutRole: 'records' | 'report' = 'records'
let stdoutGone = false

export function stdoutIsReport(): void {
  stdoutRole = 'report'
}

/** Writes one report line, unless stdout's reader has gone away. */
export function report(line: string): void {
  if (!stdoutGone) process.stdout.write(line)
}

/**
 * Installed once by main: an error on stdout never becomes an uncaught
 * exception. EPIPE ends a records run with success and silences a report;
 * any other error (ENOSPC on `> /dev/full`, EIO) is one line on stderr and
 * exit 1 (a report run finishes its job first and then fails).
 */
export function guardStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (stdoutGone) return
    stdoutGone = true
    if (isEpipe(err)) {
      if (stdoutRole === 'records') process.exit(process.exitCode ?? 0)
      return
    }
    process.stderr.write(`ferry: error: cannot write to stdout: ${errorMessage(err)}\n`)
    process.exitCode = 1
    if (stdoutRole === 'records') process.exit(1)
  })
}

/**
 * stdout as the last stage of a pipeline. Passing process.stdout itself would
 * let a failing stage destroy it, throwing away what was already buffered and
 * leaving a torn last line; this one only forwards, with backpressure, and
 * ends without closing stdout.
 */
export function stdoutStage(): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      if (stdoutGone) return cb()
      if (process.stdout.write(chunk)) cb()
      else process.stdout.once('drain', () => cb())
    },
  })
}

/**
 * Keeps a read that fails midway useful: every record read before the error
 * goes on, the open session gets an `end` with `complete: false` naming the
 * error, and the stream ends normally. `failure()` then gives the error, for
 * the command to report as its one located line and exit 1 after the records.
 */
export function salvage(source: Readable): { source: Readable; failure: () => unknown } {
  let failed: unknown = null
  return { source: readableOf(salvageRecords(source, (err) => (failed = err))), failure: () => failed }
}

/**
 * The records of `source`, ended normally when the read fails: the open session then gets an
 * `end` with `complete: false` naming the error, and the error goes to `failed`, not thrown.
 */
export async function* salvageRecords(source: Readable, failed: (err: unknown) => void): AsyncGenerator<FerryRecord> {
  let open: string | null = null
  // An `end` is held until the next record: a reader may end its session and then fail (a zstd frame cut short).
  let held: EndRec | null = null
  try {
    for await (const rec of source) {
      const r = rec as FerryRecord
      if (held) yield held
      held = null
      if (r.kind === 'session') open = r.sid
      else if (r.kind === 'end' && r.sid === open) {
        open = null
        held = r
        continue
      }
      yield r
    }
    if (held) yield held
  } catch (err) {
    failed(err ?? new Error('read failed'))
    const code = (err as { code?: unknown })?.code
    // `incomplete` tells writers not to commit this session as if it were whole.
    const warning = { code: 'incomplete', detail: `${typeof code === 'string' ? `${code}: ` : ''}${errorMessage(err)}` }
    if (held) yield { ...held, complete: false, warnings: [...(held.warnings ?? []), warning] }
    else if (open !== null) yield { kind: 'end', sid: open, id: recordId(open, 'end'), complete: false, warnings: [warning] }
  }
}

/** The name a transform stage is reported under (`truncate:internal: …`), set where the stage is made. */
export const stageNames = new WeakMap<Transform, string>()

/**
 * salvage for a read and the transforms after it. A source that fails is
 * salvaged before the transforms (they still see its `end`). A transform that
 * throws on a record is stopped there, record by record rather than by
 * destroying its stream (which would drop what it had already passed on):
 * everything it let through goes on, the open session gets its `end` with
 * `complete: false`, the rest of the input is drained unread, and the stream
 * ends normally. The failure names the stage (`truncate:write-failed: …`).
 */
export function salvageThrough(source: Readable, transforms: Transform[]): { source: Readable; failure: () => unknown } {
  const read = salvage(source)
  let stageFailure: unknown = null
  const guarded = transforms.map((t) => guardStage(t, (err) => (stageFailure ??= err)))
  let out: Readable = read.source
  for (const t of guarded) out = out.pipe(t)
  // pipe() does not forward errors; guarded stages do not emit them, a read error is already salvaged.
  return { source: out, failure: () => read.failure() ?? stageFailure }
}

function guardStage(t: Transform, failed: (err: unknown) => void): Transform {
  const name = stageNames.get(t)
  let open: string | null = null
  let stopped = false
  const stop = (err: unknown, cb: () => void) => {
    stopped = true
    const e = name ? fromSource(err, name) : err
    failed(e)
    if (open !== null) {
      const code = (e as { code?: unknown })?.code
      t.push({ kind: 'end', sid: open, id: recordId(open, 'end'), complete: false, warnings: [{ code: 'incomplete', detail: `${typeof code === 'string' ? `${code}: ` : ''}${errorMessage(e)}` }] } satisfies EndRec)
    }
    cb()
  }
  const transform = t._transform.bind(t)
  t._transform = (chunk: FerryRecord, enc, cb) => {
    if (stopped) return cb()
    if (chunk?.kind === 'session') open = chunk.sid
    const closes = chunk?.kind === 'end' && chunk.sid === open
    try {
      transform(chunk, enc, (err, data) => {
        if (err) return stop(err, () => cb())
        if (closes) open = null
        cb(null, data)
      })
    } catch (err) {
      stop(err, () => cb())
    }
  }
  const flush = t._flush?.bind(t)
  if (flush) {
    t._flush = (cb) => {
      if (stopped) return cb()
      try {
        flush((err, data) => (err ? stop(err, () => cb()) : cb(null, data)))
      } catch (err) {
        stop(err, () => cb())
      }
    }
  }
  return t
}

/**
 * Ends a run's reporting: the failure that stopped it (if any) as its one located line, then the
 * summary when anything else was reported, counting that failure too (a summary printed before the
 * error it leaves out misleads).
 */
export function finishDiagnostics(d: Diagnostics, failure?: unknown): void {
  if (failure) {
    reportFailure(failure, d.json)
    // Alone, the failure is the run's one line; after other reports the summary that follows must count it too.
    const fe = asFerryError(failure)
    if (d.counts.size > 0) d.tally({ severity: 'error', code: fe.code, message: fe.message, ...(fe.source ? { source: fe.source } : {}) })
  }
  const s = d.summary()
  // With --json every report was already an object; a text summary would break a line reader.
  if (s && d.errors + d.warnings > 0 && !d.json) process.stderr.write(s + '\n')
  if (d.errors > 0 && !process.exitCode) process.exitCode = 1
}
