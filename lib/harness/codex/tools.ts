/**
 * Codex's tool vocabulary: its shell, patch, plan and search tools ↔ the
 * canonical set. Table and sources: docs/tools.md.
 */
import { as, fromPatch, isObj, num, obj, str, todoItems, todoRule } from '../../vocabulary/build.js'
import { renderAdd, renderEdits } from '../../vocabulary/patch.js'
import { argvToCommand, isStringArray } from '../../vocabulary/shell.js'
import type { Out, Rule, ToolInput, ToolVocabulary } from '../../vocabulary/types.js'

function shell(input: ToolInput): { input: ToolInput } | null {
  const c = input.command
  const command = isStringArray(c) ? argvToCommand(c) : str(c)
  if (command === undefined) return null
  return { input: obj([['command', command], ['timeout', num(input.timeout_ms)], ['workdir', str(input.workdir) ?? str(input.working_directory)]]) }
}

// Hosted shell item: the reader passes `action` (or the whole item) as input.
const hostedShell: Rule['to'] = (i) => shell(isObj(i.action) ? i.action : i)

function search(i: ToolInput): { name?: string; input: ToolInput } | null {
  const a = isObj(i.action) ? i.action : i
  if (a.type === 'open_page' && typeof a.url === 'string') return { name: 'WebFetch', input: { url: a.url } }
  const q = str(a.query) ?? (isStringArray(a.queries) && a.queries.length > 0 ? a.queries.join(' | ') : undefined)
  if (q === undefined) return null
  return { input: { query: q } }
}

const rules: Record<string, Rule> = {
  shell: { canon: 'Bash', to: shell },
  'container.exec': { canon: 'Bash', to: shell },
  shell_command: { canon: 'Bash', to: shell },
  local_shell_call: { canon: 'Bash', to: hostedShell },
  local_shell: { canon: 'Bash', to: hostedShell },
  exec_command: {
    canon: 'Bash',
    to: (i) => {
      const cmd = str(i.cmd) ?? (isStringArray(i.cmd) ? argvToCommand(i.cmd) : undefined)
      if (cmd === undefined) return null
      return { input: obj([['command', cmd], ['workdir', str(i.workdir)]]) }
    },
  },
  apply_patch: {
    canon: 'ApplyPatch',
    to: (i, raw) => {
      const text = typeof raw === 'string' ? raw : str(i.input) ?? str(i.patch)
      return text === undefined ? null : fromPatch(text)
    },
  },
  update_plan: { canon: 'TodoWrite', to: todoRule('plan', 'step') },
  view_image: { canon: 'Read', keys: { path: 'file_path' } },
  read_file: { canon: 'Read' },
  list_dir: { canon: 'LS', keys: { dir_path: 'path' } },
  grep_files: { canon: 'Grep', keys: { include: 'glob', limit: 'head_limit' } },
  web_search: { canon: 'WebSearch', to: search },
  web_search_call: { canon: 'WebSearch', to: search },
  request_user_input: { canon: 'AskUserQuestion' },
  write_stdin: { canon: 'WriteStdin' },
  // Code mode `exec` (JavaScript calling nested tools) and multi-agent
  // `spawn_agent` have no canonical counterpart: not listed, kept native.
}

const patchCall = (input: string) => ({ name: 'apply_patch', input, freeform: true })

const targets: Record<string, Out> = {
  // 0.171 replays `exec_command` {cmd, workdir} function calls from history
  // (the classic-model dialect); `timeout`/`description` have no slot there.
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'exec_command', input: obj([['cmd', i.command], ['workdir', str(i.workdir)]]) }),
  Write: (i) => (typeof i.file_path !== 'string' || typeof i.content !== 'string' ? null : patchCall(renderAdd(i.file_path, i.content))),
  Edit: (i) =>
    typeof i.file_path !== 'string' || typeof i.old_string !== 'string' || typeof i.new_string !== 'string' || i.replace_all === true
      ? null
      : patchCall(renderEdits(i.file_path, [{ old_string: i.old_string, new_string: i.new_string }])),
  MultiEdit: (i) => {
    if (typeof i.file_path !== 'string' || !Array.isArray(i.edits)) return null
    const edits = i.edits.filter(isObj)
    if (edits.some((e) => typeof e.old_string !== 'string' || typeof e.new_string !== 'string' || e.replace_all === true)) return null
    return patchCall(renderEdits(i.file_path, edits as Array<{ old_string: string; new_string: string }>))
  },
  ApplyPatch: (i) => (typeof i.patch !== 'string' ? null : patchCall(i.patch)),
  TodoWrite: (i) => ({ name: 'update_plan', input: { plan: todoItems(i).map((t) => obj([['step', t.content], ['status', t.status]])) } }),
  WriteStdin: as('write_stdin'),
  AskUserQuestion: as('request_user_input'),
  LS: as('list_dir', { path: 'dir_path' }),
}

export const tools: ToolVocabulary = {
  rules,
  targets,
  // Codex writes `apply_patch` with a raw patch string as a `custom_tool_call`.
  freeform: (name, input) => name === 'apply_patch' && typeof input === 'string',
}
