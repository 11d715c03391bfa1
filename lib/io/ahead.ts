/**
 * Bounded, ordered, lazy concurrency for discovery: each item's (I/O-bound)
 * work runs a few at a time so the disk and the CPU stay busy, results come
 * out in input order, and a consumer that stops (`ferry ls --json | head -1`)
 * stops the reading: at most DISCOVERY_CONCURRENCY items are started ahead.
 */
import { pMapIterable } from 'p-map'

export const DISCOVERY_CONCURRENCY = 8

export function mapAhead<T, R>(items: AsyncIterable<T> | Iterable<T>, fn: (item: T) => Promise<R>, concurrency = DISCOVERY_CONCURRENCY): AsyncIterable<R> {
  return pMapIterable(items, fn, { concurrency, backpressure: concurrency })
}
