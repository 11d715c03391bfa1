/**
 * The CLI's stdout and stderr discipline: what stdout is for in this run
 * (the records, or only a report of written sessions), the written-session
 * lines, stdout as a pipeline's last stage, what an error on stdout means,
 * and the diagnostics summary that ends a run on stderr. The session table
 * is table.ts; failing reads and transforms are salvaged in salvage.ts.
 */
import { Writable } from 'node:stream'
import type { WrittenSession } from '../harness/types.js'
import type { Diagnostics } from '../diagnostics.js'
import { asFerryError, errorMessage } from '../errors.js'
import { reportFailure } from './failure.js'
import { isEpipe } from '../io/pipeline.js'

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
