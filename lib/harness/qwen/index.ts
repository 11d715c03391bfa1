/**
 * Qwen Code (`qwen`, the Gemini CLI fork): one JSONL file per session under
 * `~/.qwen/projects/<cwd>/chats/`, a uuid/parentUuid chain carrying Gemini
 * `Content` (see docs/formats/qwen.md).
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

export const qwen = defineHarness({
  id: 'qwen',
  name: 'Qwen Code',
  kind: 'store',
  resumeHint: 'qwen --resume <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools, hooks,
  doctor,
})
