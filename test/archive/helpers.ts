/** The fixture HOME of the archive tests, and how they run, query and check it (built on test/kit.ts). */
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { packParts, unpackParts } from '../../lib/archive/store/pack.js'
import { partsOf } from '../../lib/archive/store/db.js'
import { FIXTURE, FIXTURES, ferry, gen, sampleHome, tempDir } from '../kit.js'
import type { FerryRecord, SessionRec } from '../../lib/model.js'
import type { ArchiveDb } from '../../lib/archive/store/db.js'

export const CLAUDE = FIXTURE.claudeCode.feature
export const CODEX = FIXTURE.codex.classic
export const PROJECT = '.claude/projects/-home-dev-demo-app'
export const ROLLOUT = '.codex/sessions/2026/11/02/rollout-2026-11-02T09-15-00-019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b.jsonl'

/** A HOME holding every harness's fixture store (the torn-line fixture session left out: it has its own test). */
export function makeHome(t: Parameters<typeof tempDir>[0]): string {
  const home = sampleHome(t)
  cpSync(join(FIXTURES, 'claude-code', 'home'), home, { recursive: true })
  cpSync(join(FIXTURES, 'codex', 'classic'), home, { recursive: true })
  rmSync(join(home, PROJECT, `${FIXTURE.claudeCode.damaged}.jsonl`))
  return home
}

export const dbOf = (home: string) => join(home, '.local/share/ferry/archive.db')

export async function archive(home: string, ...more: string[]) {
  const r = await ferry(['--home', home, 'archive', '--json', ...more])
  return { ...r, sum: r.stdout.trim() ? JSON.parse(r.stdout) : null }
}

export function query<T = Record<string, unknown>>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true })
  try {
    return d.prepare(sql).all(...args) as T[]
  } finally {
    d.close()
  }
}

/** `query`, each row's stored parts (selected as `bid, bidx`, or `data` in a schema 4 archive) given as the body, native and raw it holds (store/pack.ts). */
export function queryParts<T = Record<string, unknown>>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true })
  try {
    return (d.prepare(sql).all(...args) as Record<string, unknown>[]).map((r) => {
      const { data, bid, bidx, ...rest } = r as { data?: unknown; bid?: number; bidx?: number }
      if (bid !== undefined) return { ...rest, ...partsOf({ bid, bidx }, d) } as T
      return (data instanceof Uint8Array ? { ...rest, ...unpackParts(data) } : r) as T
    })
  } finally {
    d.close()
  }
}

/**
 * Rewrites an archive this ferry made into the layout of schema 4, as main
 * at 4173d6b wrote it: its records table (that DDL, verbatim) with each
 * record's parts in one BLOB, compressed alone by the codec this Node
 * writes (`packParts` has not changed), and no blocks.
 */
export function toSchema4(db: Database.Database): void {
  // Read first, then written: a SQL function cannot read blocks on the connection its query holds.
  const rows = (db.prepare('SELECT rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, bid, bidx FROM records ORDER BY rid').all() as Array<Record<string, unknown> & { bid: number; bidx: number }>).map(({ bid, bidx, ...r }) => {
    const p = partsOf({ bid, bidx }, db)
    return { ...r, data: packParts(p.body, p.native, p.raw) }
  })
  db.exec(`BEGIN;
    CREATE TABLE records_v4 (
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
    );`)
  const ins = db.prepare('INSERT INTO records_v4 VALUES (@rid, @id, @sid, @ord, @kind, @role, @ts, @tools, @active, @seen, @ver, @data)')
  for (const r of rows) ins.run(r)
  db.exec(`DROP TABLE records; ALTER TABLE records_v4 RENAME TO records; DROP TABLE blocks; DELETE FROM sqlite_sequence WHERE name = 'blocks';
    CREATE INDEX records_sid ON records(sid, ord, rid);
    CREATE INDEX records_filter ON records(rid, sid, role, ts, tools);
    UPDATE meta SET value = '4' WHERE key = 'schema';
    COMMIT; VACUUM`)
}

/**
 * Rewrites an archive this ferry made into the layout of schema 3, as main
 * at e8b14ac wrote it: its records table (that DDL, verbatim) with the
 * three stored parts as text columns. The parts are what that writer
 * stored (`storedParts` has not changed), so the rows are the rows it
 * wrote; checked by hand against an archive main itself made (see
 * docs/performance.md, "archive storage").
 */
export function toSchema3(db: Database.Database): void {
  toSchema4(db)
  db.function('parts_of', (data: unknown) => JSON.stringify(unpackParts(data as Uint8Array)))
  db.exec(`BEGIN;
    CREATE TABLE records_v3 (
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
      body TEXT NOT NULL,
      native TEXT,
      raw TEXT
    );
    INSERT INTO records_v3 SELECT rid, id, sid, ord, kind, role, ts, tools, active, seen, ver, p ->> '$.body', p ->> '$.native', p ->> '$.raw'
      FROM (SELECT *, parts_of(data) AS p FROM records) ORDER BY rid;
    DROP TABLE records; ALTER TABLE records_v3 RENAME TO records;
    CREATE INDEX records_sid ON records(sid, ord, rid);
    CREATE INDEX records_filter ON records(rid, sid, role, ts, tools);
    UPDATE meta SET value = '3' WHERE key = 'schema';
    COMMIT; VACUUM`)
}

