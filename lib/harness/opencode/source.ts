/**
 * Reading one OpenCode session (and its sub-agent sessions) from the SQLite
 * store: the family's reader (`family/opencode-read.ts`) on OpenCode's layout.
 */
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import type { SessionInfo } from '../types.js'
import { readSession } from '../family/opencode-read.js'
import { layout } from './paths.js'
import type { ReadOpts } from './flags.js'

export function read(ctx: StoreContext, session: SessionInfo, opts: ReadOpts = {}): Readable {
  return readSession(ctx, layout, session, opts)
}
