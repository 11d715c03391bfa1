/**
 * Opening an agent's live SQLite database without changing a byte of it.
 *
 * Agents keep their database in WAL mode and may be writing
 * while ferry reads. A plain read-only connection still writes read-marks
 * into `-shm`, and on a database with no `-wal`/`-shm` it creates both (and
 * leaves them behind), so:
 *
 * - `-wal` and `-shm` present (the agent has it open, or crashed): open with
 *   `readonly_shm=1`, which maps `-shm` read-only; SQLite then reads the WAL
 *   itself and still sees pages not yet checkpointed into the main file.
 * - neither present (nobody has it open, everything is in the main file): open
 *   with `immutable=1`, which creates no file and takes no lock.
 * - anything else, or if the URI forms cannot be used: read a private
 *   snapshot copy of the db (+ wal) taken in a temp dir.
 *
 * URI file names need SQLITE_USE_URI=1 when better-sqlite3's addon loads
 * (lazily, at the first `new Database`), hence the assignment below.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { FerryError, errorMessage } from '../errors.js'

if (process.env.SQLITE_USE_URI === undefined) process.env.SQLITE_USE_URI = '1'

export interface ReadOnlyDb {
  db: Database.Database
  /** How it was opened: `immutable`, `readonly_shm` or `snapshot`. */
  mode: 'immutable' | 'readonly_shm' | 'snapshot'
  close(): void
}

function uri(path: string, param: string): string {
  return `file:${path.split('/').map(encodeURIComponent).join('/')}?${param}`
}

function nonEmpty(path: string): boolean {
  try {
    return statSync(path).size > 0
  } catch {
    return false
  }
}

const OPTS = { readonly: true, fileMustExist: true, timeout: 5000 } as const

/** Opens `path` read-only so that neither it nor its `-wal`/`-shm` change. `source` names the harness in errors. */
export function openReadOnly(path: string, source: string): ReadOnlyDb {
  if (!existsSync(path)) throw new FerryError('database not found', { code: 'db-error', position: { file: path }, source })
  const wal = existsSync(`${path}-wal`)
  const shm = existsSync(`${path}-shm`)
  const attempt = !wal && !shm ? ('immutable' as const) : wal && shm ? ('readonly_shm' as const) : null
  if (attempt) {
    try {
      const db = new Database(uri(path, attempt === 'immutable' ? 'immutable=1' : 'readonly_shm=1'), OPTS)
      // Touch the schema now so an unusable file fails here, not mid-stream.
      db.prepare('SELECT count(*) FROM sqlite_master').get()
      return { db, mode: attempt, close: () => db.close() }
    } catch {
      // fall through to the snapshot copy
    }
  }
  return openSnapshot(path, wal, source)
}

function openSnapshot(path: string, wal: boolean, source: string): ReadOnlyDb {
  const dir = mkdtempSync(join(tmpdir(), `ferry-${source}-`))
  try {
    const copy = join(dir, 'snapshot.db')
    copyFileSync(path, copy)
    if (wal && nonEmpty(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
    const db = new Database(copy, OPTS)
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return {
      db,
      mode: 'snapshot',
      close: () => {
        db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw new FerryError(`cannot read database: ${errorMessage(err)}`, { code: 'db-error', position: { file: path }, source, cause: err })
  }
}

/** Column names of a table (empty when the table does not exist): schemas drift, so queries adapt. */
export function columns(db: Database.Database, table: string): Set<string> {
  const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>
  return new Set(rows.map((r) => r.name))
}

/** A database error met mid-query (locked, corrupt page) as the FerryError every caller reports. */
export function dbError(err: unknown, path: string, source: string): FerryError {
  if (err instanceof FerryError) return err
  return new FerryError(`cannot read database: ${errorMessage(err)}`, { code: 'db-error', position: { file: path }, source, cause: err })
}
