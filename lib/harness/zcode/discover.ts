/**
 * Listing ZCode sessions: one query over `session` per database, adapted to
 * the columns that database has. Archived sessions only with `all`;
 * sub-agent sessions are listed with their parent named.
 */
import { resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { listSessions, onlySession, resolveSession, type Layout } from '../family/opencode-rows.js'
import { databases, isDbFile } from './paths.js'

/** ZCode's `title_source` in ferry's words (`default` is ZCode's placeholder title). */
export function titleSource(ts: string | null | undefined): string {
  switch (ts) {
    case 'generated':
      return 'ai'
    case 'custom':
      return 'custom'
    case 'default':
      return 'default'
    default:
      return 'first_prompt'
  }
}

/** ZCode's database as the family's code reads it. */
export const layout: Layout = {
  harness: 'zcode',
  sessionPrefix: 'sess',
  sessionColumns: ['id', 'parent_id', 'directory', 'path', 'title', 'title_source', 'version', 'time_created', 'time_updated', 'time_archived', 'task_type'],
  databases,
  title: (row) => (row.title ? { title: row.title, source: titleSource(row.title_source) } : undefined),
  listsChildren: true,
  listOrder: { column: 'time_updated', id: 'DESC' },
}

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
