/**
 * Writing the interchange stream: to stdout as records come, or with `out`
 * one `<harness>-<id>.ferry.jsonl` file per session, each written atomically.
 */
import { join, resolve as resolvePath } from 'node:path'
import { Writable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { existsSync } from 'node:fs'
import { AtomicFile, BackgroundCommits, prepareDirOnce } from '../../io/atomic.js'
import { preambleRecord, stringify } from '../../interchange/stringify.js'
import { ExistsError } from '../../errors.js'
import { parseSessionKey, type FerryRecord } from '../../model.js'
import { SessionSink } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { HARNESS } from './paths.js'

export function sink(ctx: StoreContext, opts: WriteOpts = {}): Writable {
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

/**
 * A session's text is held in memory up to this many characters and written
 * at its end in one synchronous temp-write, then fsynced in the background
 * and linked once synced (BackgroundCommits); a longer one goes on as a stream (AtomicFile), so
 * memory stays bounded by this, not by the session.
 */
const SMALL_SESSION = 1024 * 1024
/** Streamed text is written in chunks of about this size (as stringify does). */
const CHUNK = 64 * 1024

function fileSink(ctx: StoreContext, opts: WriteOpts): Writable {
  const dir = resolvePath(String(opts.out))
  const force = Boolean(opts.force)
  // Every file goes straight into `dir`: it is made and checked against itself once, not per session.
  let ready: Promise<void> | undefined
  const commits = new BackgroundCommits()
  return new SessionSink(ctx, HARNESS, async (header) => {
    const path = join(dir, `${safeFileStem(header.sid)}.ferry.jsonl`)
    await (ready ??= prepareDirOnce(dir, dir))
    if (!force && existsSync(path)) throw new ExistsError(path)
    // Exactly stringify()'s bytes: its preamble, then one JSON line per record.
    let text = JSON.stringify(preambleRecord()) + '\n' + JSON.stringify(header) + '\n'
    let file: AtomicFile | undefined
    const put = async (rec: FerryRecord): Promise<void> => {
      text += JSON.stringify(rec) + '\n'
      if (file) {
        if (text.length >= CHUNK) {
          const chunk = text
          text = ''
          await file.write(chunk)
        }
      } else if (text.length > SMALL_SESSION) {
        file = await AtomicFile.create(path, { force, root: dir })
        const chunk = text
        text = ''
        await file.write(chunk)
      }
    }
    return {
      write: put,
      async finish(end) {
        if (end) await put(end)
        const written = { harness: HARNESS, id: header.native_id, path, from: header.sid, ...(header.title ? { title: header.title } : {}) }
        if (file) {
          if (text) await file.write(text)
          await file.commit({ force })
          text = ''
          return written
        }
        const { later } = await commits.add(path, text, { force })
        text = ''
        return { later: later.then(() => written) }
      },
      async abort() {
        text = ''
        await file?.abort()
      },
    }
  }, { unknownKinds: true, verbatim: true })
}
