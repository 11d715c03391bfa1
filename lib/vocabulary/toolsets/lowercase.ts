/**
 * The lowercase tool set with camelCase argument keys (`bash`, `read`
 * {filePath}, `edit` {oldString, newString}, `todowrite`, …). OpenCode
 * defines it and its fork ZCode inherits it, so both vocabularies read with
 * these rules. It lives here, named for what it is, so neither harness
 * folder imports the other. Sources: docs/tools.md.
 */
import { fromPatch, isObj, num, obj, todoRule } from '../build.js'
import type { Rule, ToolInput } from '../types.js'

const patch: Rule['to'] = (i) => (typeof i.patchText === 'string' ? fromPatch(i.patchText) : null)

/** Native → canonical rules of the set. */
export const LOWERCASE_RULES: Record<string, Rule> = {
  bash: { canon: 'Bash' },
  read: { canon: 'Read', keys: { filePath: 'file_path' } },
  write: { canon: 'Write', keys: { filePath: 'file_path' } },
  edit: { canon: 'Edit', keys: { filePath: 'file_path', oldString: 'old_string', newString: 'new_string', replaceAll: 'replace_all' } },
  multiedit: {
    canon: 'MultiEdit',
    to: (i) => {
      if (typeof i.filePath !== 'string' || !Array.isArray(i.edits)) return null
      const edits: ToolInput[] = []
      for (const e of i.edits) {
        if (!isObj(e)) return null
        edits.push(obj([['old_string', e.oldString], ['new_string', e.newString], ['replace_all', e.replaceAll]]))
      }
      return { input: { file_path: i.filePath, edits } }
    },
  },
  apply_patch: { canon: 'ApplyPatch', to: patch },
  patch: { canon: 'ApplyPatch', to: patch },
  glob: { canon: 'Glob' },
  grep: { canon: 'Grep', keys: { include: 'glob' } },
  list: { canon: 'LS' },
  webfetch: {
    canon: 'WebFetch',
    // The timeout here is in seconds; canonical timeouts are milliseconds.
    to: (i) => (typeof i.url !== 'string' ? null : { input: obj([['url', i.url], ['format', i.format], ['timeout', num(i.timeout) !== undefined ? (i.timeout as number) * 1000 : undefined]]) }),
  },
  websearch: { canon: 'WebSearch' },
  todowrite: { canon: 'TodoWrite', to: todoRule('todos', 'content') },
  task: { canon: 'Task' },
  skill: { canon: 'Skill', keys: { name: 'skill' } },
  question: { canon: 'AskUserQuestion' },
}
