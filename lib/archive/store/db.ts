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
 *   records   one row per stable record id: its order, whether it is on
 *             today's active branch, and where its stored parts are: row
 *             `bidx` of block `bid` (pack.ts: the record as JSON without
 *             `native`, its native pass without the source line, the source
 *             line as it came, each text kept once). Schema 4 kept the parts
 *             in one compressed BLOB per row (`data`), schemas 1 to 3 as text
 *             columns (`body`, `native`, `raw`)
 *   blocks    schema 5: a session's consecutive rows, about 64 KB of them,
 *             compressed together (pack.ts, `BlockBuilder`). A block is never
 *             changed: a record rewritten in place goes into a new block of
 *             its session's, and a block no record points at is deleted
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
import { Block, BlockBuilder, CODEC_NONE, packParts, plainOf, unpackParts, unpackPlain, type Parts } from './pack.js'
import { checkArchiveBeforeWrite } from './open-check.js'

export type ArchiveDb = Database.Database

export const SCHEMA_VERSION = 5

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
  bid INTEGER NOT NULL,
  bidx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS records_sid ON records(sid, ord, rid);
-- What search filters on, apart from the wide rows (a record row is as big as its source line): a hit is checked in this index alone.
CREATE INDEX IF NOT EXISTS records_filter ON records(rid, sid, role, ts, tools);
-- AUTOINCREMENT: a block's number is never used again, so a reader's last block (partsOf) is never another one by that number.
CREATE TABLE IF NOT EXISTS blocks (bid INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL);
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
      // Blocks (about 20 KB compressed) overflow into a chain of pages whose last is half empty on average: 8 KiB pages
      // waste 2 MB on the 1,000-session bench where 16 KiB pages wasted 4.4 MB, and 4 KiB pages bloat the wide session rows.
      // Only takes effect on a new file.
      db.pragma('page_size = 8192')
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
  if (!cols.some((c) => c.name === 'raw' || c.name === 'data' || c.name === 'bid')) db.exec('ALTER TABLE records ADD COLUMN raw TEXT')
  if (!ftsIsContentless(db)) rebuildContentless(db)
  const packed = !cols.some((c) => c.name === 'bid') && blockRecords(db)
  const conf = new Map((db.prepare('SELECT k, v FROM fts_config').all() as { k: string; v: unknown }[]).map((r) => [r.k, Number(r.v)]))
  // Terms are buffered in memory up to `hashsize` before FTS5 writes a segment: 16 MiB (default 1 MiB) means
  // 16x fewer segments to write and merge on a first archive, within the RSS bound.
  if (conf.get('hashsize') !== FTS_HASH_BYTES) db.exec(`INSERT INTO fts(fts, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`)
  return packed
}

const RECORDS_V5 = DDL.slice(DDL.indexOf('CREATE TABLE IF NOT EXISTS records ('), DDL.indexOf('-- AUTOINCREMENT'))

/**
 * Schemas 1 to 4 kept each record's parts in its own row (three text
 * columns, then one compressed BLOB): each session's rows, in their order,
 * go into blocks (same rid, so the index still points at them), in one
 * transaction under the write lock; a second run waits, then finds it
 * done. Nothing is derived anew: the parts go in as they were stored.
 */
