/**
 * Grok Build's tool vocabulary: it reads with the PascalCase agent-tool
 * template (shared with Cursor, so the rules live in lib/vocabulary), writes
 * its own snake_case toolset, and, because Grok can randomise tool and
 * parameter names, maps an unknown name by the call's ACP `kind`, which
 * the reader keeps in `x[TOOL_KINDS]`. Table and sources: docs/tools.md.
 */
import { as, isObj, obj, todoItems } from '../../vocabulary/build.js'
import { AGENT_TEMPLATE_RULES as rules } from '../../vocabulary/toolsets/agent-template.js'
import type { Out, ToolHint, ToolInput, ToolVocabulary } from '../../vocabulary/types.js'

/** The message extension key where the reader keeps each call's ACP kind, by call id. */
export const TOOL_KINDS = 'grok.tool_kinds'

const targets: Record<string, Out> = {
  Bash: (i) =>
    typeof i.command !== 'string'
      ? null
      : { name: 'run_terminal_cmd', input: obj([['command', i.command], ['description', i.description], ['timeout', i.timeout], ['is_background', i.run_in_background]]) },
  Read: as('read_file', { file_path: 'target_file' }),
  Edit: as('search_replace'),
  LS: as('list_dir'),
  Grep: as('grep'),
  WebSearch: as('web_search'),
  TodoWrite: (i) => ({ name: 'todo_write', input: { todos: todoItems(i).map((t, n) => obj([['id', String(n + 1)], ['content', t.content], ['status', t.status]])) } }),
  Task: as('task'),
}

/**
 * By ACP kind: the name is mapped only when every required canonical
 * argument is found under a known alias, never by position.
 */
const BY_KIND: Record<string, { canon: string; need: Record<string, string[]>; opt?: Record<string, string[]> }> = {
  execute: { canon: 'Bash', need: { command: ['command', 'cmd'] }, opt: { description: ['description', 'explanation'], workdir: ['cwd', 'workdir'] } },
  read: { canon: 'Read', need: { file_path: ['file_path', 'path', 'target_file', 'filePath', 'targetFile'] }, opt: { offset: ['offset'], limit: ['limit'] } },
  edit: {
    canon: 'Edit',
    need: { file_path: ['file_path', 'path', 'target_file', 'filePath'], old_string: ['old_string', 'oldString', 'old_str'], new_string: ['new_string', 'newString', 'new_str'] },
  },
  fetch: { canon: 'WebFetch', need: { url: ['url'] } },
}

function byHint(hint: ToolHint, input: unknown): { name: string; input: ToolInput } | null {
  const k = hint.kind !== undefined && Object.prototype.hasOwnProperty.call(BY_KIND, hint.kind) ? BY_KIND[hint.kind] : undefined
  if (!k || !isObj(input)) return null
  const out: ToolInput = {}
  for (const [canon, aliases] of Object.entries(k.need)) {
    const a = aliases.find((x) => typeof input[x] === 'string')
    if (a === undefined) return null
    out[canon] = input[a]
  }
  for (const [canon, aliases] of Object.entries(k.opt ?? {})) {
    const a = aliases.find((x) => input[x] !== undefined)
    if (a !== undefined) out[canon] = input[a]
  }
  return { name: k.canon, input: out }
}

export const tools: ToolVocabulary = {
  rules,
  targets,
  byHint,
  hints(m) {
    const kinds = m.x?.[TOOL_KINDS]
    if (!isObj(kinds)) return undefined
    const out: Record<string, ToolHint> = Object.create(null)
    for (const [id, kind] of Object.entries(kinds)) if (typeof kind === 'string') out[id] = { kind }
    return out
  },
}
