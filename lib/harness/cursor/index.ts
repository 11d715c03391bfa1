/**
 * Cursor (CLI agent and editor): three stores read as one list of sessions
 * (agent transcripts, CLI chat stores, the editor's state.vscdb); written as
 * transcripts and CLI chat stores. See docs/formats/cursor.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { isOwnBinary } from './paths.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const cursor = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
  isOwnBinary,
})
