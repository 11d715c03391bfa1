/**
 * Opening an agent's SQLite database without changing a byte or an mtime of
 * it, while the agent may have it open and be writing.
 *
 * A plain read-only connection still writes read-marks into `-shm`, and on a
 * database with no `-wal`/`-shm` in WAL mode it creates both, so:
 *
 * - `-wal` and `-shm` present (the app has it open in WAL mode, or crashed):
 *   `readonly_shm=1` maps `-shm` read-only; SQLite reads the WAL itself.
 * - none of `-wal`, `-shm`, `-journal` present: `immutable=1`, which creates
 *   no file and takes no lock (so no SQLITE_BUSY either). Because it ignores
 *   locks, a rollback-journal database is first probed with a plain read-only
 *   connection (a shared lock, which writes nothing in that mode): a writer
 *   holding it exclusively (`locking_mode=EXCLUSIVE`, a journal in memory)
 *   may have uncommitted pages in the file, so that is retried and then one
 *   located `db-error`, never a read of half a transaction.
 * - anything else (a hot rollback `-journal`, a lone `-wal`), or when the URI
 *   forms fail: a private snapshot copy (db + wal + journal) in a temp dir,
 *   opened read-write there so SQLite can roll a hot journal back in the copy.
 *
 * SQLITE_BUSY while the app writes is retried (the busy timeout, then a few
 * more attempts), then reported as one clear `db-error`.
 *
 * URI file names need SQLITE_USE_URI=1 when better-sqlite3's addon loads
 * (lazily, at the first `new Database`), hence the assignment below.
 */
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import Database from 'better-sqlite3'
import { onExit } from 'signal-exit'
import { asFerryError, FerryError, errorMessage } from '../errors.js'

if (process.env.SQLITE_USE_URI === undefined) process.env.SQLITE_USE_URI = '1'

export interface ReadOnlyDb {
  db: Database.Database
  /** How it was opened. */
  mode: 'immutable' | 'readonly_shm' | 'snapshot'
  close(): void
}

export interface OpenReadOnlyOptions {
  /** Harness named in errors. */
  source: string
  /** Busy timeout per attempt in ms (default 2000). */
  busyTimeout?: number
  /** Attempts on SQLITE_BUSY before giving up (default 3). */
  attempts?: number
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

/** Whether an error is SQLite's "the database is locked / busy". */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Runs `fn`, retrying while SQLite says busy; then a clear db-error naming the file. */
export function withBusyRetry<T>(path: string, source: string, fn: () => T, attempts = 3): T {
  for (let i = 1; ; i++) {
    try {
      return fn()
    } catch (err) {
      if (!isBusy(err)) throw err
      if (i >= attempts) throw new FerryError(`database is busy (another program, probably the agent, is writing it); tried ${attempts} times: close the app or try again`, { code: 'db-error', position: { file: path }, source, cause: err })
      sleep(100 * i)
    }
  }
}

/** Opens `path` read-only so that neither it nor its `-wal`/`-shm`/`-journal` change. */
export function openReadOnly(path: string, opts: OpenReadOnlyOptions): ReadOnlyDb {
  const { source } = opts
  if (!existsSync(path)) throw new FerryError('database not found', { code: 'db-error', position: { file: path }, source })
  const wal = existsSync(`${path}-wal`)
  const shm = existsSync(`${path}-shm`)
  const journal = existsSync(`${path}-journal`)
  const o = { readonly: true, fileMustExist: true, timeout: opts.busyTimeout ?? 2000 }
  // A -shm whose index header is not valid (zeroed, junk) needs a recovery that a read-only
  // connection cannot run: SQLite would retry it for seconds per open. The snapshot copy recovers it.
  const attempt = !wal && !shm && !journal ? ('immutable' as const) : wal && shm && !journal && validShm(`${path}-shm`) ? ('readonly_shm' as const) : null
  if (attempt === 'immutable' && rollbackMode(path)) probeLock(path, source, o.timeout, opts.attempts)
  if (attempt) {
    try {
      return withBusyRetry(path, source, () => {
        const db = new Database(uri(path, attempt === 'immutable' ? 'immutable=1' : 'readonly_shm=1'), o)
        try {
          // Touch the schema now so an unusable file fails here, not mid-stream.
          db.prepare('SELECT count(*) FROM sqlite_master').get()
        } catch (err) {
          db.close()
          throw err
        }
        return { db, mode: attempt, close: () => db.close() }
        // Busy under WAL goes to the snapshot after one wait: retrying would only wait on an exclusive writer longer.
      }, attempt === 'readonly_shm' ? 1 : opts.attempts)
    } catch (err) {
      // A WAL database held by a writer in locking_mode=EXCLUSIVE stays busy for as long as the writer runs.
      // A copy of it and its WAL holds only committed transactions (each frame set ends with a commit
      // marker), so the snapshot reads it as it was; a rollback-journal database held so is refused above.
      if (err instanceof FerryError && !(attempt === 'readonly_shm' && isBusy(err.cause))) throw err
      // fall through to the snapshot copy
    }
  }
  return openSnapshot(path, opts, o.timeout)
}

/**
 * Whether a `-shm` file starts with a usable wal-index header: its two copies
 * (48 bytes each) agree, say version 3007000 and are initialised.
 */
export function validShm(shmPath: string): boolean {
  let fd: number | null = null
  try {
    fd = openSync(shmPath, 'r')
    const b = Buffer.alloc(96)
    if (readSync(fd, b, 0, 96, 0) < 96) return false
    const version = b.readUInt32LE(0) === 3007000 || b.readUInt32BE(0) === 3007000
    return version && b[12] === 1 && b.subarray(0, 48).equals(b.subarray(48, 96))
  } catch {
    return false
  } finally {
    if (fd !== null) closeSync(fd)
  }
}

/** The header says rollback journal (read/write versions 1), not WAL (2). */
function rollbackMode(path: string): boolean {
  let fd: number | null = null
  try {
    fd = openSync(path, 'r')
    const b = Buffer.alloc(20)
    if (readSync(fd, b, 0, 20, 0) < 20 || b.toString('latin1', 0, 15) !== 'SQLite format 3') return false
    return b[18] === 1 && b[19] === 1
  } catch {
    return false
  } finally {
    if (fd !== null) closeSync(fd)
  }
}

/** Takes and drops a shared lock; SQLITE_BUSY means a writer holds the file. */
function probeLock(path: string, source: string, timeout: number, attempts?: number): void {
  try {
    withBusyRetry(path, source, () => {
      const db = new Database(path, { readonly: true, fileMustExist: true, timeout: Math.min(timeout, 500) })
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get()
      } finally {
        db.close()
      }
    }, attempts)
  } catch (err) {
    if (err instanceof FerryError) throw err
    // Anything but a lock (a damaged header, say) is for the real open to report.
  }
}

