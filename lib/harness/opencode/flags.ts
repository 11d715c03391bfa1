/**
 * OpenCode's own options: it reads with none; it writes with the family's
 * provider/model flags and whether to hand the document to `opencode import`.
 */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'
import { modelFlags } from '../family/opencode-flags.js'

export const readFlags = {} satisfies Flags

export const writeFlags = {
  ...modelFlags({ provider: 'providerID', model: 'modelID', on: 'messages' }),
  import: { type: 'boolean', default: true, describe: 'run `opencode import` after writing into the store (when opencode is on PATH)' },
} satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
