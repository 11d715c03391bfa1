/**
 * The shape check at the interchange boundary. Writers and transforms trust
 * the model's types; a record that parses but breaks them (`{"kind":"message"}`
 * with no blocks, `sid: null`, a text that is a number) would otherwise reach
 * them and surface as a JavaScript TypeError. Checked once here, it is a
 * located `bad-record` instead, skipped like any bad line.
 *
 * Only what readers of the model dereference is checked; optional fields may
 * be absent, and kinds or block types of a later minor version pass (writers
 * ignore them, as docs/stream-format.md says).
 */
import { isObj, type JsonObject } from '../model.js'

const ROLES = new Set(['user', 'assistant', 'system'])

const optString = (o: JsonObject, k: string): boolean => o[k] === undefined || typeof o[k] === 'string'
const optStringOrNull = (o: JsonObject, k: string): boolean => o[k] === undefined || o[k] === null || typeof o[k] === 'string'

/** What is wrong with one block, or null. */
function blockProblem(b: unknown, where: string): string | null {
  if (!isObj(b) || typeof b.type !== 'string') return `${where} is not a block (an object with a string "type")`
  switch (b.type) {
    case 'text':
    case 'thinking':
      return typeof b.text === 'string' ? null : `${where} (${b.type}) has no string "text"`
    case 'tool_use':
      return typeof b.id === 'string' && typeof b.name === 'string' ? null : `${where} (tool_use) needs string "id" and "name"`
    case 'tool_result': {
      if (typeof b.tool_use_id !== 'string') return `${where} (tool_result) has no string "tool_use_id"`
      if (typeof b.content === 'string') return null
      if (!Array.isArray(b.content)) return `${where} (tool_result) "content" is neither a string nor a list`
      for (let i = 0; i < b.content.length; i++) {
        const p = blockProblem(b.content[i], `${where}.content[${i}]`)
        if (p) return p
      }
      return null
    }
    case 'image':
    case 'file':
      return typeof b.mime === 'string' && optString(b, 'data') && (b.ref === undefined || isObj(b.ref)) ? null : `${where} (${b.type}) needs a string "mime" (and a string "data" or an object "ref")`
    case 'unknown':
      return typeof b.native_type === 'string' ? null : `${where} (unknown) has no string "native_type"`
    default:
      return null
  }
}

/** What is wrong with a record (a JSON object with a string `kind`), or null when writers can take it. */
export function recordProblem(rec: JsonObject): string | null {
  if (rec.kind === 'stream') return null
  if (typeof rec.sid !== 'string' || rec.sid === '') return `${rec.kind} record without a string "sid"`
  if (!optString(rec, 'id')) return `${rec.kind} record with a non-string "id"`
  switch (rec.kind) {
    case 'session':
      if (!optString(rec, 'native_id') || !optString(rec, 'cwd') || !optString(rec, 'title') || !optString(rec, 'model')) return 'session header: native_id, cwd, title and model must be strings'
      if (!optString(rec, 'created_at') || !optString(rec, 'updated_at')) return 'session header: created_at and updated_at must be strings'
      if (rec.source !== undefined && !isObj(rec.source)) return 'session header: "source" is not an object'
      if (rec.parent !== undefined && rec.parent !== null && !(isObj(rec.parent) && typeof rec.parent.sid === 'string')) return 'session header: "parent" needs a string "sid"'
      return null
    case 'message': {
      if (typeof rec.role !== 'string' || !ROLES.has(rec.role)) return `message without a role (user, assistant or system)`
      if (!Array.isArray(rec.blocks)) return 'message without a "blocks" list'
      if (!optStringOrNull(rec, 'ts')) return 'message "ts" is not a string'
      for (let i = 0; i < rec.blocks.length; i++) {
        const p = blockProblem(rec.blocks[i], `blocks[${i}]`)
        if (p) return `message ${p}`
      }
      if (rec.usage !== undefined && !isObj(rec.usage)) return 'message "usage" is not an object'
      return null
    }
    case 'boundary':
      return typeof rec.type === 'string' && optString(rec, 'summary') && optStringOrNull(rec, 'ts') ? null : 'boundary needs a string "type" (and a string "summary" when it has one)'
    case 'native':
      return typeof rec.native_type === 'string' ? null : 'native record without a string "native_type"'
    case 'end':
      if (rec.complete !== undefined && typeof rec.complete !== 'boolean') return 'end "complete" is not true or false'
      if (rec.warnings !== undefined && !(Array.isArray(rec.warnings) && rec.warnings.every((w) => isObj(w) && typeof w.code === 'string'))) return 'end "warnings" is not a list of {code}'
      if (!optString(rec, 'title') || !optString(rec, 'updated_at')) return 'end: title and updated_at must be strings'
      return null
    default:
      return null
  }
}

/**
 * Fills what the model requires of a session header and the format lets a
 * producer leave out (`native_id`, `source`, `source.locator`), from its key; a key
 * without a harness prefix is credited to `fallbackHarness` (the reader or sink at hand).
 */
export function withHeaderDefaults<T extends JsonObject>(rec: T, fallbackHarness: string): T {
  if (rec.kind !== 'session' || typeof rec.sid !== 'string') return rec
  const i = rec.sid.indexOf(':')
  const harness = i < 0 ? '' : rec.sid.slice(0, i)
  const out: JsonObject = { ...rec }
  if (typeof out.native_id !== 'string') out.native_id = i < 0 ? rec.sid : rec.sid.slice(i + 1)
  if (!isObj(out.source)) out.source = { harness: harness || fallbackHarness, locator: {} }
  else if (!isObj((out.source as JsonObject).locator)) out.source = { ...(out.source as JsonObject), locator: {} }
  return out as T
}
