/**
 * Reading the interchange stream: from stdin (`-`) or a file (plain or zstd),
 * and claiming a path when its first bytes are a ferry record or a
 * Messages-style JSON document.
 */
import { stat } from 'node:fs/promises'
import { basename, resolve as resolvePath } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { headBytes, openBytes } from '../../io/bytes.js'
import { destroyWhenDrained } from '../../io/drain.js'
import { parseStream } from '../../interchange/parse.js'
import type { SessionInfo } from '../types.js'

export const STDIN = '-'
export const HARNESS = 'ferry'

export function info(path: string): SessionInfo {
  const id = path === STDIN ? 'stdin' : basename(path)
  return { harness: HARNESS, id, sid: `${HARNESS}:${id}`, path, locator: path === STDIN ? {} : { path } }
}

export async function resolveStream(_ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
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
}

export function readStream(ctx: StoreContext, session: SessionInfo): Readable {
  const parser = parseStream({ file: session.path === STDIN ? '<stdin>' : session.path, diagnostics: ctx.diagnostics, maxLineBytes: ctx.maxLineBytes, harness: HARNESS })
  if (session.path === STDIN) return process.stdin.pipe(parser)
  const out = new PassThrough({ objectMode: true })
  openBytes(session.path).then(
    ({ stream }) => {
      // Each hop fails only once what it holds has moved on: the parser first takes every byte
      // read before the damage (the empty write is called back after them), then the records
      // parsed from them reach out, and out's reader, before the error does.
      stream.on('error', (err) => {
        stream.unpipe(parser)
        parser.write(Buffer.alloc(0), () => destroyWhenDrained(parser, err))
      })
      parser.on('error', (err) => destroyWhenDrained(out, err))
      stream.pipe(parser).pipe(out)
    },
    (err: Error) => destroyWhenDrained(out, err),
  )
  return out
}

/** First non-blank bytes (decompressed, for a `.jsonl.zst`) are `{"kind":` (a record) or a JSON document start. */
async function looksLikeInterchange(path: string): Promise<boolean> {
  const head = (await headBytes(path, 4096)).toString('utf8').replace(/^\uFEFF/, '').trimStart()
  if (/^\{\s*"kind"\s*:/.test(head)) return true
  // A Messages document: an object whose text mentions "messages", or a bare array of role objects.
  // An OpenCode export document ({info, messages: [{info, parts}]}) also has "messages": not ours.
  if (/^\{\s*"info"\s*:/.test(head) || /"parts"\s*:/.test(head)) return false
  return (/^\{/.test(head) && /"messages"\s*:/.test(head)) || /^\[\s*\{\s*"role"/.test(head)
}
