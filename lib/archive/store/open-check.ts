/**
 * What an archive file must be before ferry writes to it: absent, empty, or
 * a ferry archive of a schema this ferry knows, with its tables. Checked on a
 * read-only connection before the writable one is opened, so another
 * program's database, a newer ferry's archive, a damaged file or an archive
 * that lost a table is refused untouched: no table added, no WAL switched on,
 * nothing "repaired" (an archive recreated without its records would find
 * every session unchanged and never read them again).
 */
import { statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { FerryError } from '../../errors.js'

/** The tables every archive of every schema has. */
const TABLES = ['meta', 'sessions', 'records', 'fts'] as const

/**
 * Throws a located `db-error` unless `path` is absent, empty (no tables) or a
 * ferry archive whose `schema` is an integer from 1 to `known`.
 */
export function checkArchiveBeforeWrite(path: string, known: number): void {
  let size: number
  try {
    size = statSync(path).size
  } catch {
    return // Absent: a new archive.
  }
  if (size === 0) return
  const refuse = (why: string, cause?: unknown): never => {
    throw new FerryError(`${why}; it was left as it is`, { code: 'db-error', position: { file: path }, cause })
  }
  let db: Database.Database | undefined
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
    const names = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name))
    if (names.size === 0) return // A database with nothing in it (a first run killed before its tables): nothing to lose.
    if (!names.has('meta') || !names.has('sessions')) refuse('not a ferry archive (another program’s database?): give --db a new file')
    const v = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: unknown } | undefined
    const raw = v?.value
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN
    if (!Number.isInteger(n) || n < 1) refuse(`not a ferry archive of a known schema (schema ${JSON.stringify(raw ?? null)})`)
    if (n > known) refuse(`made by a newer ferry (schema ${n}; this ferry knows ${known})`)
    const missing = TABLES.filter((t) => !names.has(t))
    if (missing.length) refuse(`a damaged ferry archive: its ${missing.join(', ')} table${missing.length > 1 ? 's are' : ' is'} missing (recreating ${missing.length > 1 ? 'them' : 'it'} would lose every record); restore it from a backup or archive into a new file`)
  } catch (err) {
    if (err instanceof FerryError) throw err
    refuse(`cannot read the archive: ${(err as Error).message}`, err)
  } finally {
    db?.close()
  }
}
