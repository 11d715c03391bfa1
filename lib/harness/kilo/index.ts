/**
 * Kilo CLI (an OpenCode fork): OpenCode's tables in its own database, read
 * without touching it, written back through `kilo import` of an export
 * document. See docs/formats/kilo.md.
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'

export const kilo = defineHarness({
  id: 'kilo',
  name: 'Kilo',
  kind: 'store',
  resumeHint: 'kilo --session <id>',
  // `--out FILE` is one export document.
  oneSessionPerFile: true,
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools,
  doctor,
})
