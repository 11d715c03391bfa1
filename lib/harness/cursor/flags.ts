/** Cursor's own options: which of its stores a sink writes. */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

export const readFlags = {} satisfies Flags

export const writeFlags = {
  store: { type: 'string', choices: ['auto', 'transcript', 'chat', 'both', 'ide'] as const, default: 'auto', describe: 'which Cursor stores to write: transcript, chat (CLI store.db), both; auto = a Cursor transcript back as a transcript, anything else both; ide is refused (ferry never writes state.vscdb)' },
} satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
