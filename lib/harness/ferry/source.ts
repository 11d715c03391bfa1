/**
 * Reading the interchange stream: from stdin (`-`) or a file (plain or zstd).
 */
import { PassThrough, type Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { openBytes } from '../../io/bytes.js'
import { destroyWhenDrained } from '../../io/drain.js'
import { parseStream } from '../../interchange/parse.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { HARNESS, STDIN } from './paths.js'

export function read(ctx: StoreContext, session: SessionInfo, _opts: ReadOpts = {}): Readable {
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
