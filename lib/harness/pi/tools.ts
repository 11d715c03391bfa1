/**
 * Pi's tool vocabulary: lowercase names with `path` for the file
 * (`read`, `bash`, `edit`, `write`, `grep`, `find`, `ls`). `edit` takes a
 * list of replacements (`edits: [{oldText, newText}]`, Pi 0.73); the older
 * single `{oldText, newText}` form is read too. Pi's bash timeout is in
 * seconds, canonical timeouts in milliseconds. Sources: docs/formats/pi.md.
 */
import { isObj, num, obj, str } from '../../vocabulary/build.js'
import type { Out, Rule, ToolInput, ToolVocabulary } from '../../vocabulary/types.js'

const rules: Record<string, Rule> = {
  bash: {
    canon: 'Bash',
    to: (i) => (typeof i.command !== 'string' ? null : { input: obj([['command', i.command], ['timeout', num(i.timeout) !== undefined ? (i.timeout as number) * 1000 : undefined]]) }),
  },
  read: { canon: 'Read', keys: { path: 'file_path' } },
  write: { canon: 'Write', keys: { path: 'file_path' } },
  edit: {
    canon: 'Edit',
    to: (i) => {
      if (typeof i.path !== 'string') return null
      if (typeof i.oldText === 'string' && typeof i.newText === 'string') return { input: { file_path: i.path, old_string: i.oldText, new_string: i.newText } }
      if (!Array.isArray(i.edits) || !i.edits.every((e) => isObj(e) && typeof e.oldText === 'string' && typeof e.newText === 'string')) return null
      const edits = i.edits as Array<{ oldText: string; newText: string }>
      if (edits.length === 1) return { input: { file_path: i.path, old_string: edits[0]!.oldText, new_string: edits[0]!.newText } }
      return { name: 'MultiEdit', input: { file_path: i.path, edits: edits.map((e) => ({ old_string: e.oldText, new_string: e.newText })) } }
    },
  },
  grep: { canon: 'Grep', keys: { ignoreCase: '-i', context: '-C', limit: 'head_limit' } },
  find: { canon: 'Glob' },
  ls: { canon: 'LS' },
}

const edit = (path: unknown, edits: ToolInput[]): ReturnType<Out> =>
  typeof path !== 'string' || !edits.every((e) => typeof e.old_string === 'string' && typeof e.new_string === 'string')
    ? null
    : { name: 'edit', input: { path, edits: edits.map((e) => ({ oldText: e.old_string, newText: e.new_string })) } }

const targets: Record<string, Out> = {
  Bash: (i) => (typeof i.command !== 'string' ? null : { name: 'bash', input: obj([['command', i.command], ['timeout', num(i.timeout) !== undefined ? Math.ceil((i.timeout as number) / 1000) : undefined]]) }),
  Read: (i) => (typeof i.file_path !== 'string' ? null : { name: 'read', input: obj([['path', i.file_path], ['offset', num(i.offset)], ['limit', num(i.limit)]]) }),
  Write: (i) => (typeof i.file_path !== 'string' ? null : { name: 'write', input: { path: i.file_path, content: str(i.content) ?? '' } }),
  Edit: (i) => edit(i.file_path, [i]),
  MultiEdit: (i) => edit(i.file_path, Array.isArray(i.edits) ? i.edits.filter(isObj) : []),
  Grep: (i) =>
    typeof i.pattern !== 'string'
      ? null
      : { name: 'grep', input: obj([['pattern', i.pattern], ['path', str(i.path)], ['glob', str(i.glob)], ['ignoreCase', i['-i'] === true ? true : undefined], ['context', num(i['-C'])], ['limit', num(i.head_limit)]]) },
  Glob: (i) => (typeof i.pattern !== 'string' ? null : { name: 'find', input: obj([['pattern', i.pattern], ['path', str(i.path)]]) }),
  LS: (i) => ({ name: 'ls', input: obj([['path', str(i.path)]]) }),
}

export const tools: ToolVocabulary = { rules, targets }
