/**
 * Qwen Code (`qwen`, the Gemini CLI fork): one JSONL file per session under
 * `~/.qwen/projects/<cwd>/chats/`, a uuid/parentUuid chain carrying Gemini
 * `Content` (see docs/formats/qwen.md).
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'

export const qwen = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink, hooks,
  doctor,
})
