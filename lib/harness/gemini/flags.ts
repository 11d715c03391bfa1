/** Gemini CLI has no options of its own. */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

export const readFlags = {} satisfies Flags
export const writeFlags = {} satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
