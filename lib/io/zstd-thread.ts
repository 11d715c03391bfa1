/**
 * fzstd in a worker thread, for a big `.zst` on a Node without native zstd
 * (Node 20). fzstd decodes about 11 s per GiB: on the main thread that is a
 * third of a `.jsonl.zst` conversion; in a thread of its own it overlaps
 * with parsing and writing, on the second core.
 *
 * The contract is the inline decoder's (bytes.ts): the same bytes, output
 * passed on as it is decoded, and damage reported as a located `bad-zstd`
 * at the compressed offset, after everything decoded before it has been
 * read. At most IN_FLIGHT input chunks are in the thread at once, and the
 * Transform holds its input while its output is unread, so a slow reader
 * stops the file as it does inline.
 */
import { Transform, type TransformCallback } from 'node:stream'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { destroyWhenDrained } from './drain.js'

/** Input chunks (of the file stream's read size) handed to the thread before one is decoded. */
const IN_FLIGHT = 4
/** Input slice fed to fzstd per call, as inline: it bounds the output of one call. */
const SLICE = 64 * 1024

type ToThread = { t: 'in'; b: Uint8Array } | { t: 'end' }
type FromThread = { t: 'out'; b: Uint8Array } | { t: 'ack' } | { t: 'done' } | { t: 'error'; message: string; offset: number }

/** `fail(message, offset)` makes the located error (bytes.ts owns its wording). */
export function threadedFzstd(fail: (message: string, offset: number) => Error): Transform {
  const w = new Worker(THREAD_SOURCE, { eval: true, workerData: { fzstd: fzstdPath() }, resourceLimits: { maxYoungGenerationSizeMb: 4 } })
  let inFlight = 0
  let held: TransformCallback | null = null
  let flushed: TransformCallback | null = null
  let failed = false
  let given = 0
  const release = () => {
    const h = held
    held = null
    h?.()
  }
  const stop = (err: Error) => {
    if (failed) return
    failed = true
    void w.terminate()
    destroyWhenDrained(out, err)
    release()
  }
  w.on('message', (m: FromThread) => {
    if (m.t === 'out') out.push(Buffer.from(m.b.buffer, m.b.byteOffset, m.b.byteLength))
    else if (m.t === 'ack') {
      inFlight--
      release()
    } else if (m.t === 'done') {
      void w.terminate()
      const f = flushed
      flushed = null
      f?.()
    } else stop(fail(m.message, m.offset))
  })
  w.once('error', (err) => stop(fail(err.message, given)))
  const out: Transform = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      if (failed) return cb()
      // A copy the thread owns (transferred, not cloned): file stream chunks may share a pool.
      const b = new Uint8Array(chunk.length)
      b.set(chunk)
      w.postMessage({ t: 'in', b } satisfies ToThread, [b.buffer])
      given += chunk.length
      if (++inFlight < IN_FLIGHT) cb()
      else held = cb
    },
    flush(cb) {
      if (failed) return cb()
      flushed = cb
      w.postMessage({ t: 'end' } satisfies ToThread)
    },
    destroy(err, cb) {
      void w.terminate()
      cb(err)
    },
  })
  return out
}

let resolved: string | undefined
/** Where fzstd is, for the thread's own require (it loads nothing else). */
function fzstdPath(): string {
  return (resolved ??= createRequire(import.meta.url).resolve('fzstd'))
}

/**
 * The thread: decodes what it is given, in order, and says where damage is. A script of its own,
 * not this module: a thread that loaded the whole CLI bundle would hold tens of MB more.
 */
const THREAD_SOURCE = `
const { parentPort: port, workerData } = require('node:worker_threads')
const { Decompress } = require(workerData.fzstd)
const SLICE = ${SLICE}
// fzstd allocates typed arrays per block (output, literals, tables): their memory is outside
// V8's heap, and the few bytes of JS they take never fill a young generation, so V8 left up to
// 36 MiB of dead blocks resident between collections. A scavenge per input chunk (about
// 1 MiB decoded) frees them as they die: a 1 GiB rollout's peak RSS fell by about 25 MiB, at the
// same speed. The flag is set only while this thread takes its collector, then taken back.
const v8 = require('node:v8')
v8.setFlagsFromString('--expose-gc')
const collect = require('node:vm').runInNewContext('gc')
v8.setFlagsFromString('--no-expose-gc')
let offset = 0
let sawInput = false
let dead = false
// fzstd's output may be a view of its window: send a copy.
const dec = new Decompress((chunk) => {
  const b = chunk.slice()
  port.postMessage({ t: 'out', b }, [b.buffer])
})
port.on('message', (m) => {
  if (dead) return
  try {
    if (m.t === 'in') {
      sawInput ||= m.b.length > 0
      for (let i = 0; i < m.b.length; i += SLICE) {
        const part = m.b.subarray(i, Math.min(i + SLICE, m.b.length))
        dec.push(part)
        offset += part.length
      }
      collect({ type: 'minor' })
      port.postMessage({ t: 'ack' })
    } else {
      // fzstd throws "unexpected EOF" here when the last frame is cut short.
      if (sawInput) dec.push(new Uint8Array(0), true)
      port.postMessage({ t: 'done' })
    }
  } catch (err) {
    dead = true
    port.postMessage({ t: 'error', message: err instanceof Error ? err.message : String(err), offset })
  }
})
`
