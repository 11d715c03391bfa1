/** Claude Code's own options; on the CLI `--claude-code-<key>` (older names kept as aliases). */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

export const readFlags = {
  inlineSpilled: { type: 'boolean', describe: 'replace <persisted-output> previews with the full text from tool-results/*.txt', default: false, aliases: ['inline-spilled'] },
} satisfies Flags

export const writeFlags = {
  thinking: { type: 'string', choices: ['text', 'drop'] as const, describe: 'reasoning without a genuine Anthropic signature is written as "text" or "drop"ped', default: 'text', aliases: ['thinking'] },
} satisfies Flags

/** The options every reader takes plus `inlineSpilled`. */
export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
/** The options every sink takes plus `thinking` (`text` or `drop`). */
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
