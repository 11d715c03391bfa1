/**
 * Pi (pi-coding-agent): one JSONL file per session whose entries form a tree,
 * under `~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`. See docs/formats/pi.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'

export const pi = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink,
  doctor,
})