interface Snapshot {
  dir: string
  copy: string
}

/**
 * Snapshot copies made in this process, by the database's state (size and mtime of the file,
 * its -wal and -journal): one copy per database per run, not one per session read, and a new
 * one as soon as the agent changed a file. Removed when the process exits.
 */
const snapshots = new Map<string, Snapshot>()
let exitHook = false

function stateKey(path: string): string {
  return ['', '-wal', '-journal']
    .map((side) => {
      try {
        const st = statSync(`${path}${side}`)
        return `${st.size}:${st.mtimeMs}:${st.ino}`
      } catch {
        return '-'
      }
    })
    .join('|')
}

function dropSnapshots(): void {
  for (const s of snapshots.values()) rmSync(s.dir, { recursive: true, force: true })
  snapshots.clear()
}

let swept = false

/** Removes snapshot folders (`ferry-<source>-<pid>-…` in the temp dir) whose process is gone (a kill -9 left them). */
export function sweepStaleSnapshots(dir = tmpdir()): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const n of names) {
    const m = /^ferry-[a-z0-9-]+?-(\d+)-[A-Za-z0-9]{6}$/.exec(n)
    if (!m) continue
    const pid = Number(m[1])
    if (pid === process.pid) continue
    try {
      process.kill(pid, 0)
      continue
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') continue
    }
    rmSync(join(dir, n), { recursive: true, force: true })
  }
}

function snapshotOf(path: string, source: string): Snapshot {
  const key = `${path}\0${stateKey(path)}`
  const known = snapshots.get(key)
  if (known && existsSync(known.copy)) return known
  for (const [k, s] of snapshots) {
    // An older state of the same database is of no further use.
    if (k.startsWith(`${path}\0`)) {
      rmSync(s.dir, { recursive: true, force: true })
      snapshots.delete(k)
    }
  }
  if (!swept) {
    swept = true
    sweepStaleSnapshots()
  }
  // The process id in the name: a later run removes the copies of a run that was killed outright.
  const dir = mkdtempSync(join(tmpdir(), `ferry-${source}-${process.pid}-`))
  try {
    const copy = join(dir, basename(path))
    copyFileSync(path, copy)
    for (const side of ['-wal', '-journal']) if (nonEmpty(`${path}${side}`)) copyFileSync(`${path}${side}`, `${copy}${side}`)
    if (!exitHook) {
      exitHook = true
      // On every exit path signal-exit sees (signals included), as the temp files of writes.
      onExit(dropSnapshots)
    }
    const s = { dir, copy }
    snapshots.set(key, s)
    return s
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
}

function openSnapshot(path: string, opts: OpenReadOnlyOptions, timeout: number): ReadOnlyDb {
  let snap: Snapshot | undefined
  try {
    snap = snapshotOf(path, opts.source)
    const copy = snap.copy
    const db = withBusyRetry(path, opts.source, () => {
      const d = new Database(copy, { fileMustExist: true, timeout })
      d.prepare('SELECT count(*) FROM sqlite_master').get()
      return d
    }, opts.attempts)
    // The copy stays for the next session of this run; it goes at exit (or when the database changes).
    return { db, mode: 'snapshot', close: () => db.close() }
  } catch (err) {
    if (snap) {
      for (const [k, s] of snapshots) if (s === snap) snapshots.delete(k)
      rmSync(snap.dir, { recursive: true, force: true })
    }
    if (err instanceof FerryError) throw err
    throw dbError(err, path, opts.source)
  }
}

/** Column names of a table (empty when it does not exist): schemas drift, so queries adapt. */
export function columns(db: Database.Database, table: string): Set<string> {
  const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>
  return new Set(rows.map((r) => r.name))
}

/** Whether a table exists. */
export function hasTable(db: Database.Database, table: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined
}

/** A database error met mid-query (locked, corrupt page) as a FerryError naming the file. */
export function dbError(err: unknown, path: string, source: string): FerryError {
  if (err instanceof FerryError) return err
  if (isBusy(err)) return new FerryError('database is busy (another program, probably the agent, is writing it): close the app or try again', { code: 'db-error', position: { file: path }, source, cause: err })
  // An errno (mode 000, a directory in its place) names the database once, as the position; a permission is `unreadable`.
  const errno = (err as NodeJS.ErrnoException)?.code
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) {
    return new FerryError(`cannot read database: ${asFerryError(err).message}`, { code: errno === 'EACCES' || errno === 'EPERM' ? 'unreadable' : 'db-error', position: { file: path }, source, cause: err })
  }
  return new FerryError(`cannot read database: ${errorMessage(err)}`, { code: 'db-error', position: { file: path }, source, cause: err })
}
