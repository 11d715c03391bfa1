/**
 * Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/` (plain or
 * `.jsonl.zst`) and `archived_sessions/`. See docs/formats/codex.md.
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

export const codex = defineHarness({
  id: 'codex',
  name: 'Codex CLI',
  kind: 'store',
  outIsStore: true,
  resumeHint: 'codex resume <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools, hooks,
  doctor,
})
