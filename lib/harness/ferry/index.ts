/**
 * The interchange stream as a harness (kind `stream`): read from a file or
 * stdin (`-`), write to stdout or, with `out`, one file per session. See
 * docs/stream-format.md.
 */
import { defineHarness } from '../types.js'
import { readStream, resolveStream } from './source.js'
import { streamSink } from './sink.js'
import { tools } from './tools.js'

export const ferry = defineHarness({
  id: 'ferry',
  name: 'ferry interchange stream',
  kind: 'stream',
  store: { envVars: [], root: (ctx) => ctx.home },
  resolve: resolveStream,
  read: (ctx, session) => readStream(ctx, session),
  sink: streamSink,
  // One file per session, each written under a temp name and linked into place (sink.ts).
  independentSessions: true,
  tools,
})
