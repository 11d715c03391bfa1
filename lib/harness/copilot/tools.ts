/**
 * Copilot CLI's tool vocabulary (the tool set it offers a Claude-family
 * model, 1.0.102): `bash`, `view`, `create`, `edit`, `grep`, `glob`,
 * `task`, `web_fetch` ↔ the canonical set. Table and the observed names:
 * docs/formats/copilot.md.
 */
import { as, isObj, num, obj, str } from '../../vocabulary/build.js'
import type { Out, Rule, ToolInput, ToolVocabulary } from '../../vocabulary/types.js'

/** `view_range: [start, end]` (1-based, end -1 for the rest) ↔ `offset`/`limit`. */
function view(i: ToolInput): { input: ToolInput } | null {
  const path = str(i.path)
  if (path === undefined) return null
  const r = Array.isArray(i.view_range) ? i.view_range : undefined
  const start = num(r?.[0])
  const end = num(r?.[1])
  return { input: obj([['file_path', path], ['offset', start], ['limit', start !== undefined && end !== undefined && end >= start ? end - start + 1 : undefined]]) }
}

const rules: Record<string, Rule> = {
  bash: { canon: 'Bash' },
  view: { canon: 'Read', to: view },
  create: { canon: 'Write', keys: { path: 'file_path', file_text: 'content' } },
  edit: { canon: 'Edit', keys: { path: 'file_path', old_str: 'old_string', new_str: 'new_string' } },
  grep: { canon: 'Grep' },
  glob: { canon: 'Glob' },
  task: { canon: 'Task', keys: { agent_type: 'subagent_type' } },
  web_fetch: { canon: 'WebFetch' },
  write_bash: { canon: 'WriteStdin' },
}

const targets: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'bash', input: obj([['command', i.command], ['description', str(i.description)]]) }),
  Read: (i) => {
    if (typeof i.file_path !== 'string') return null
    const start = num(i.offset)
    const limit = num(i.limit)
    const range = start !== undefined ? [start, limit !== undefined ? start + limit - 1 : -1] : undefined
    return { name: 'view', input: obj([['path', i.file_path], ['view_range', range]]) }
  },
  Write: as('create', { file_path: 'path', content: 'file_text' }),
  Edit: (i) =>
    typeof i.file_path !== 'string' || typeof i.old_string !== 'string' || typeof i.new_string !== 'string' || i.replace_all === true
      ? null
      : { name: 'edit', input: { path: i.file_path, old_str: i.old_string, new_str: i.new_string } },
  LS: (i) => (typeof i.path !== 'string' ? null : { name: 'view', input: { path: i.path } }),
  Grep: as('grep'),
  Glob: as('glob'),
  WebFetch: as('web_fetch'),
  Task: (i) => {
    if (!isObj(i) || typeof i.prompt !== 'string') return null
    const description = str(i.description) ?? 'sub-agent task'
    return { name: 'task', input: obj([['description', description], ['prompt', i.prompt], ['agent_type', str(i.subagent_type) ?? 'general-purpose'], ['name', str(i.name) ?? description], ['mode', 'sync']]) }
  },
}

export const tools: ToolVocabulary = { rules, targets }
