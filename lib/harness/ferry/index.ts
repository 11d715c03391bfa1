/**
 * The interchange stream as a harness (kind `stream`): read from a file or
 * stdin (`-`), write to stdout or, with `out`, one file per session. See
 * docs/stream-format.md. It has no store to list: no `discover`, so `ls`
 * leaves it out.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'

export const ferry = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  resolve, read, sink,
})
