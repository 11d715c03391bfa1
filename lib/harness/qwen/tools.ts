/**
 * Qwen Code's tool vocabulary ↔ the canonical set. Names from `ToolNames`
 * in the 0.24.4 bundle; Qwen's argument keys are mostly Claude Code's
 * (docs/formats/qwen.md).
 */
import { as, obj, str, todoItems, todos } from '../../vocabulary/build.js'
import type { Out, Rule, ToolVocabulary } from '../../vocabulary/types.js'

const rules: Record<string, Rule> = {
  run_shell_command: { canon: 'Bash', keys: { directory: 'workdir' } },
  read_file: { canon: 'Read', keys: { absolute_path: 'file_path' } },
  write_file: { canon: 'Write' },
  edit: { canon: 'Edit' },
  glob: { canon: 'Glob' },
  grep_search: { canon: 'Grep' },
  list_directory: { canon: 'LS' },
  web_fetch: { canon: 'WebFetch' },
  web_search: { canon: 'WebSearch' },
  todo_write: {
    canon: 'TodoWrite',
    to: (i) => {
      const list = todos(i.todos, 'content')
      return list ? { input: { todos: list } } : null
    },
  },
  agent: { canon: 'Task' },
  skill: { canon: 'Skill' },
  ask_user_question: { canon: 'AskUserQuestion' },
  notebook_edit: { canon: 'NotebookEdit' },
}

const targets: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'run_shell_command', input: obj([['command', i.command], ['description', str(i.description)], ['directory', str(i.workdir)]]) }),
  Read: (i) => (typeof i.file_path !== 'string' ? null : { name: 'read_file', input: { file_path: i.file_path } }),
  Write: as('write_file'),
  Edit: as('edit'),
  Glob: as('glob'),
  Grep: as('grep_search'),
  LS: as('list_directory'),
  WebFetch: as('web_fetch'),
  WebSearch: as('web_search'),
  TodoWrite: (i) => ({ name: 'todo_write', input: { todos: todoItems(i).map((t, n) => ({ id: String(n + 1), content: t.content, status: t.status })) } }),
  Task: (i) => ({ name: 'agent', input: obj([['description', str(i.description) ?? ''], ['prompt', str(i.prompt) ?? ''], ['subagent_type', str(i.subagent_type) ?? 'general-purpose']]) }),
  Skill: as('skill'),
  AskUserQuestion: as('ask_user_question'),
  NotebookEdit: as('notebook_edit'),
}

export const tools: ToolVocabulary = { rules, targets }
