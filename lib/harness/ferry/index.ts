/**
 * The interchange stream as a harness (kind `stream`): read from a file or
 * stdin (`-`), write to stdout or, with `out`, one file per session. See
 * docs/stream-format.md. It has no store to list: no `discover`, so `ls`
 * leaves it out.
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'

export const ferry = defineHarness({
  id: 'ferry',
  name: 'ferry interchange stream',
  kind: 'stream',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, resolve, read, sink, tools,
  // One file per session, each written under a temp name and linked into place (sink.ts).
  independentSessions: true,
})
