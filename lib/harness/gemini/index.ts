/**
 * Gemini CLI (`gemini`, Google's terminal agent): one JSONL chat recording per
 * session under `~/.gemini/tmp/<project>/chats/` (see docs/formats/gemini.md).
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'

export const gemini = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink, hooks,
  doctor,
})
