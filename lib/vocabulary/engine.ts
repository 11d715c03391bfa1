/**
 * The mapping engine: native ↔ canonical (Claude Code's names and keys) for
 * any harness, with the vocabulary the registry handed over for it
 * (`vocabularyOf`). It knows no harness; each harness's names live in
 * `lib/harness/<id>/tools.ts`. Sources and the reasoning per row: docs/tools.md.
 *
 * Rules (common-model.md §8):
 * - `toCanonical` sets `name`/`input` to canonical form, keeps the original
 *   name in `native_name` (when it differs) and the original arguments in
 *   `native_input` whenever the mapping is more than a key rename. Pure key
 *   renames are reversed from the vocabulary, so they keep no copy.
 * - Unknown tools, `mcp__*` and slash commands (`/…`) pass through untouched;
 *   nothing is guessed from a name the vocabulary does not list (a reader's
 *   hint may still identify it, see `ToolVocabulary.byHint`).
 * - A mapping whose input does not have the expected shape is not applied:
 *   the block stays native rather than half-converted.
 */
import type { ToolUseBlock } from '../model.js'
import { invert, isObj, rename } from './build.js'
import { vocabularyOf } from './registry.js'
import type { NativeCall, Rule, ToolHint, ToolVocabulary } from './types.js'

function passthrough(name: string): boolean {
  return name.startsWith('mcp__') || name.startsWith('/')
}

function own<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined
}

function invertible(keys: Record<string, string>): boolean {
  const v = Object.values(keys)
  return new Set(v).size === v.length
}

type Mapped = { name: string; input: unknown; keepNative: boolean }

function byRule(rule: Rule, block: ToolUseBlock): Mapped | null {
  const raw = block.input
  if (rule.to) {
    const r = rule.to(isObj(raw) ? raw : {}, raw)
    return r ? { name: r.name ?? rule.canon, input: r.input, keepNative: true } : null
  }
  if (!isObj(raw)) return rule.canon === block.name ? null : { name: rule.canon, input: raw, keepNative: false }
  const input = rule.keys ? rename(raw, rule.keys) : raw
  // A rename is reversed from the vocabulary only when it is recognisable
  // (the name changed) and unambiguous (one native key per canonical key).
  const changed = rule.keys !== undefined && Object.keys(raw).some((k) => rule.keys![k] !== undefined)
  return { name: rule.canon, input, keepNative: changed && (rule.canon === block.name || !invertible(rule.keys!)) }
}

function byHint(v: ToolVocabulary, block: ToolUseBlock, hint: ToolHint | undefined): Mapped | null {
  const r = hint && v.byHint ? v.byHint(hint, block.input) : null
  return r ? { name: r.name, input: r.input, keepNative: true } : null
}

/**
 * Native → canonical. Returns a block whose `name`/`input` are canonical and
 * whose `native_name`/`native_input` keep the original when they differ.
 * Unknown tools and `mcp__*` pass through untouched. Idempotent.
 */
export function toCanonical(harness: string, block: ToolUseBlock, hint?: ToolHint): ToolUseBlock {
  if (block.native_name !== undefined || block.native_input !== undefined || passthrough(block.name)) return block
  const v = vocabularyOf(harness)
  const rule = own(v.rules, block.name)
  const m = rule ? byRule(rule, block) : byHint(v, block, hint)
  if (!m) return block
  const out: ToolUseBlock = { ...block, name: m.name, input: m.input }
  if (m.name !== block.name) out.native_name = block.name
  if (m.keepNative) out.native_input = block.input
  return out
}

/**
 * Canonical → the target's own call. Tools the target lacks keep their
 * canonical name (Claude Code, Codex and OpenCode all replayed foreign tool
 * names from history in our tests).
 */
function fromCanonical(target: string, name: string, input: unknown): NativeCall {
  const f = own(vocabularyOf(target).targets, name)
  if (!f || passthrough(name)) return { name, input }
  return f(isObj(input) ? input : {}, input) ?? { name, input }
}

function withFreeform(target: string, name: string, input: unknown): NativeCall {
  return vocabularyOf(target).freeform?.(name, input) ? { name, input, freeform: true } : { name, input }
}

/**
 * Any → the target harness's own name and input. `sourceHarness` is the
 * harness the block was read from: when it equals the target, the native
 * name/input are used as they are.
 */
export function toNative(target: string, block: ToolUseBlock, sourceHarness: string): NativeCall {
  if (sourceHarness === target) {
    const name = block.native_name ?? block.name
    if (block.native_input !== undefined) return withFreeform(target, name, block.native_input)
    if (block.native_name === undefined) return withFreeform(target, block.name, block.input)
    // A pure rename: reverse the keys from the vocabulary.
    const rule = own(vocabularyOf(target).rules, name)
    const input = rule?.keys && isObj(block.input) ? rename(block.input, invert(rule.keys)) : block.input
    return withFreeform(target, name, input)
  }
  const c = toCanonical(sourceHarness, block)
  return fromCanonical(target, c.name, c.input)
}
