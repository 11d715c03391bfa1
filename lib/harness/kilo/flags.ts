/**
 * Kilo's own options: it reads with none; it writes with the family's
 * document flags (`--kilo-provider`, `--kilo-model`, `--kilo-import`).
 */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'
import { documentFlags } from '../family/opencode-flags.js'

export const readFlags = {} satisfies Flags

export const writeFlags = documentFlags('kilo')

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
