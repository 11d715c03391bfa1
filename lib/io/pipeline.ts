/**
 * Joining sources, transforms and sinks. A thin layer over
 * `stream/promises.pipeline` that adds what every ferry command needs:
 * plain functions as transforms, abort, and a reader that went away
 * (`ferry cat … | head -1`) counted as success rather than an error.
 */
import { Readable, Transform, type Duplex, type Writable } from 'node:stream'
import { pipeline as nodePipeline } from 'node:stream/promises'
import type { FerryRecord } from '../model.js'
import { readableOf } from './drain.js'

/** Emits one more record from inside a record function (or its flush). */
export type Push = (rec: FerryRecord) => void

/**
 * A record-level function: return the record (changed or not), several, or
 * nothing to drop it; `push` emits further records, for functions that hold
 * records back and release them later.
 */
export type RecordFn = (rec: FerryRecord, push: Push) => FerryRecord | FerryRecord[] | null | undefined | void

export type Stage = Duplex | Transform | RecordFn

/**
 * The one stage wrapper: an object-mode Transform from a record function,
 * with an optional `flush` that may push what is still held at the end.
 */
export function mapRecords(fn: RecordFn, flush?: (push: Push) => void): Transform {
  let push: Push = () => {}
  const t = new Transform({
    objectMode: true,
    highWaterMark: 64,
    transform(rec: FerryRecord, _enc, cb) {
      try {
        const out = fn(rec, push)
        if (Array.isArray(out)) for (const r of out) this.push(r)
        else if (out) this.push(out)
        cb()
      } catch (err) {
        // cb(err), not a destroy: the CLI's salvage (guardStage) takes the error here and closes the open session itself.
        cb(err as Error)
      }
    },
    flush(cb) {
      try {
        flush?.(push)
        cb()
      } catch (err) {
        cb(err as Error)
      }
    },
  })
  push = (r) => void t.push(r)
  return t
}

function toStream(stage: Stage): Duplex {
  return typeof stage === 'function' ? mapRecords(stage) : stage
}

export function isEpipe(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined
  return e?.code === 'EPIPE' || e?.code === 'ERR_STREAM_DESTROYED' && /EPIPE/.test(String(e?.message))
}

/**
 * Runs source → stages → sink with backpressure. Resolves when the sink has
 * finished; resolves too when the sink's reader went away (EPIPE), after
 * stopping the source.
 */
export async function pipeline(source: Readable, ...rest: [...Stage[], Writable] | [...Stage[], Writable, { signal?: AbortSignal }]): Promise<void> {
  let opts: { signal?: AbortSignal } = {}
  const last = rest[rest.length - 1]
  if (last && typeof last === 'object' && !('pipe' in last) && !('write' in last)) {
    opts = rest.pop() as { signal?: AbortSignal }
  }
  const sink = rest.pop() as Writable
  const stages = (rest as Stage[]).map(toStream)
  try {
    await nodePipeline([source, ...stages, sink], opts.signal ? { signal: opts.signal } : {})
  } catch (err) {
    if (isEpipe(err)) {
      source.destroy()
      return
    }
    throw err
  }
}

/** One Readable that yields every record of several sources (streams or record iterables), one after the other. */
export function concatSources(sources: Array<() => Readable | AsyncIterable<FerryRecord> | Promise<Readable>>): Readable {
  if (sources.length === 1) {
    const only = sources[0]!()
    if (only instanceof Readable) return only
  }
  async function* all(): AsyncGenerator<FerryRecord> {
    for (const make of sources) {
      const s = await make()
      for await (const rec of s) yield rec as FerryRecord
    }
  }
  return readableOf(all())
}

/** Collects every record of a stream, or every item of any async iterable (for tests and small sessions only). */
export async function collect(source: Readable): Promise<FerryRecord[]>
export async function collect<T>(source: AsyncIterable<T>): Promise<T[]>
export async function collect(source: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = []
  for await (const item of source) out.push(item)
  return out
}
