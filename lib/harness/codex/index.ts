/**
 * Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/` (plain or
 * `.jsonl.zst`) and `archived_sessions/`. See docs/formats/codex.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'

export const codex = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink, hooks,
  doctor,
})
