/**
 * Listing OpenCode sessions: one query over `session` per database, nothing
 * else read. Sub-agent (child) sessions and archived ones are listed only
 * with `all`; reading a parent emits its children anyway.
 */
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { listSessions, resolveSession, type Layout } from '../family/opencode-rows.js'
import { databases } from './paths.js'

/** Untitled sessions carry `New session - <time>`: not a title. */
function realTitle(title: unknown): string | undefined {
  if (typeof title !== 'string' || title === '' || /^(New session|Child session) - /.test(title)) return undefined
  return title
}

/** OpenCode's database as the family's code reads it. */
export const layout: Layout = {
  harness: 'opencode',
  sessionPrefix: 'ses',
  sessionColumns: ['id', 'parent_id', 'directory', 'title', 'version', 'model', 'time_created', 'time_updated', 'time_archived'],
  busyTimeout: 5000,
  databases,
  title(row) {
    const title = realTitle(row.title)
    return title ? { title, source: 'ai' } : undefined
  },
  listsChildren: false,
  listOrder: { column: 'time_created', id: 'ASC' },
}

export function discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncIterable<SessionInfo> {
  return listSessions(ctx, layout, opts)
}

/** A session by id, unique id prefix, or `opencode:<id>`, in every database. */
export function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  return resolveSession(ctx, layout, ref)
}
