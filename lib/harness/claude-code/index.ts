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

export const claudeCode = defineHarness({
  id: 'claude-code',
  name: 'Claude Code',
  kind: 'store',
  store,
  resumeHint: 'claude --resume <id>',
  readFlags,
  writeFlags,
  discover,
  resolve,
  read,
  sink,
  tools,
})
