/**
 * Building blocks for writing a vocabulary (`lib/harness/<id>/tools.ts`):
 * shape checks, key renames, and the conversions several harnesses share
 * (patch text, todo lists). Nothing here knows a harness.
 */
import { isObj } from '../model.js'
import { lowerPatch, parsePatch, patchFiles } from './patch.js'
import type { Out, Rule, ToolInput } from './types.js'

/** The model's object check, offered with the other building blocks a vocabulary imports. */
export { isObj }
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** Builds an object leaving out undefined values, in the order given. */
export function obj(entries: Array<[string, unknown]>): ToolInput {
  const o: ToolInput = {}
  for (const [k, v] of entries) if (v !== undefined) o[k] = v
  return o
}

export function rename(input: ToolInput, keys: Record<string, string>): ToolInput {
  const o: ToolInput = {}
  for (const k of Object.keys(input)) o[keys[k] ?? k] = input[k]
  return o
}

export function invert(keys: Record<string, string>): Record<string, string> {
  const o: Record<string, string> = {}
  for (const [k, v] of Object.entries(keys)) o[v] = k
  return o
}

/** A target entry that renames the tool and (optionally) its keys, canonical → native. */
export const as =
  (name: string, keys?: Record<string, string>): Out =>
  (i) => ({ name, input: keys ? rename(i, keys) : i })

/** The target entry that undoes a rule's key renames under the native name. */
export function invertRule(name: string, rule: Rule): Out {
  return as(name, rule.keys ? invert(rule.keys) : undefined)
}

/** Patch text → lowered Write/Edit when exact, else ApplyPatch {patch, files}. */
export function fromPatch(text: string): { name: string; input: ToolInput } | null {
  const ops = parsePatch(text)
  if (!ops) return { name: 'ApplyPatch', input: { patch: text } }
  const low = lowerPatch(ops)
  if (low) return low
  return { name: 'ApplyPatch', input: { patch: text, files: patchFiles(ops) } }
}

/** TodoWrite items from `[{content|step, status}]`; everything else stays in native_input. */
export function todos(list: unknown, textKey: string): ToolInput[] | null {
  if (!Array.isArray(list)) return null
  const out: ToolInput[] = []
  for (const t of list) {
    if (!isObj(t) || typeof t[textKey] !== 'string') return null
    const content = t[textKey] as string
    out.push(obj([['content', content], ['status', str(t.status) ?? 'pending'], ['activeForm', str(t.activeForm) ?? content]]))
  }
  return out
}

/** A rule conversion for a native todo tool whose items carry `textKey`. */
export const todoRule =
  (listKey: string, textKey: string): Rule['to'] =>
  (i) => {
    const t = todos(i[listKey], textKey)
    return t ? { input: { todos: t } } : null
  }

/** The canonical TodoWrite items (objects only), for target entries. */
export function todoItems(i: ToolInput): ToolInput[] {
  return Array.isArray(i.todos) ? i.todos.filter(isObj) : []
}
