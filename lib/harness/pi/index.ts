/**
 * Pi (pi-coding-agent): one JSONL file per session whose entries form a tree,
 * under `~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`. See docs/formats/pi.md.
 */
import { defineHarness } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { tools } from './tools.js'
import { doctor } from './doctor.js'

export const pi = defineHarness({
  id: 'pi',
  name: 'Pi',
  kind: 'store',
  resumeHint: 'pi --session <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools,
  doctor,
})
