/**
 * Cursor (CLI agent and editor): three stores read as one list of sessions
 * (agent transcripts, CLI chat stores, the editor's state.vscdb); written as
 * transcripts and CLI chat stores. See docs/formats/cursor.md.
 */
import { defineHarness } from '../types.js'
import { isOwnBinary, store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'

export const cursor = defineHarness({
  id: 'cursor',
  name: 'Cursor',
  kind: 'store',
  outIsStore: true,
  resumeHint: 'agent --resume=<id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools,
  doctor,
  isOwnBinary,
})
