/**
 * Listing OpenCode sessions: one query over `session` per database, nothing
 * else read. Sub-agent (child) sessions and archived ones are listed only
 * with `all`; reading a parent emits its children anyway.
 */
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { listSessions, resolveSession } from '../family/opencode-rows.js'
import { layout } from './paths.js'

export function discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  return listSessions(ctx, layout, opts)
}

/** A session by id, unique id prefix, or `opencode:<id>`, in every database. */
export function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  return resolveSession(ctx, layout, ref)
}
