/**
 * The archive database: one SQLite file (WAL) holding every session ferry
 * has archived, as interchange records, with where each came from and a
 * full-text index. Storage code only: it names no harness, and the sync,
 * search and export jobs (lib/archive/) take the harnesses as arguments.
 *
 * Tables (see README, "Archive and search"):
 *   sessions  one row per session key (`sid`): metadata, the header and end
 *             records, provenance (path, size, mtime, inode, head hash, a
 *             fingerprint of all of it), `gone_at` once its source is gone
 *   records   one row per stable record id: its stored parts in one
 *             compressed BLOB (`data`, see pack.ts: the record as JSON
 *             without `native`, its native pass without the source line, the
 *             source line as it came, each text kept once), its order, and
 *             whether it is on today's active branch. Schemas 1 to 3 kept the
 *             parts as text columns (`body`, `native`, `raw`)
 *   links     parent ↔ sub-agent / fork links
 *   fts       FTS5 index (text, tools, title, cwd), rowid = records.rid;
 *             contentless (schema 3): the words are derived from `body`
 *             again where a snippet is shown (search.ts), not stored twice
 */
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { xdgDir, type StoreContext } from '../../context.js'
import { FerryError } from '../../errors.js'
import { packParts, unpackParts, type Parts } from './pack.js'
import { checkArchiveBeforeWrite } from './open-check.js'

export type ArchiveDb = Database.Database

export const SCHEMA_VERSION = 4

/** The variable that moves the archive (cleared by `--home`, like every store variable). */
export const ARCHIVE_ENV = 'FERRY_ARCHIVE'

/** `$FERRY_ARCHIVE`, else `$XDG_DATA_HOME/ferry/archive.db` (`~/.local/share/ferry/archive.db`). */
export function defaultArchivePath(ctx: StoreContext): string {
  const v = ctx.env[ARCHIVE_ENV]
  if (v) return resolve(v)
  return resolve(xdgDir(ctx, 'data'), 'ferry/archive.db')
}

const FTS_COLUMNS = "text, tools, title, cwd, tokenize = 'unicode61 remove_diacritics 2'"
/**
 * Contentless: a copy of every indexed word was an eighth of the archive and
 * a sixth of its write time, and only snippets read it. `contentless_delete`
 * keeps DELETE by rowid working (a record rewritten in place, a retitled
 * session), which a plain contentless table cannot do without the old text.
 */
