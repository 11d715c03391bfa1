/**
 * OpenCode: one SQLite database for every session (read-only here), written
 * back through `opencode import` of an export document. See
 * docs/formats/opencode.md.
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'

export const opencode = defineHarness({
  id: 'opencode',
  name: 'OpenCode',
  kind: 'store',
  resumeHint: 'opencode --session <id>',
  // `--out FILE` is one `opencode export` document.
  oneSessionPerFile: true,
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools, hooks,
  doctor,
})
