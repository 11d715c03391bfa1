/**
 * GitHub Copilot CLI: one directory per session under
 * `$COPILOT_HOME/session-state/<uuid>/`, the event log `events.jsonl`
 * (sub-agents interleaved, told apart by `agentId`). See docs/formats/copilot.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const copilot = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
})
