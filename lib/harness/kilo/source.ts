/**
 * Reading one Kilo session (then its sub-agent sessions): the family's
 * reader on Kilo's layout; Kilo's rows are OpenCode's.
 */
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import type { SessionInfo } from '../types.js'
import { readSession } from '../family/opencode-read.js'
import { layout } from './paths.js'
import type { ReadOpts } from './flags.js'

export const read = (ctx: StoreContext, session: SessionInfo, opts: ReadOpts = {}): Readable => readSession(ctx, layout, session, opts)
