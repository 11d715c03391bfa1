/**
 * Listing Kilo sessions: the family's one query over `session` per database
 * (top-level sessions; sub-agent and archived ones with `all`).
 */
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { listSessions, resolveSession } from '../family/opencode-rows.js'
import { layout } from './paths.js'

export const discover = (ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> => listSessions(ctx, layout, opts)

/** A session by id, unique id prefix, or `kilo:<id>`, in every database. */
export const resolve = (ctx: StoreContext, ref: string): Promise<SessionInfo | null> => resolveSession(ctx, layout, ref)