/**
 * An archive that is consistent whenever a run stopped (kill -9 included):
 * SQLite's integrity check passes, every record belongs to a session row,
 * and every session the run finished (it has its fingerprint) holds exactly
 * the records it counted.
 */
export function consistent(t: { same: (a: unknown, b: unknown, m?: string) => unknown }, db: string, when: string): void {
  t.same(query(db, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }], `integrity ${when}`)
  t.same(query(db, 'SELECT DISTINCT sid FROM records WHERE sid NOT IN (SELECT sid FROM sessions)'), [], `${when}: no record without its session`)
  t.same(
    query(db, 'SELECT sid, record_count, (SELECT count(*) FROM records r WHERE r.sid = s.sid) AS n FROM sessions s WHERE fingerprint IS NOT NULL AND record_count <> (SELECT count(*) FROM records r WHERE r.sid = s.sid)'),
    [],
    `${when}: every finished session holds the records it counted`,
  )
}

/** A temp folder with a HOME of generated Claude Code sessions (bench/gen.mjs, deterministic), and that HOME. */
export function generatedHome(t: Parameters<typeof tempDir>[0], sessions: number, seed: string): { dir: string; home: string } {
  const dir = tempDir(t, 'ferry-archive-gen-')
  const home = join(dir, 'home')
  gen(home, { harness: 'claude', sessions, lines: 30, seed })
  return { dir, home }
}

/** An uninterrupted `archive` of `home` into `dir/ref.db` (more args: e.g. `--jobs 1`): the reference a test compares with, and its counts. */
export async function referenceArchive(t: { equal: (a: unknown, b: unknown, m?: string) => unknown }, dir: string, home: string, ...more: string[]): Promise<{ reference: string; want: { s: number; r: number } }> {
  const reference = join(dir, 'ref.db')
  const ref = await ferry(['--home', home, '--db', reference, 'archive', '--json', ...more])
  t.equal(ref.code, 0, ref.stderr)
  return { reference, want: query<{ s: number; r: number }>(reference, 'SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM records) AS r')[0]! }
}

/** The session header of the block tests' sessions (`claude-code:NAME`). */
export const blockHeader = (sid: string): SessionRec => ({ kind: 'session', ferry: '1', sid, native_id: sid.slice(12), source: { harness: 'claude-code', locator: { path: `/x/${sid}.jsonl` } } }) as SessionRec

/** Record `i` of session `sid`, about 5 KB with its source line (its text kept once: a block holds a few dozen), in version `v` of its text. */
export function blockRec(sid: string, i: number, v = 0): FerryRecord {
  const text = `record ${i} version ${v} ` + `words of record ${i} and some more text `.repeat(60)
  const raw = JSON.stringify({ type: 'user', uuid: `u${i}`, message: { role: 'user', content: text }, cwd: '/home/dev/demo-app', version: '2.1.0' })
  return { kind: 'message', sid, id: `${sid}:${i}`, role: 'user', ts: `2026-11-02T09:${String(i % 60).padStart(2, '0')}:00.000Z`, blocks: [{ type: 'text', text }], native: { format: 'claude-code/jsonl@2', line: i, raw } } as unknown as FerryRecord
}

/** What every schema 5 archive keeps: each record in a block that has its row, each block of one session and pointed at. */
export function blockInvariants(t: { same(a: unknown, b: unknown, m: string): unknown; equal(a: unknown, b: unknown, m: string): unknown }, db: ArchiveDb, when: string): void {
  t.same(db.pragma('integrity_check'), [{ integrity_check: 'ok' }], `${when}: integrity`)
  const q = (sql: string) => (db.prepare(sql).get() as { n: number }).n
  t.equal(q('SELECT count(*) AS n FROM records WHERE bid NOT IN (SELECT bid FROM blocks)'), 0, `${when}: every record's block is there`)
  t.equal(q('SELECT count(*) AS n FROM blocks WHERE bid NOT IN (SELECT bid FROM records)'), 0, `${when}: no block that no record points at`)
  t.equal(q('SELECT count(*) AS n FROM (SELECT bid FROM records GROUP BY bid HAVING count(DISTINCT sid) > 1)'), 0, `${when}: a block holds one session's rows`)
  t.equal(q('SELECT count(*) AS n FROM (SELECT bid, bidx FROM records GROUP BY bid, bidx HAVING count(*) > 1)'), 0, `${when}: no two records share a row`)
}
