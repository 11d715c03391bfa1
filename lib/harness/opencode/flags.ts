/**
 * OpenCode's own options: it reads with none; it writes with the family's
 * document flags (provider, model, and whether to hand the document to
 * `opencode import`) and the schema written (1.x or OpenCode 2).
 */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'
import { documentFlags } from '../family/opencode-flags.js'

export const readFlags = {} satisfies Flags

export const writeFlags = {
  ...documentFlags('opencode'),
  schema: { type: 'string', choices: ['auto', 'v1', 'v2'] as const, default: 'auto', describe: 'the schema written: v2 = OpenCode 2 (rows in session_v2/session_message; with --out a SessionTransfer document for `opencode2 import`), v1 = an export document for `opencode import`; auto = v2 when the database has OpenCode 2 tables' },
} satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
