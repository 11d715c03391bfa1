/**
 * normalize-tools: maps every tool call to the canonical vocabulary
 * (Claude Code's names and argument keys) with lib/tools/table.ts, keeping
 * the original in `native_name` / `native_input`. With `style` set to a
 * harness id it maps to that harness's own names instead (for reading a
 * session in a familiar vocabulary; `native_*` keep the source's). Its
 * options are `normalizeToolsOptions` below.
 *
 * The harness is taken from each record's session key. Grok's ACP tool
 * kinds (`x['grok.tool_kinds']`) are passed to the table for randomised
 * tool names. Messages with a changed call lose `native`.
 */
import type { Transform } from 'node:stream'
import { sourceHarness, type Block, type MessageRec, type ToolUseBlock } from '../lib/model.js'
type HarnessId = string
import { toCanonical, toNative } from '../lib/tools/table.js'
import { mapRecords } from '../lib/pipeline.js'
import { storeHarnesses } from '../lib/harness/registry.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'
import { withBlocks } from './util.js'

export const normalizeToolsOptions = defineOptions({
  style: { type: 'string', choices: () => storeHarnesses().map((h) => h.id), describe: 'Map to this harness\'s vocabulary instead of the canonical one' },
})

export type NormalizeToolsOptions = OptionsOf<typeof normalizeToolsOptions>

export function normalizeTools(options: NormalizeToolsOptions = {}): Transform {
  const opts = resolveOptions('normalize-tools', normalizeToolsOptions, options)
  return mapRecords((rec, push) => {
    if (rec.kind !== 'message' || !rec.blocks.some((b) => b.type === 'tool_use')) return push(rec)
    const m = rec as MessageRec
    const harness = sourceHarness(m)
    const kinds = (m.x?.['grok.tool_kinds'] ?? undefined) as Record<string, string> | undefined
    let blocks: Block[] | null = null
    m.blocks.forEach((b, i) => {
      if (b.type !== 'tool_use') return
      const kind = kinds?.[b.id]
      let n: ToolUseBlock = toCanonical(harness, b, kind ? { kind } : undefined)
      if (opts.style && opts.style !== harness) {
        const t = toNative(opts.style as HarnessId, n, harness)
        n = { ...n, name: t.name, input: t.input, native_name: n.native_name ?? b.name }
        if (n.native_input === undefined && t.input !== b.input) n.native_input = b.input
      } else if (opts.style === harness) {
        n = b
      }
      if (n !== b) (blocks ??= m.blocks.slice())[i] = n
    })
    push(blocks ? withBlocks(m, blocks) : m)
  })
}
