/**
 * Grok Build (`grok`, xAI's terminal coding agent): sessions are directories
 * `$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/` (see docs/formats/grok.md).
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'

export const grok = defineHarness({
  id: 'grok',
  name: 'Grok Build',
  kind: 'store',
  outIsStore: true,
  resumeHint: 'grok --resume <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools,
  doctor,
})
