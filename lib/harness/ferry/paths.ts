/**
 * The interchange stream keeps no store: a session is a file, or stdin (`-`).
 * Its `store` exists for the contract; the root is the home directory.
 */
import type { StoreSpec } from '../types.js'

export const HARNESS = 'ferry'

/** The ref and path that stand for stdin (and, for a sink, stdout). */
export const STDIN = '-'

export const store: StoreSpec = { envVars: [], root: (ctx) => ctx.home }
