/**
 * OpenCode 2 renamed some tools and one argument; its v1→v2 migration applies
 * the same renames to old sessions: `bash` → `shell`, `task` → `subagent`,
 * `apply_patch` → `patch`, the `filePath` argument → `path`, and `skill`'s
 * `name` → `id`. ferry's tool vocabulary is v1's (`opencode-tools.ts`), so the
 * v2 reader turns names back and the v2 writer forward.
 */
import type { JsonObject } from '../../model.js'

const NAMES: Record<string, string> = { bash: 'shell', task: 'subagent', apply_patch: 'patch' }
const BACK: Record<string, string> = Object.fromEntries(Object.entries(NAMES).map(([a, b]) => [b, a]))

function renameKey(o: JsonObject, from: string, to: string): JsonObject {
  if (!(from in o) || to in o) return o
  const { [from]: v, ...rest } = o
  return { ...rest, [to]: v }
}

/** A v1 call (name, arguments) as OpenCode 2 names it. */
export function V1_TO_V2_TOOL(name: string, input: JsonObject): { name: string; input: JsonObject } {
  let i = renameKey(input, 'filePath', 'path')
  if (name === 'skill') i = renameKey(i, 'name', 'id')
  return { name: NAMES[name] ?? name, input: i }
}

/** An OpenCode 2 call as v1 (ferry's vocabulary) names it. */
export function V2_TO_V1_TOOL(name: string, input: unknown): { name: string; input: unknown } {
  const v1 = BACK[name] ?? name
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { name: v1, input }
  let i = renameKey(input as JsonObject, 'path', 'filePath')
  if (v1 === 'skill') i = renameKey(i, 'id', 'name')
  return { name: v1, input: i }
}
