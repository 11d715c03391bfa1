/**
 * Grok Build (`grok`, xAI's terminal coding agent): sessions are directories
 * `$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/` (see docs/formats/grok.md).
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const grok = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
})
