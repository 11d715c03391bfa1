/**
 * Cursor's tool vocabulary: the PascalCase agent-tool template (shared with
 * Grok Build, so the rules live in lib/vocabulary) and Cursor's own write
 * targets. Table and sources: docs/tools.md.
 */
import { as, invertRule, obj, todoItems } from '../../vocabulary/build.js'
import { AGENT_TEMPLATE_RULES as rules } from '../../vocabulary/toolsets/agent-template.js'
import type { Out, ToolVocabulary } from '../../vocabulary/types.js'

const targets: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'Shell', input: obj([['command', i.command], ['cwd', i.workdir]]) }),
  Read: invertRule('Read', rules.Read!),
  Write: invertRule('Write', rules.Write!),
  Edit: invertRule('StrReplace', rules.StrReplace!),
  Glob: invertRule('Glob', rules.Glob!),
  WebSearch: as('WebSearch'),
  TodoWrite: (i) => ({ name: 'TodoWrite', input: { todos: todoItems(i).map((t, n) => obj([['id', String(n + 1)], ['content', t.content], ['status', t.status]])) } }),
  AskUserQuestion: as('AskQuestion'),
  NotebookEdit: as('EditNotebook'),
}

export const tools: ToolVocabulary = { rules, targets }