const ftsDefinition = `fts5(${FTS_COLUMNS}, content='', contentless_delete=1);`

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sessions (
  sid TEXT PRIMARY KEY,
  harness TEXT NOT NULL,
  native_id TEXT NOT NULL,
  cwd TEXT, title TEXT, title_source TEXT, model TEXT, agent_version TEXT, git_branch TEXT,
  created_at TEXT, updated_at TEXT,
  parent TEXT, parent_kind TEXT,
  message_count INTEGER NOT NULL DEFAULT 0,
  record_count INTEGER NOT NULL DEFAULT 0,
  header TEXT NOT NULL,
  end_rec TEXT,
  info TEXT,
  src_path TEXT, src_size INTEGER, src_mtime_ms REAL, src_ino INTEGER, src_head TEXT,
  fingerprint TEXT,
  first_archived_at TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  gone_at TEXT,
  ver INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_harness ON sessions(harness);
CREATE INDEX IF NOT EXISTS sessions_ver ON sessions(ver);
-- ls --archive's order (newest first), read in index order so -n 5 stops after five rows.
CREATE INDEX IF NOT EXISTS sessions_recent ON sessions(coalesce(updated_at, created_at));
-- What a re-run compares, apart from the wide rows (headers): one scan of this index decides which sessions to read.
CREATE INDEX IF NOT EXISTS sessions_fp ON sessions(sid, fingerprint, gone_at);
-- What marking sessions gone reads (a harness's sessions not gone, and their parents), apart from the wide rows too:
-- through the rows it read 2.7 KB a session, 0.6 s of a re-run of 100,000.
CREATE INDEX IF NOT EXISTS sessions_gone ON sessions(harness, gone_at, sid, parent);
CREATE TABLE IF NOT EXISTS records (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  sid TEXT NOT NULL,
  ord INTEGER NOT NULL,
  kind TEXT NOT NULL,
  role TEXT,
  ts TEXT,
  tools TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  seen INTEGER NOT NULL DEFAULT 0,
  ver INTEGER NOT NULL DEFAULT 0,
  data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS records_sid ON records(sid, ord, rid);
-- What search filters on, apart from the wide rows (a record row is as big as its source line): a hit is checked in this index alone.
CREATE INDEX IF NOT EXISTS records_filter ON records(rid, sid, role, ts, tools);
CREATE TABLE IF NOT EXISTS links (
  child TEXT PRIMARY KEY,
  parent TEXT NOT NULL,
  kind TEXT NOT NULL,
  tool_use_id TEXT, agent_id TEXT, at TEXT
);
CREATE INDEX IF NOT EXISTS links_parent ON links(parent);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING ${ftsDefinition}
`

export interface OpenOptions {
  /** Open read-only (ls, cat, search, export); a missing file is then an error. */
  readonly?: boolean
  /** How long to wait for another run's write lock, in ms (busy_timeout). */
  waitMs?: number
}

/** Opens (creating it when writable) the archive at `path`, in WAL mode, schema in place. */
export function openArchive(path: string, opts: OpenOptions = {}): ArchiveDb {
  let db: ArchiveDb
  if (!opts.readonly) checkArchiveBeforeWrite(path, SCHEMA_VERSION)
  try {
    if (!opts.readonly) mkdirSync(dirname(path), { recursive: true })
    db = new Database(path, { readonly: Boolean(opts.readonly), fileMustExist: Boolean(opts.readonly) })
  } catch (err) {
    const msg = (err as Error).message
    throw new FerryError(opts.readonly && /unable to open|does not exist/i.test(msg) ? 'no archive here (run `ferry archive` first, or give --db FILE)' : `cannot open the archive: ${msg}`, {
      code: 'db-error',
      position: { file: path },
      cause: err,
    })
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.waitMs ?? 30_000))}`)
    if (!opts.readonly) {
      // Records are large (the record and its source line): bigger pages mean fewer overflow chains. Only takes effect on a new file.
      db.pragma('page_size = 16384')
      db.pragma('journal_mode = WAL')
      // Checkpoint the WAL into the database every ~64 MiB rather than every 4 MiB.
      db.pragma('wal_autocheckpoint = 4096')
      db.pragma('synchronous = NORMAL')
      db.exec(DDL)
      // Checked before anything is upgraded: a newer ferry's archive is left as it is.
      const v = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema') as { value: string } | undefined
      if (v && Number(v.value) > SCHEMA_VERSION) throw new Error(`made by a newer ferry (schema ${v.value}; this ferry knows ${SCHEMA_VERSION})`)
      const packed = migrate(db)
      // The old columns' pages are free after a migration: given back to the file system once.
      if (packed) db.exec('VACUUM')
      if (!v || Number(v.value) < SCHEMA_VERSION) db.prepare("INSERT INTO meta(key, value) VALUES ('schema', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(SCHEMA_VERSION))
    } else {
      const ok = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'records', 'fts')").get() as { n: number }
      if (ok.n < 3) throw new Error('not a ferry archive (no sessions/records tables)')
    }
    db.pragma('cache_size = -8000')
  } catch (err) {
    db.close()
    if (err instanceof FerryError) throw err
    const e = err as { code?: string; message: string }
    const busy = e.code === 'SQLITE_BUSY'
    throw new FerryError(busy ? `another ferry run holds the archive (waited ${Math.round((opts.waitMs ?? 30_000) / 1000)} s); try again when it has finished` : `cannot use the archive: ${e.message}`, {
      code: 'db-error',
      position: { file: path },
      cause: err,
    })
  }
  return db
}

/**
 * Brings an archive made by an earlier ferry up to this schema (additive
 * only, so an older ferry can still read it), and sets the index's tuning.
 */
function migrate(db: ArchiveDb): boolean {
  const cols = db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[]
  // Schema 1 kept the source line inside `native` (JSON-escaped); new rows keep it apart, old rows stay readable as they are.
  if (!cols.some((c) => c.name === 'raw' || c.name === 'data')) db.exec('ALTER TABLE records ADD COLUMN raw TEXT')
  if (!ftsIsContentless(db)) rebuildContentless(db)
  const packed = !cols.some((c) => c.name === 'data') && packRecords(db)
  const conf = new Map((db.prepare('SELECT k, v FROM fts_config').all() as { k: string; v: unknown }[]).map((r) => [r.k, Number(r.v)]))
  // Terms are buffered in memory up to `hashsize` before FTS5 writes a segment: 16 MiB (default 1 MiB) means
  // 16x fewer segments to write and merge on a first archive, within the RSS bound.
  if (conf.get('hashsize') !== FTS_HASH_BYTES) db.exec(`INSERT INTO fts(fts, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`)
  return packed
}

const RECORDS_V4 = DDL.slice(DDL.indexOf('CREATE TABLE IF NOT EXISTS records ('), DDL.indexOf('CREATE TABLE IF NOT EXISTS links'))

