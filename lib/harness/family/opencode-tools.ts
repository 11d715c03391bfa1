/**
 * OpenCode's tool vocabulary, Kilo's too (its fork keeps the tool set): the
 * lowercase tool set with camelCase keys (shared with ZCode, so the rules
 * live in lib/vocabulary) and OpenCode's own write targets. Table and
 * sources: docs/tools.md.
 */
import { as, invertRule, isObj, num, obj, str, todoItems } from '../../vocabulary/build.js'
import { LOWERCASE_RULES as rules } from '../../vocabulary/toolsets/lowercase.js'
import type { Out, ToolVocabulary } from '../../vocabulary/types.js'

const targets: Record<string, Out> = {
  Bash: as('bash'),
  Read: invertRule('read', rules.read!),
  Write: invertRule('write', rules.write!),
  Edit: invertRule('edit', rules.edit!),
  MultiEdit: (i) => ({
    name: 'multiedit',
    input: obj([
      ['filePath', i.file_path],
      ['edits', Array.isArray(i.edits) ? i.edits.filter(isObj).map((e) => obj([['filePath', i.file_path], ['oldString', e.old_string], ['newString', e.new_string], ['replaceAll', e.replace_all]])) : []],
    ]),
  }),
  ApplyPatch: (i) => (typeof i.patch !== 'string' ? null : { name: 'apply_patch', input: { patchText: i.patch } }),
  Glob: as('glob'),
  Grep: invertRule('grep', rules.grep!),
  LS: as('list'),
  // OpenCode's timeout is in seconds, canonical in milliseconds.
  WebFetch: (i) => ({
    name: 'webfetch',
    input: obj([['url', i.url], ['format', str(i.format) ?? 'markdown'], ['timeout', num(i.timeout) !== undefined ? Math.ceil((i.timeout as number) / 1000) : undefined]]),
  }),
  WebSearch: as('websearch'),
  TodoWrite: (i) => ({
    name: 'todowrite',
    input: { todos: todoItems(i).map((t, n) => obj([['content', t.content], ['status', t.status], ['priority', 'medium'], ['id', String(n + 1)]])) },
  }),
  Task: as('task'),
  Skill: invertRule('skill', rules.skill!),
  AskUserQuestion: as('question'),
}

export const openCodeTools: ToolVocabulary = { rules, targets }
