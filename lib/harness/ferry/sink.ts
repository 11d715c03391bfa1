/**
 * Writing the interchange stream: to stdout as records come, or with `out`
 * one `<harness>-<id>.ferry.jsonl` file per session, each written atomically.
 */
import { join, resolve as resolvePath } from 'node:path'
import { Writable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { AtomicFile } from '../../io/atomic.js'
import { stringify } from '../../interchange/stringify.js'
import { parseSessionKey, type FerryRecord } from '../../model.js'
import { SessionSink } from '../session-sink.js'
import type { WriteOptions, WrittenSession } from '../types.js'
import { HARNESS } from './source.js'

export function streamSink(ctx: StoreContext, opts: WriteOptions): Writable {
  return opts.out ? fileSink(ctx, opts) : stdoutSink(process.stdout)
}

/** Writes records to a byte stream as they come; one 'written' per session. */
export function stdoutSink(dest: NodeJS.WritableStream): Writable {
  const text = stringify()
  text.pipe(dest as Writable)
  let current: FerryRecord | null = null
  const w = new Writable({
    objectMode: true,
    write(rec: FerryRecord, _enc, cb) {
      if (rec.kind === 'session') {
        if (current) w.emit('written', writtenOf(current, '-'))
        current = rec
      }
      if (text.write(rec)) cb()
      else text.once('drain', () => cb())
    },
    final(cb) {
      if (current) w.emit('written', writtenOf(current, '-'))
      text.end()
      text.once('end', () => cb())
      text.once('error', cb)
    },
  })
  return w
}

function writtenOf(rec: FerryRecord, path: string): WrittenSession {
  const sid = 'sid' in rec ? rec.sid : ''
  return { harness: HARNESS, id: parseSessionKey(sid).nativeId, path, from: sid }
}

/** A file name for a session key that cannot leave the output directory. */
export function safeFileStem(sid: string): string {
  const { harness, nativeId } = parseSessionKey(sid)
  const clean = `${harness || HARNESS}-${nativeId}`.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
  return clean.slice(0, 200)
}

function fileSink(ctx: StoreContext, opts: WriteOptions): Writable {
  const dir = resolvePath(String(opts.out))
  return new SessionSink(ctx, HARNESS, async (header) => {
    const path = join(dir, `${safeFileStem(header.sid)}.ferry.jsonl`)
    const file = await AtomicFile.create(path, { force: Boolean(opts.force), root: dir })
    const text = stringify()
    const pump = new Promise<void>((res, rej) => {
      text.on('data', (chunk: string) => {
        if (!file.stream.write(chunk)) {
          text.pause()
          file.stream.once('drain', () => text.resume())
        }
      })
      text.on('end', res)
      text.on('error', rej)
    })
    const put = (rec: FerryRecord) =>
      new Promise<void>((res) => {
        if (text.write(rec)) res()
        else text.once('drain', res)
      })
    await put(header)
    return {
      write: put,
      async finish(end) {
        if (end) await put(end)
        text.end()
        await pump
        await file.commit({ force: Boolean(opts.force) })
        return { harness: HARNESS, id: header.native_id, path, from: header.sid, ...(header.title ? { title: header.title } : {}) }
      },
      async abort() {
        text.destroy()
        await file.abort()
      },
    }
  }, { unknownKinds: true })
}
