/**
 * OpenCode 2's session tables, as far as the family's listing needs them:
 * `session_v2` (one row per session) and `session_message` (one row per
 * message, `type` a column, ordered by `seq`). The v1 tables (`session`,
 * `message`, `part`) stay in the same database after OpenCode 2's one-time
 * migration (`kv['migration.v1-v2']`), stale: a session in both is read
 * from v2, a v1 row without a v2 twin (written later by a 1.x client) is
 * still listed once. No runtime import of the rest of the family, so
 * `opencode-rows.ts` can use it without a cycle. docs/formats/opencode.md §OpenCode 2.
 */
import type Database from 'better-sqlite3'
import { columns } from '../../io/sqlite-readonly.js'

/** The `session_v2` columns read; the listing takes what the database has. */
export const V2_SESSION_COLUMNS = ['id', 'parent_id', 'fork_session_id', 'directory', 'title', 'version', 'model', 'time_created', 'time_updated', 'time_archived'] as const

/** Each `session_v2` row's message count: the conversation types (`user`, `assistant`), as a listing's column. */
export const V2_MESSAGE_COUNT = "(SELECT COUNT(*) FROM session_message m WHERE m.session_id = session_v2.id AND m.type IN ('user', 'assistant')) AS message_count"

/** Whether this database has OpenCode 2's session tables. */
export function hasV2(db: Database.Database): boolean {
  return columns(db, 'session_v2').has('id') && columns(db, 'session_message').has('session_id')
}

/** The v1 rows a listing skips in a database that has v2 tables: those migrated into them. */
export const NOT_MIGRATED = 'id NOT IN (SELECT id FROM session_v2)'
