/**
 * Reading a damaged archive: a page SQLite cannot read, or a row whose text
 * is not the JSON ferry wrote, costs the rows on it, each reported as a
 * located `bad-row` (the database file and the record), never the whole
 * export or read, and never an `internal` error without a place.
 */
import { FerryError } from '../../errors.js'
import type { ArchiveDb } from './db.js'

/** SQLite's "database disk image is malformed" family (and a file that is not a database at all). */
export function isDamage(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '')
  // `malformed JSON`: a stored record's text that SQLite's json functions cannot read (export reads `parent` with one).
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR') || (code === 'SQLITE_ERROR' && /malformed JSON/.test(String((err as Error).message)))
}

/** A damaged database as a located `db-error` (what was being read goes into `row`). */
export function damageError(db: ArchiveDb, err: unknown, row?: string): FerryError {
  return new FerryError(`the archive is damaged: ${(err as Error).message}`, { code: 'db-error', position: { file: db.name, ...(row ? { row } : {}) }, cause: err })
}

/** One record that could not be read or decoded, as a located `bad-row`. */
export function badRow(db: ArchiveDb, row: string, err: unknown): FerryError {
  return new FerryError(`${(err as Error).message}; the record is skipped`, { code: 'bad-row', position: { file: db.name, row }, cause: err })
}

/**
 * One page of rows read with `page()`; when SQLite finds a damaged page
 * under it, the same rows are read again one by one (their ids from
 * `ids()`, which should read an index, not the table), each one that still
 * fails goes to `onBad`, and the rest come back. When even the ids cannot
 * be read, a located `db-error` is thrown.
 */
export function pageOrSalvage<T>(db: ArchiveDb, page: () => T[], ids: () => number[], one: (rid: number) => T | undefined, onBad: (e: FerryError) => void): T[] {
  try {
    return page()
  } catch (err) {
    if (!isDamage(err)) throw err
    let rids: number[]
    try {
      rids = ids()
    } catch (err2) {
      throw damageError(db, isDamage(err2) ? err2 : err, 'records')
    }
    const out: T[] = []
    for (const rid of rids) {
      try {
        const r = one(rid)
        if (r !== undefined) out.push(r)
      } catch (err3) {
        if (!isDamage(err3)) throw err3
        onBad(badRow(db, `records:${rid}`, err3))
      }
    }
    return out
  }
}

/** The record ids after `after` (in rid order, up to `limit`), read from an index when one has them (a damaged table page does not stop it). */
export function recordIdsAfter(db: ArchiveDb, after: number, limit: number): number[] {
  for (const sql of ['SELECT rid FROM records INDEXED BY records_filter WHERE rid > ? ORDER BY rid LIMIT ?', 'SELECT rid FROM records WHERE rid > ? ORDER BY rid LIMIT ?']) {
    try {
      return (db.prepare(sql).all(after, limit) as { rid: number }[]).map((r) => r.rid)
    } catch (err) {
      if (isDamage(err)) throw err
      // No such index (another layout): the table itself.
    }
  }
  return []
}

/** `read()`, with a damaged page as a located `db-error` naming what was being read. */
export function pageOrThrow<T>(db: ArchiveDb, read: () => T, row: string): T {
  try {
    return read()
  } catch (err) {
    throw isDamage(err) ? damageError(db, err, row) : err
  }
}