/**
 * Schemas 1 to 3 kept a record's parts as three text columns: every row is
 * packed into the one BLOB (same rid, so the index still points at it),
 * in one transaction under the write lock; a second run waits, then finds
 * it done. Nothing is derived anew: the parts go in as they were stored.
 */
function packRecords(db: ArchiveDb): boolean {
  db.exec('BEGIN IMMEDIATE')
  try {
    const cols = db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[]
    if (cols.some((c) => c.name === 'data')) {
      db.exec('COMMIT')
      return false
    }
    db.function('ferry_pack', { deterministic: true }, (body: unknown, native: unknown, raw: unknown) => packParts(String(body), native === null ? null : String(native), raw === null ? null : String(raw)))
    db.exec(`DROP TABLE IF EXISTS records_v4; ${RECORDS_V4.replace(/records/g, 'records_v4').replace(/CREATE INDEX[^;]*;/g, '').replace(/--[^\n]*\n/g, '')}`)
    db.exec(`INSERT INTO records_v4(rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, data)
      SELECT rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, ferry_pack(body, native, raw) FROM records ORDER BY rid`)
    db.exec(`DROP TABLE records; ALTER TABLE records_v4 RENAME TO records; ${RECORDS_V4.slice(RECORDS_V4.indexOf(';') + 1)}`)
    db.exec('COMMIT')
    return true
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw err
  }
}

const FTS_HASH_BYTES = 16 * 1024 * 1024

function ftsIsContentless(db: ArchiveDb): boolean {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'fts'").get() as { sql: string } | undefined
  return !r || /content\s*=\s*''/.test(r.sql)
}

/**
 * Schemas 1 and 2 stored the indexed words in the index's own content table:
 * the index is built again, contentless, from those words (nothing is derived
 * anew, so what is found stays what was found), under the write lock so a
 * second run waits and then finds it done. Readers of the old layout keep
 * working throughout (WAL); older ferry versions refuse the new one by its
 * schema number.
 */
function rebuildContentless(db: ArchiveDb): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    if (!ftsIsContentless(db)) {
      db.exec(`DROP TABLE IF EXISTS fts_v3; CREATE VIRTUAL TABLE fts_v3 USING ${ftsDefinition}`)
      db.exec(`INSERT INTO fts_v3(fts_v3, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`)
      db.exec('INSERT INTO fts_v3(rowid, text, tools, title, cwd) SELECT rowid, text, tools, title, cwd FROM fts ORDER BY rowid')
      db.exec('DROP TABLE fts; ALTER TABLE fts_v3 RENAME TO fts')
    }
    db.exec('COMMIT')
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw err
  }
}

const partsLists = new WeakMap<ArchiveDb, string>()

/**
 * The SELECT list of a record's stored parts (`data`, or in an archive an
 * earlier ferry made, opened read-only, `body`, `native` and `raw`), for
 * `partsOf`; `t` is the records table's name or alias in the query.
 */
export function partsColumns(db: ArchiveDb, t = 'records'): string {
  let c = partsLists.get(db)
  if (c === undefined) {
    const cols = new Set((db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[]).map((x) => x.name))
    // Schema 1 has no `raw` (its lines are inside `native`).
    c = cols.has('data') ? '$.data AS data' : `$.body AS body, $.native AS native, ${cols.has('raw') ? '$.raw' : 'NULL'} AS raw`
    partsLists.set(db, c)
  }
  return c.replaceAll('$', t)
}

/** A row selected with `partsColumns`, as its stored parts. */
export interface StoredRow {
  data?: Uint8Array | null
  body?: string
  native?: string | null
  raw?: string | null
}

export function partsOf(r: StoredRow): Parts {
  return r.data ? unpackParts(r.data) : { body: r.body!, native: r.native ?? null, raw: r.raw ?? null }
}

/** Whether a file looks like a ferry archive (SQLite with our tables), without changing it. */
export function isArchiveFile(path: string): boolean {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true })
    try {
      const r = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'records', 'fts')").get() as { n: number }
      return r.n === 3
    } finally {
      db.close()
    }
  } catch {
    return false
  }
}

/** A busy/locked error from SQLite, as one clear line. */
export function lockError(path: string, err: unknown, waitMs: number): FerryError | null {
  const code = (err as { code?: string })?.code
  if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') return null
  return new FerryError(`another ferry run holds the archive (waited ${Math.round(waitMs / 1000)} s for its lock); try again when it has finished, or pass --wait SECONDS`, {
    code: 'db-error',
    position: { file: path },
    cause: err,
  })
}
