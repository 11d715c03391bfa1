/**
 * Listing ZCode sessions: one query over `session` per database, adapted to
 * the columns that database has. Archived sessions only with `all`;
 * sub-agent sessions are listed with their parent named.
 */
import { resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { listSessions, onlySession, resolveSession } from '../family/opencode-rows.js'
import { isDbFile, layout } from './paths.js'

export function discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  return listSessions(ctx, layout, opts)
}

/** The session of a database file given by path, when it holds exactly one top-level session. */
function byPath(path: string): SessionInfo | null {
  const p = resolvePath(path)
  return isDbFile(p) ? onlySession(layout, p) : null
}

/** A session by `zcode:<id>`, id, unique id prefix, or the path of a database holding exactly one session. */
export function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  return resolveSession(ctx, layout, ref, byPath)
}
