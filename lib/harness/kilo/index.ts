/**
 * Kilo CLI (an OpenCode fork): OpenCode's tables in its own database, read
 * without touching it, written back through `kilo import` of an export
 * document. See docs/formats/kilo.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const kilo = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
})
