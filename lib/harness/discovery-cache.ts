/**
 * A metadata cache for discovery of file-per-session stores (the JSONL
 * harnesses): what a session file's head and tail said, keyed by the file's
 * path, size, mtime and inode, so a second `ferry ls` over thousands of
 * sessions costs one stat per file instead of an open and two reads and the
 * parsing. Entries are trusted only while all of these and the ctime match
 * (ctime cannot be set back, so a write followed by `touch -d` to the old
 * mtime is still seen); a change within one timestamp tick of the read is
 * guarded against by not caching files changed in the last few seconds (as
 * git's "racy" index entries).
 *
 * Where: `$XDG_CACHE_HOME/ferry/discovery/` (`~/.cache/ferry/...`), one file
 * per harness and store root. With `--home DIR` that is DIR's own cache folder
 * (`DIR/.cache/ferry/...`; XDG_CACHE_HOME is ignored then, as every store
 * variable is), never the real HOME's. The folders are created when missing,
 * so every listing after the first is warm wherever ferry can write; where it
 * cannot (a read-only HOME), listing works the same, only without the cache.
 * `FERRY_NO_CACHE=1` turns the cache off.
 *
 * Concurrent runs: the file is replaced whole through a temp file and a
 * rename (writeWholeFile), so a reader sees the old or the new version, never
 * a mix; the last writer wins, which only costs the other run's additions.
 * A file that does not parse, or was written by another version of ferry or
 * with another line cap, is ignored and rewritten.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { xdgDir, type StoreContext } from '../context.js'
import { writeWholeFile } from '../io/atomic.js'
import { DISCOVERY_CONCURRENCY } from '../io/ahead.js'
import { VERSION } from '../version.js'
import { ValueReader, asciiJson, encodeValues, swapPath } from './cache-values.js'

/** Bump when what a harness derives from a file changes shape, or how it is stored (the ferry version is part of the key too). */
const FORMAT = 3
/** Files modified this recently are read but not cached: a same-size rewrite within one mtime tick would go unseen. */
const RACY_MS = 3000

/**
 * One file's entry: its path (relative to the root in the file), size, `mtimeMs`, inode and `ctimeMs`, then its
 * value. In the file the value is a shape index and leaves (cache-values.ts), read back only for a file found
 * unchanged; a value read in this run is kept as a copy (READ, the value) until the cache is saved.
 * The times are Node's `mtimeMs`/`ctimeMs` (a fraction of a microsecond apart at today's dates): a `stat` with
 * BigInt nanoseconds costs more (docs/performance.md, "`ls`").
 */
type Entry = unknown[]
const READ = -3

/** The cache file: ASCII JSON (read as latin1, a one-byte string), the values' shapes and strings once each. */
interface CacheFile {
  format: number
  ferry: string
  key: string
  shapes: unknown
  table: unknown
  entries: Entry[]
}

export interface DiscoveryCache<T> {
  /** The cached value for `path` when the file is unchanged, else `read()`'s (cached when it reported nothing). */
  get(path: string, read: () => Promise<T>): Promise<T>
  /** The cached value for `path` when the file is unchanged (one `stat`, no waiting); undefined when it must be read. */
  hit(path: string): { value: T } | undefined
  /** Writes the cache back if anything changed; `complete` when every file was visited (entries of files gone are dropped). */
  save(complete: boolean): Promise<void>
}

const disabled: DiscoveryCache<never> = {
  get: (_p, read) => read(),
  hit: () => undefined,
  save: async () => {},
}

function cacheBase(ctx: StoreContext): string | null {
  if (ctx.env.FERRY_NO_CACHE && ctx.env.FERRY_NO_CACHE !== '0') return null
  return join(xdgDir(ctx, 'cache'), 'ferry', 'discovery')
}

/**
 * The cache of one harness's store at `root`. `variant` names anything else
 * the values depend on (besides the file, the ferry version and the line cap).
 */
