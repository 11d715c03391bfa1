/**
 * GitHub Copilot CLI: one directory per session under
 * `$COPILOT_HOME/session-state/<uuid>/`, the event log `events.jsonl`
 * (sub-agents interleaved, told apart by `agentId`). See docs/formats/copilot.md.
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'

export const copilot = defineHarness({
  id: 'copilot',
  name: 'Copilot CLI',
  kind: 'store',
  resumeHint: 'copilot --resume=<id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools,
  doctor,
})
