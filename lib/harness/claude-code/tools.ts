/**
 * Claude Code's tool vocabulary. Its names and keys are the canonical set,
 * so only the sub-agent tool differs: 2.1.x calls it `Agent`, older builds
 * `Task` (canonical). Table and sources: docs/tools.md.
 */
import { as } from '../../vocabulary/build.js'
import type { ToolVocabulary } from '../../vocabulary/types.js'

export const tools: ToolVocabulary = {
  rules: { Agent: { canon: 'Task' } },
  targets: { Task: as('Agent') },
}