function blockRecords(db: ArchiveDb): boolean {
  db.exec('BEGIN IMMEDIATE')
  try {
    const cols = new Set((db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[]).map((c) => c.name))
    if (cols.has('bid')) {
      db.exec('COMMIT')
      return false
    }
    const parts = cols.has('data') ? 'data' : `body, native, ${cols.has('raw') ? 'raw' : 'NULL AS raw'}`
    db.exec(`DROP TABLE IF EXISTS records_v5; ${RECORDS_V5.replace(/records/g, 'records_v5').replace(/CREATE INDEX[^;]*;/g, '').replace(/--[^\n]*\n/g, '')}`)
    const page = db.prepare(`SELECT rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, ${parts} FROM records WHERE sid = ? AND (ord > ? OR (ord = ? AND rid > ?)) ORDER BY ord, rid LIMIT 1000`)
    const ins = db.prepare('INSERT INTO records_v5(rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, bid, bidx) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const insBlock = db.prepare('INSERT INTO blocks(bid, data) VALUES (?, ?)')
    let bid = lastBlockId(db) + 1
    type Old = { rid: number; id: string; sid: string; ord: number; kind: string; role: string | null; ts: string | null; tools: string | null; active: number; seen: number; ver: number } & StoredRow
    for (const sid of db.prepare('SELECT DISTINCT sid FROM records').pluck().all() as string[]) {
      let block = new BlockBuilder()
      let ord = -1
      let rid = 0
      for (;;) {
        const rows = page.all(sid, ord, ord, rid) as Old[]
        for (const r of rows) {
          const plain = r.data ? plainOf(r.data) : packParts(String(r.body), r.native == null ? null : String(r.native), r.raw == null ? null : String(r.raw), CODEC_NONE).subarray(1)
          ins.run(r.rid, r.id, r.sid, r.ord, r.kind, r.role, r.ts, r.tools, r.active, r.seen, r.ver, bid, block.add(plain))
          if (block.full) {
            insBlock.run(bid++, block.seal())
            block = new BlockBuilder()
          }
        }
        if (rows.length < 1000) break
        ord = rows[rows.length - 1]!.ord
        rid = rows[rows.length - 1]!.rid
      }
      if (block.rows.length > 0) insBlock.run(bid++, block.seal())
    }
    db.exec(`DROP TABLE records; ALTER TABLE records_v5 RENAME TO records; ${RECORDS_V5.slice(RECORDS_V5.indexOf(';') + 1)}`)
    db.exec('COMMIT')
    return true
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw err
  }
}

/** The highest block number ever given (AUTOINCREMENT's, or the table's own after a migration wrote them by hand). */
export function lastBlockId(db: ArchiveDb): number {
  const r = db.prepare("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'blocks'), 0), coalesce((SELECT max(bid) FROM blocks), 0)) AS n").get() as { n: number }
  return r.n
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
    c = cols.has('bid') ? '$.bid AS bid, $.bidx AS bidx' : cols.has('data') ? '$.data AS data' : `$.body AS body, $.native AS native, ${cols.has('raw') ? '$.raw' : 'NULL'} AS raw`
    partsLists.set(db, c)
  }
  return c.replaceAll('$', t)
}

/** A row selected with `partsColumns`, as its stored parts. */
export interface StoredRow {
  bid?: number | null
  bidx?: number | null
  data?: Uint8Array | null
  body?: string
  native?: string | null
  raw?: string | null
}

/**
 * The stored parts of a row selected with `partsColumns` on `db`. The last
 * block read is kept for the next row, so reading a session (or an export,
 * in rowid order) decompresses each block once.
 */
export function partsOf(r: StoredRow, db: ArchiveDb): Parts {
  if (r.bid !== undefined && r.bid !== null) return unpackPlain(blockOf(db, r.bid).row(Number(r.bidx)))
  return r.data ? unpackParts(r.data) : { body: r.body!, native: r.native ?? null, raw: r.raw ?? null }
}

const lastBlocks = new WeakMap<ArchiveDb, { get: Database.Statement; bid: number; block: Block | null }>()

/** Block `bid`, uncompressed (the last one asked for on `db` is kept: blocks never change). */
export function blockOf(db: ArchiveDb, bid: number): Block {
  let c = lastBlocks.get(db)
  if (!c) lastBlocks.set(db, (c = { get: db.prepare('SELECT data FROM blocks WHERE bid = ?').pluck(), bid: -1, block: null }))
  if (c.bid !== bid || !c.block) {
    c.block = null
    const data = c.get.get(bid) as Uint8Array | undefined
    if (!data) throw new Error(`block ${bid} is missing from the archive`)
    c.block = new Block(data)
    c.bid = bid
  }
  return c.block
}

/** Forgets the block kept for `db` (a writer that rolled back may have read a block that is gone). */
export function forgetBlock(db: ArchiveDb): void {
  lastBlocks.delete(db)
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
