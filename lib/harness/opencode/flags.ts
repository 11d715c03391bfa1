/**
 * OpenCode's own options: it reads with none; it writes with the family's
 * document flags (provider, model, and whether to hand the document to
 * `opencode import`).
 */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'
import { documentFlags } from '../family/opencode-flags.js'

export const readFlags = {} satisfies Flags

export const writeFlags = documentFlags('opencode')

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
