/**
 * Opening OpenCode's live database without touching it: the technique lives
 * in lib/io/sqlite-readonly.ts (shared with every SQLite store); these wrappers
 * name OpenCode in the errors.
 */
import { existsSync } from 'node:fs'
import type Database from 'better-sqlite3'
import type { FerryError } from '../../errors.js'
import { columns as tableColumns, dbError as sqliteError, openReadOnly as openSqliteReadOnly, type ReadOnlyDb } from '../../io/sqlite-readonly.js'

export type { ReadOnlyDb }

/** Opens `path` read-only so that neither it nor its `-wal`/`-shm` change. */
export function openReadOnly(path: string): ReadOnlyDb {
  return openSqliteReadOnly(path, { source: 'opencode', busyTimeout: 5000 })
}

/** Column names of a table (empty when the table does not exist): the schema drifts, so queries adapt. */
export function columns(db: Database.Database, table: string): Set<string> {
  return tableColumns(db, table)
}

/** Whether `ses` is in the database at `path` (false when it cannot be read: nothing there to collide with). */
export function sessionExists(path: string, ses: string): boolean {
  if (!existsSync(path)) return false
  let h: ReadOnlyDb
  try {
    h = openReadOnly(path)
  } catch {
    return false
  }
  try {
    return h.db.prepare('SELECT 1 FROM session WHERE id = ?').get(ses) !== undefined
  } catch {
    return false
  } finally {
    h.close()
  }
}

/** A database error met mid-query (locked, corrupt page) as the FerryError every caller reports. */
export function dbError(err: unknown, path: string): FerryError {
  return sqliteError(err, path, 'opencode')
}
