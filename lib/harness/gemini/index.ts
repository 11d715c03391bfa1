/**
 * Gemini CLI (`gemini`, Google's terminal agent): one JSONL chat recording per
 * session under `~/.gemini/tmp/<project>/chats/` (see docs/formats/gemini.md).
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

export const gemini = defineHarness({
  id: 'gemini',
  name: 'Gemini CLI',
  kind: 'store',
  resumeHint: 'gemini --resume <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools, hooks,
  doctor,
})
