/**
 * One read-only connection reused across the sessions of one database.
 *
 * Every session lives in the same database, and `cat --from zcode` reads them
 * one after another: opening a connection per session (the open, then SQLite
 * loading ZCode's large schema on the first statement) was ~15% of the CPU
 * of reading a 2,400-session store (bench/workloads/zcode.mjs). A connection
 * is lent to one reader at a time (better-sqlite3 runs no other statement
 * while an iterator is open), taken back when that reader ends, and closed
 * after a short idle time, when another database is asked for, or at exit.
 *
 * It is lent again only while the files look as they did when it was opened
 * (same `-wal`/`-shm` presence, same size and mtime of the database for an
 * `immutable` one, which would not see a writer that came since); a snapshot
 * copy is never kept.
 */
import { existsSync, statSync } from 'node:fs'
import { openReadOnly, type ReadOnlyDb } from '../../io/sqlite-readonly.js'

const IDLE_MS = 1000

interface Kept {
  path: string
  h: ReadOnlyDb
  stamp: string
  timer: NodeJS.Timeout | null
}

let kept: Kept | null = null
let hooked = false

function stamp(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false })
  return `${existsSync(path + '-wal')}:${existsSync(path + '-shm')}:${st?.size}:${st?.mtimeMs}`
}

function drop(): void {
  const k = kept
  kept = null
  if (!k) return
  if (k.timer) clearTimeout(k.timer)
  k.h.close()
}

/** A connection to `path` for one reader; give it back with the returned `release`. */
export function borrow(path: string): { h: ReadOnlyDb; release: () => void } {
  let h: ReadOnlyDb
  const now = stamp(path)
  let since = now
  if (kept && kept.path === path && kept.stamp === now) {
    h = kept.h
    since = kept.stamp
    if (kept.timer) clearTimeout(kept.timer)
    kept = null
  } else {
    drop()
    h = openReadOnly(path, { source: 'zcode' })
  }
  let done = false
  const release = (): void => {
    if (done) return
    done = true
    if (h.mode === 'snapshot' || kept) return h.close()
    if (!hooked) {
      hooked = true
      process.once('exit', drop)
    }
    // The files as they were when the connection was opened: a change since means a fresh one.
    const k: Kept = { path, h, stamp: since, timer: null }
    k.timer = setTimeout(() => kept === k && drop(), IDLE_MS)
    k.timer.unref()
    kept = k
  }
  return { h, release }
}