export function openDiscoveryCache<T>(ctx: StoreContext, harness: string, root: string, variant = ''): DiscoveryCache<T> {
  const dir = cacheBase(ctx)
  if (!dir) return disabled as DiscoveryCache<T>
  const key = `${harness}\0${root}\0${ctx.maxLineBytes}\0${variant}`
  const file = join(dir, `${harness}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`)
  const prefix = root.endsWith('/') ? root : `${root}/`
  const old = new Map<string, Entry>()
  let reader: ValueReader | undefined
  try {
    const f = JSON.parse(readFileSync(file, 'latin1')) as CacheFile
    if (f && f.format === FORMAT && f.ferry === VERSION && f.key === key && Array.isArray(f.entries)) {
      reader = new ValueReader(f.shapes, f.table)
      for (const e of f.entries) if (Array.isArray(e) && e.length >= 6 && typeof e[0] === 'string') old.set(e[0].startsWith('/') ? e[0] : prefix + e[0], e)
    }
  } catch {
    /* none yet, or unreadable: start empty */
  }
  const fresh = new Map<string, Entry>()
  let changed = false
  /** The entry of an unchanged file, moved to the fresh set. */
  const unchanged = (path: string, st: Stats): Entry | undefined => {
    const e = old.get(path)
    if (!e || e[1] !== st.size || e[2] !== st.mtimeMs || e[3] !== st.ino || e[4] !== st.ctimeMs) return undefined
    fresh.set(path, e)
    return e
  }
  /** An entry's value (a new object each time: callers may add to what they are given); undefined when it does not decode. */
  const valueOf = (e: Entry, path: string): T | undefined => (e[5] === READ ? swapPath(e[6] as T, path, path) : (reader?.value(e, 5, path) as T | undefined))
  return {
    hit(path) {
      // No cache (the first listing): no stat here, `get` makes the one it needs.
      if (old.size === 0) return undefined
      const st = statSync(path, { throwIfNoEntry: false })
      const e = st && unchanged(path, st)
      const value = e && valueOf(e, path)
      if (value !== undefined) return { value }
      if (e) fresh.delete(path)
      return undefined
    },
    async get(path, read) {
      let st
      try {
        st = statSync(path)
      } catch {
        return read()
      }
      const { size, mtimeMs: mtime, ino, ctimeMs: ctime } = st
      const hit = unchanged(path, st)
      const cached = hit && valueOf(hit, path)
      if (cached !== undefined) return cached
      const reported = ctx.diagnostics.errors + ctx.diagnostics.warnings
      const value = await read()
      changed = true
      fresh.delete(path)
      // Only what read cleanly is kept (a warning may be about this file); and not a file that may still be changing.
      const now = Date.now()
      if (ctx.diagnostics.errors + ctx.diagnostics.warnings === reported && now - mtime > RACY_MS && now - ctime > RACY_MS) {
        // A copy: the caller may change what it was given.
        fresh.set(path, [path.startsWith(prefix) ? path.slice(prefix.length) : path, size, mtime, ino, ctime, READ, swapPath(value, path, path)])
      }
      return value
    },
    async save(complete) {
      // A complete run drops the entries of files that are gone; one stopped early keeps what it did not get to.
      const entries = complete ? fresh : new Map([...old, ...fresh])
      if (!changed && entries.size === old.size) return
      try {
        const values: Array<{ value: unknown; path: string }> = []
        const rows: Entry[] = []
        for (const [path, e] of entries) {
          const value = e[5] === READ ? e[6] : valueOf(e, path)
          if (value === undefined) continue
          values.push({ value, path })
          rows.push([e[0], e[1], e[2], e[3], e[4]])
        }
        const { shapes, table } = encodeValues(values, rows)
        const out: CacheFile = { format: FORMAT, ferry: VERSION, key, shapes, table, entries: rows }
        await writeWholeFile(file, asciiJson(JSON.stringify(out)), { force: true })
      } catch {
        // A cache that cannot be written costs only speed.
      }
    },
  }
}

/**
 * Discovery of a store that keeps one file a session: each file's info through the cache, in the
 * files' order, a few read ahead; files that are no session (null) are left out. The cache is
 * saved whole only when the listing ran to its end.
 */
export async function* cachedInfos<T>(ctx: StoreContext, harness: string, root: string, files: AsyncIterable<string>, infoFor: (file: string) => Promise<T | null>): AsyncGenerator<T> {
  const cache = openDiscoveryCache<T | null>(ctx, harness, root)
  let complete = false
  try {
    yield* ordered(files, (f) => cache.hit(f), (f) => cache.get(f, () => infoFor(f)))
    complete = true
  } finally {
    await cache.save(complete)
  }
}

/**
 * Each item's value in the items' order: `now`'s when it has one (an unchanged file, from the cache), else `later`'s,
 * at most DISCOVERY_CONCURRENCY of those started ahead (as mapAhead). A cached value needs no promise of its own,
 * which a warm listing would otherwise make and wait for once per session.
 */
async function* ordered<I, T>(items: AsyncIterable<I>, now: (item: I) => { value: T | null } | undefined, later: (item: I) => Promise<T | null>): AsyncGenerator<T> {
  const queue: Array<{ value: T | null } | Promise<T | null>> = []
  let pending = 0
  for await (const item of items) {
    const hit = now(item)
    if (hit && queue.length === 0) {
      if (hit.value !== null) yield hit.value
      continue
    }
    if (hit) queue.push(hit)
    else {
      const p = later(item)
      // Awaited below, in order; marked handled now, as a consumer that stops early leaves some unawaited.
      p.catch(() => {})
      queue.push(p)
      pending++
    }
    // Waits for the oldest read once enough are running, or once enough cached values wait behind it (a consumer
    // that stops early, `ls --json --sort none | head -1`, stops the stat calls too).
    while (queue.length && (pending >= DISCOVERY_CONCURRENCY || queue.length > 8 * DISCOVERY_CONCURRENCY || !(queue[0] instanceof Promise))) {
      const head = queue.shift()!
      let v: T | null
      if (head instanceof Promise) {
        pending--
        v = await head
      } else v = head.value
      if (v !== null) yield v
    }
  }
  for (const head of queue) {
    const v = head instanceof Promise ? await head : head.value
    if (v !== null) yield v
  }
}
