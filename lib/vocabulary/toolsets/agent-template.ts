/**
 * The PascalCase agent-tool template (`Shell`, `Read`, `Write`,
 * `StrReplace`, `Glob`, …, plus the older snake_case names of the same
 * tools: `run_terminal_cmd`, `read_file`, `search_replace`, …). Cursor's
 * agent defines it and Grok Build ships the same template, so both
 * vocabularies read with these rules; each keeps its own write targets.
 * It lives here, named for what it is, so neither harness folder imports
 * the other. Sources: docs/tools.md.
 */
import { num, obj, str, todoRule } from '../build.js'
import type { Rule, ToolInput } from '../types.js'

function shell(i: ToolInput): { input: ToolInput } | null {
  if (typeof i.command !== 'string') return null
  const until = num(i.block_until_ms)
  return {
    input: obj([
      ['command', i.command],
      // block_until_ms may be a float (Grok): only an integral value is a timeout.
      ['timeout', num(i.timeout) ?? (until !== undefined && Number.isInteger(until) ? until : undefined)],
      ['description', str(i.description) ?? str(i.explanation)],
      ['run_in_background', typeof i.is_background === 'boolean' ? i.is_background : undefined],
      ['workdir', str(i.cwd) || str(i.workdir) || undefined],
    ]),
  }
}

function read(i: ToolInput): { input: ToolInput } | null {
  const file = str(i.path) ?? str(i.target_file) ?? str(i.targetFile) ?? str(i.file_path)
  if (file === undefined) return null
  let offset = num(i.offset)
  let limit = num(i.limit)
  const start = num(i.start_line_one_indexed)
  const end = num(i.end_line_one_indexed_inclusive)
  if (offset === undefined && start !== undefined && !i.should_read_entire_file) {
    offset = start
    if (end !== undefined) limit = end - start + 1
  }
  return { input: obj([['file_path', file], ['offset', offset], ['limit', limit]]) }
}

/** Native → canonical rules of the template. */
export const AGENT_TEMPLATE_RULES: Record<string, Rule> = {
  Shell: { canon: 'Bash', to: shell },
  run_terminal_cmd: { canon: 'Bash', to: shell },
  run_terminal_command_v2: { canon: 'Bash', to: shell },
  Read: { canon: 'Read', keys: { path: 'file_path' } },
  read_file: { canon: 'Read', to: read },
  read_file_v2: { canon: 'Read', keys: { targetFile: 'file_path' } },
  Write: { canon: 'Write', keys: { path: 'file_path', contents: 'content' } },
  StrReplace: { canon: 'Edit', keys: { path: 'file_path' } },
  search_replace: { canon: 'Edit', keys: { path: 'file_path', target_file: 'file_path' } },
  Glob: { canon: 'Glob', keys: { glob_pattern: 'pattern', target_directory: 'path' } },
  glob_file_search: { canon: 'Glob', keys: { glob_pattern: 'pattern', target_directory: 'path', globPattern: 'pattern', targetDirectory: 'path' } },
  Grep: { canon: 'Grep' },
  grep: { canon: 'Grep' },
  ripgrep_raw_search: { canon: 'Grep' },
  list_dir: { canon: 'LS', keys: { target_directory: 'path', relative_workspace_path: 'path', dir_path: 'path' } },
  WebSearch: { canon: 'WebSearch', keys: { search_term: 'query' } },
  web_search: { canon: 'WebSearch', keys: { search_term: 'query' } },
  WebFetch: { canon: 'WebFetch' },
  TodoWrite: { canon: 'TodoWrite', to: todoRule('todos', 'content') },
  todo_write: { canon: 'TodoWrite', to: todoRule('todos', 'content') },
  Task: { canon: 'Task' },
  task: { canon: 'Task' },
  AskQuestion: { canon: 'AskUserQuestion' },
  EditNotebook: { canon: 'NotebookEdit' },
  // Delete, SemanticSearch, ReadLints, CallMcpTool, edit_file: no canonical counterpart.
}
