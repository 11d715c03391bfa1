/**
 * Gemini CLI's tool vocabulary ↔ the canonical set. Names and argument keys
 * from packages/core/src/tools/definitions/base-declarations.ts (docs/formats/gemini.md).
 */
import { as, obj, str, todoItems, todos } from '../../vocabulary/build.js'
import type { Rule, ToolVocabulary, Out } from '../../vocabulary/types.js'

const rules: Record<string, Rule> = {
  run_shell_command: { canon: 'Bash', keys: { dir_path: 'workdir' } },
  read_file: { canon: 'Read', keys: { absolute_path: 'file_path' } },
  write_file: { canon: 'Write' },
  replace: {
    canon: 'Edit',
    to: (i) => (typeof i.file_path !== 'string' ? null : { input: obj([['file_path', i.file_path], ['old_string', i.old_string], ['new_string', i.new_string], ['replace_all', i.allow_multiple === true ? true : undefined]]) }),
  },
  glob: { canon: 'Glob', keys: { dir_path: 'path' } },
  grep_search: { canon: 'Grep', keys: { dir_path: 'path', include_pattern: 'glob' } },
  search_file_content: { canon: 'Grep', keys: { dir_path: 'path', include: 'glob' } },
  list_directory: { canon: 'LS', keys: { dir_path: 'path' } },
  google_web_search: { canon: 'WebSearch' },
  web_fetch: { canon: 'WebFetch' },
  write_todos: {
    canon: 'TodoWrite',
    to: (i) => {
      const list = todos(i.todos, 'description')
      return list ? { input: { todos: list } } : null
    },
  },
  invoke_agent: { canon: 'Task', keys: { agent_name: 'subagent_type' } },
  activate_skill: { canon: 'Skill', keys: { name: 'skill' } },
  ask_user: { canon: 'AskUserQuestion' },
}

const targets: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'run_shell_command', input: obj([['command', i.command], ['description', str(i.description)], ['dir_path', str(i.workdir)]]) }),
  Read: (i) => (typeof i.file_path !== 'string' ? null : { name: 'read_file', input: { file_path: i.file_path } }),
  Write: as('write_file'),
  // `instruction` is required by Gemini's replace declaration.
  Edit: (i) =>
    typeof i.file_path !== 'string'
      ? null
      : { name: 'replace', input: obj([['file_path', i.file_path], ['instruction', 'Apply the edit.'], ['old_string', i.old_string], ['new_string', i.new_string], ['allow_multiple', i.replace_all === true ? true : undefined]]) },
  Glob: as('glob', { path: 'dir_path' }),
  Grep: as('grep_search', { path: 'dir_path', glob: 'include_pattern' }),
  LS: as('list_directory', { path: 'dir_path' }),
  WebSearch: as('google_web_search'),
  WebFetch: (i) => ({ name: 'web_fetch', input: { prompt: [str(i.url), str(i.prompt)].filter(Boolean).join(' ') } }),
  TodoWrite: (i) => ({ name: 'write_todos', input: { todos: todoItems(i).map((t) => ({ description: t.content, status: t.status })) } }),
  Task: (i) => ({ name: 'invoke_agent', input: obj([['agent_name', str(i.subagent_type) ?? 'generalist'], ['prompt', str(i.prompt) ?? str(i.description) ?? '']]) }),
}

export const tools: ToolVocabulary = { rules, targets }
