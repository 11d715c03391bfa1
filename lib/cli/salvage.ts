/**
 * Keeping what a failed run read: a read or a transform that fails midway
 * still passes on every record before the failure, the open session is
 * closed with `complete: false`, and the failure is handed back for the
 * command to report after the records (see docs/guarantees.md).
 */
import type { Readable, Transform } from 'node:stream'
import { errorMessage, fromSource } from '../errors.js'
import { recordId, type EndRec, type FerryRecord } from '../model.js'
import { readableOf } from '../io/drain.js'

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
