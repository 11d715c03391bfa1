/** Copilot CLI's own options: the model a written session records. */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

/** The model recorded when neither the flag nor the source names one (the id the real client was verified with). */
export const DEFAULT_MODEL = 'claude-sonnet-4.5'

export const readFlags = {} satisfies Flags

/** On the CLI `--copilot-model`; `opts.model` in the library. */
export const writeFlags = {
  model: {
    type: 'string',
    describe: `model to record as the session's selectedModel (default: the source model, else ${DEFAULT_MODEL}); BYOK runs choose their model with COPILOT_MODEL`,
  },
} as const satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
