/**
 * The tool vocabulary table: every harness's tool names and argument keys
 * mapped to one canonical set (Claude Code's names and keys), and back.
 * Readers emit native names; the normalize-tools transform and every writer
 * use this one table. See docs/tools.md.
 *
 * (Initial skeleton: the transforms work fills in the full table.)
 */
import type { HarnessId, ToolUseBlock } from '../model.js'

export interface NativeCall {
  name: string
  input: unknown
}

/**
 * Native → canonical. Returns a block whose `name`/`input` are canonical and
 * whose `native_name`/`native_input` keep the original when they differ.
 * Unknown tools and `mcp__*` pass through untouched. Idempotent.
 */
export function toCanonical(harness: string, block: ToolUseBlock): ToolUseBlock {
  return block
}

/**
 * Any → the target harness's own name and input. `sourceHarness` is the
 * harness the block was read from (from the session key): when it equals the
 * target, the native name/input are used as they are.
 */
export function toNative(target: HarnessId, block: ToolUseBlock, sourceHarness: string): NativeCall {
  if (sourceHarness === target) return { name: block.native_name ?? block.name, input: block.native_input ?? block.input }
  const c = toCanonical(sourceHarness, block)
  return { name: c.name, input: c.input }
}
