/** Pi's own options; on the CLI `--pi-<key>`. */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

export const readFlags = {} satisfies Flags

export const writeFlags = {
  provider: { type: 'string', describe: 'provider id written on assistant messages from other agents (the one Pi resumes with; default: the source provider)' },
  model: { type: 'string', describe: 'model id written on assistant messages from other agents (default: the source model)' },
} satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
/** The options every sink takes plus `provider` and `model`. */
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
