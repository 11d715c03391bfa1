/**
 * Claude Code: JSONL transcripts under `~/.claude/projects/<slug>/<uuid>.jsonl`,
 * sub-agents and spilled tool outputs beside them. See docs/formats/claude-code.md.
 */
import { defineHarness } from '../types.js'
import { meta } from './meta.js'
import { discover, resolve } from './discover.js'
import { read } from './source.js'
import { sink } from './sink.js'
import { doctor } from './doctor.js'
import { hooks } from './hooks.js'
import { nativeUsage } from './usage.js'

export const claudeCode = defineHarness(meta, {
  // The contract's parts, each from its own file (lib/harness/README.md).
  discover, resolve, read, sink, hooks, nativeUsage,
  doctor,
})
