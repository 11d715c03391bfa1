/**
 * Records → ferry interchange stream (JSON Lines). Small records are joined
 * into larger chunks so a pipe carries few big writes instead of many tiny
 * ones; the chunk is flushed whenever the stream asks for more or ends.
 */
import { Transform, type TransformCallback } from 'node:stream'
import { FERRY_FORMAT, type FerryRecord, type StreamRec } from '../model.js'
import { VERSION } from '../version.js'

const CHUNK = 64 * 1024

export interface StringifyOptions {
  /** Start with a `stream` preamble record (default true). */
  preamble?: boolean
}

export function preambleRecord(): StreamRec {
  return { kind: 'stream', ferry: FERRY_FORMAT, producer: `ferry/${VERSION}`, created_at: new Date().toISOString() }
}

export function stringify(opts: StringifyOptions = {}): Transform {
  let pending = ''
  let first = opts.preamble ?? true
  return new Transform({
    writableObjectMode: true,
    writableHighWaterMark: 64,
    transform(rec: FerryRecord, _enc, cb: TransformCallback) {
      // A stage in a pipe (`ferry cat X | ferry redact | …`) passes the one preamble it
      // was given instead of stacking its own on top; later ones (concatenated inputs) go.
      if (rec.kind === 'stream' && (opts.preamble ?? true)) {
        if (first) {
          first = false
          pending += JSON.stringify(rec) + '\n'
        }
        return cb()
      }
      if (first) {
        first = false
        pending += JSON.stringify(preambleRecord()) + '\n'
      }
      pending += JSON.stringify(rec) + '\n'
      if (pending.length >= CHUNK) {
        this.push(pending)
        pending = ''
      }
      cb()
    },
    flush(cb) {
      if (pending) this.push(pending)
      pending = ''
      cb()
    },
  })
}
