/**
 * ZCode's tool vocabulary. ZCode is an OpenCode fork that also writes
 * Claude-style names: it reads with the lowercase tool set (shared with
 * OpenCode, so the rules live in lib/vocabulary) plus Claude Code's one
 * non-canonical name, duplicated here rather than imported from that
 * folder. It is written with canonical (Claude-style) names: no targets.
 * Table and sources: docs/tools.md.
 */
import { LOWERCASE_RULES } from '../../vocabulary/toolsets/lowercase.js'
import type { ToolVocabulary } from '../../vocabulary/types.js'

export const tools: ToolVocabulary = {
  rules: { ...LOWERCASE_RULES, Agent: { canon: 'Task' } },
  targets: {},
}
