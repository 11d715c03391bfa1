/**
 * normalize-tools: maps every tool call to the canonical vocabulary
 * (Claude Code's names and argument keys) with lib/vocabulary, keeping
 * the original in `native_name` / `native_input`. With `style` set to a
 * harness id it maps to that harness's own names instead (for reading a
 * session in a familiar vocabulary; `native_*` keep the source's). Its
 * options are `normalizeToolsOptions` below.
 *
 * The source harness is `sourceHarness()` of the session (its header when
 * seen, else the session key). Hints its reader left on a message (e.g. ACP
 * tool kinds for randomised names) come from that harness's vocabulary.
 * Messages with a changed call lose `native`.
 */
import type { Transform } from 'node:stream'
import { sourceHarness, type Block, type MessageRec, type ToolUseBlock } from '../lib/model.js'
import { toCanonical, toNative, vocabularyOf } from '../lib/vocabulary/index.js'
import { mapRecords } from '../lib/io/pipeline.js'
import { harnessEntry, storeEntries } from '../lib/harness/manifest.js'
import { defineOptions, resolveOptions, type OptionsOf } from './spec.js'
import { withBlocks } from './util.js'

export const normalizeToolsOptions = defineOptions({
  style: { type: 'string', choices: () => storeEntries().map((h) => h.id), describe: 'Map to this harness\'s vocabulary instead of the canonical one' },
})

export type NormalizeToolsOptions = OptionsOf<typeof normalizeToolsOptions>

export function normalizeTools(options: NormalizeToolsOptions = {}): Transform {
  const opts = resolveOptions('normalize-tools', normalizeToolsOptions, options)
  // An unknown style is a usage error (with a suggestion), not a silent no-op.
  const style = opts.style ? harnessEntry(opts.style).id : undefined
  const from = new Map<string, string>()
  return mapRecords((rec, push) => {
    if (rec.kind === 'session') from.set(rec.sid, sourceHarness(rec))
    if (rec.kind !== 'message' || !rec.blocks.some((b) => b.type === 'tool_use')) return push(rec)
    const m = rec as MessageRec
    const harness = from.get(m.sid) ?? sourceHarness(m)
    const hints = vocabularyOf(harness).hints?.(m)
    let blocks: Block[] | null = null
    m.blocks.forEach((b, i) => {
      if (b.type !== 'tool_use') return
      let n: ToolUseBlock = toCanonical(harness, b, hints?.[b.id])
      if (style && style !== harness) {
        const t = toNative(style, n, harness)
        n = { ...n, name: t.name, input: t.input, native_name: n.native_name ?? b.name }
        if (n.native_input === undefined && t.input !== b.input) n.native_input = b.input
      } else if (style === harness) {
        n = b
      }
      if (n !== b) (blocks ??= m.blocks.slice())[i] = n
    })
    push(blocks ? withBlocks(m, blocks) : m)
  })
}
