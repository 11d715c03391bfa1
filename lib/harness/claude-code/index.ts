/**
 * Claude Code: JSONL transcripts under `~/.claude/projects/<slug>/<uuid>.jsonl`,
 * sub-agents and spilled tool outputs beside them. See docs/formats/claude-code.md.
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
import { nativeUsage } from './usage.js'

export const claudeCode = defineHarness({
  id: 'claude-code',
  name: 'Claude Code',
  kind: 'store',
  outIsStore: true,
  resumeHint: 'claude --resume <id>',
  // The contract's parts, each from its own file (lib/harness/README.md).
  store, readFlags, writeFlags, discover, resolve, read, sink, tools, hooks, nativeUsage,
  doctor,
})
