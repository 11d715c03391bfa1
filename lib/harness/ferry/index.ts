/**
 * The interchange stream as a harness: read from a file or stdin (`-`), write
 * to stdout or, with `--out DIR`, one `<harness>-<id>.ferry.jsonl` file per
 * session (atomically). A path is claimed when its first line is a ferry
 * record or it is a Messages-style JSON document.
 */
import { open as openFile, stat } from 'node:fs/promises'
import { basename, join, resolve as resolvePath } from 'node:path'
import { PassThrough, Readable, Writable } from 'node:stream'
import { openBytes } from '../../io/bytes.js'
import { AtomicFile } from '../../io/atomic.js'
import { parseStream } from '../../interchange/parse.js'
import { stringify } from '../../interchange/stringify.js'
import { parseSessionKey, type FerryRecord } from '../../model.js'
import { SessionSink } from '../session-sink.js'
import type { Harness, SessionInfo, WriteOptions } from '../types.js'
import type { StoreContext } from '../../context.js'

export const STDIN = '-'

export const ferry: Harness = {
  id: 'ferry',
  name: 'ferry interchange stream',
  envVars: [],
  root: (ctx) => ctx.home,

  async resolve(_ctx, ref) {
    if (ref === STDIN) return info(STDIN)
    const path = resolvePath(ref)
    try {
      const st = await stat(path)
      if (!st.isFile()) return null
      if (!(await looksLikeInterchange(path))) return null
      return { ...info(path), bytes: st.size }
    } catch {
      return null
    }
  },

  read(ctx, session) {
    const parser = parseStream({ file: session.path === STDIN ? '<stdin>' : session.path, diagnostics: ctx.diagnostics, maxLineBytes: ctx.maxLineBytes })
    if (session.path === STDIN) return process.stdin.pipe(parser)
    const out = new PassThrough({ objectMode: true })
    openBytes(session.path).then(
      ({ stream }) => {
        stream.on('error', (err) => out.destroy(err))
        parser.on('error', (err) => out.destroy(err))
        stream.pipe(parser).pipe(out)
      },
      (err: Error) => out.destroy(err),
    )
    return out
  },

  sink(ctx, opts = {}) {
    return opts.out ? fileSink(ctx, opts) : stdoutSink(process.stdout)
  },
}

function info(path: string): SessionInfo {
  const id = path === STDIN ? 'stdin' : basename(path)
  return { harness: 'ferry', id, sid: `ferry:${id}`, path, locator: path === STDIN ? {} : { path } }
}

/** First non-blank bytes are `{"kind":` (a record) or a JSON document start. */
async function looksLikeInterchange(path: string): Promise<boolean> {
  const fh = await openFile(path, 'r')
  try {
    const buf = Buffer.alloc(4096)
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0)
    const head = buf.subarray(0, bytesRead).toString('utf8').trimStart()
    if (/^\{\s*"kind"\s*:/.test(head)) return true
    // A Messages document: an object whose text mentions "messages", or a bare array of role objects.
    // An OpenCode export document ({info, messages: [{info, parts}]}) also has "messages": not ours.
    if (/^\{\s*"info"\s*:/.test(head) || /"parts"\s*:/.test(head)) return false
    return (/^\{/.test(head) && /"messages"\s*:/.test(head)) || /^\[\s*\{\s*"role"/.test(head)
  } finally {
    await fh.close()
  }
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

function writtenOf(rec: FerryRecord, path: string) {
  const sid = 'sid' in rec ? rec.sid : ''
  return { harness: 'ferry' as const, id: parseSessionKey(sid).nativeId, path, from: sid }
}

/** A file name for a session key that cannot leave the output directory. */
export function safeFileStem(sid: string): string {
  const { harness, nativeId } = parseSessionKey(sid)
  const clean = `${harness || 'ferry'}-${nativeId}`.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
  return clean.slice(0, 200)
}

function fileSink(_ctx: StoreContext, opts: WriteOptions): Writable {
  const dir = resolvePath(String(opts.out))
  return new SessionSink(async (header) => {
    const path = join(dir, `${safeFileStem(header.sid)}.ferry.jsonl`)
    const file = await AtomicFile.create(path, { force: Boolean(opts.force) })
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
        return { harness: 'ferry', id: header.native_id, path, from: header.sid, ...(header.title ? { title: header.title } : {}) }
      },
      async abort() {
        text.destroy()
        await file.abort()
      },
    }
  })
}

/** Readable of records from stdin or a file, for library users. */
export function readInterchange(ctx: StoreContext, path: string): Readable {
  return ferry.read!(ctx, info(path))
}
