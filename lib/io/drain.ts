/**
 * Failing a Readable without losing what it already holds. `destroy(err)`
 * drops the readable buffer, so a reader whose consumer was paused (backpressure)
 * when the error came would lose the records or bytes decoded just before the
 * damage; the contract is that every complete line before it comes through.
 */
import { Readable } from 'node:stream'

/**
 * Destroys `stream` with `err` once its consumer has taken every chunk already
 * pushed: now when its buffer is empty, else right after the read that empties
 * it (every consumer — pipe, 'data' in flowing mode, async iteration — takes
 * buffered chunks through `read()`). Nothing more should be pushed after this call.
 */
export function destroyWhenDrained(stream: Readable, err: Error): void {
  if (stream.destroyed) return
  if (stream.readableLength === 0) {
    stream.destroy(err)
    return
  }
  const read = stream.read
  stream.read = function drainThenFail(this: Readable, n?: number) {
    const chunk: unknown = read.call(this, n)
    if (this.readableLength === 0) {
      this.read = read
      // After this tick: the chunk just returned is emitted or yielded first.
      process.nextTick(() => this.destroy(err))
    }
    return chunk
  }
}

/**
 * `Readable.from` for record generators, except that a throw fails the stream
 * only after its consumer has taken every record yielded before it
 * (`Readable.from` destroys at once, dropping up to a buffer's worth).
 */
export function readableOf(iterable: AsyncIterable<unknown> | Iterable<unknown>, highWaterMark = 64): Readable {
  const it: AsyncIterator<unknown> | Iterator<unknown> =
    Symbol.asyncIterator in iterable ? iterable[Symbol.asyncIterator]() : (iterable as Iterable<unknown>)[Symbol.iterator]()
  let pulling = false
  let failed = false
  const r = new Readable({
    objectMode: true,
    highWaterMark,
    read() {
      if (!pulling && !failed) void pull()
    },
    destroy(err, cb) {
      // A consumer that stops early closes the generator: its finally blocks close files.
      if (failed || !it.return) return cb(err)
      Promise.resolve(it.return()).then(
        () => cb(err),
        (e: unknown) => cb(err ?? (e as Error)),
      )
    },
  })
  async function pull(): Promise<void> {
    pulling = true
    try {
      for (;;) {
        const { value, done } = await it.next()
        if (r.destroyed) return
        if (done) return void r.push(null)
        if (value === null || value === undefined) throw new TypeError('a record generator yielded null')
        if (!r.push(value)) return
      }
    } catch (err) {
      failed = true
      destroyWhenDrained(r, err instanceof Error ? err : new Error(String(err)))
    } finally {
      pulling = false
    }
  }
  return r
}
