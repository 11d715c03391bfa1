/**
 * OpenCode: one SQLite database for every session (read-only here), written
 * back through `opencode import` of an export document. See
 * docs/formats/opencode.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'

export const opencode = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink, hooks,
  doctor,
})
