/**
 * `ferry archive --watch`: keeps the archive up to date while it runs. Every store root is watched
 * with chokidar (inotify, FSEvents: no polling of the sessions); changes are gathered for a short
 * while, then each changed session is archived alone when its path names one, or its whole store
 * incrementally when not (a database's `-wal`, a sub-agent file). A root that appears, disappears
 * or is replaced is noticed by a stat of the roots every few seconds (a handful of syscalls), so
 * nothing runs while nothing changes. Passes run one at a time and hold the database only while
 * they run; a stop waits for the running pass, so the database is left consistent.
 */
import { statSync } from 'node:fs'
import { sep } from 'node:path'
import chokidar, { type FSWatcher } from 'chokidar'
import type { StoreContext } from '../context.js'
import { asFerryError } from '../errors.js'
import type { SourceSession, SyncSummary } from '../archive/sync.js'
import type { Harness } from '../harness/types.js'
import { archivePass } from './archive-pass.js'

export interface WatchOptions {
  path: string
  sources: Harness[]
  waitMs: number
  /** Quiet time after the last change before a pass (ms). */
  debounceMs?: number
  /** How often the roots themselves are looked at (ms). */
  rootCheckMs?: number
  signal: AbortSignal
  /** After each pass: what it did and which stores it covered. */
  onPass(sum: SyncSummary, what: string): void
  onError(message: string): void
}

/** A root's identity: gone, or its inode (a replaced root is a new one). */
const rootId = (p: string): number | null => statSync(p, { throwIfNoEntry: false })?.ino ?? null

/** Temp files of writers (ferry's own, SQLite's journals are real changes): not worth a pass. */
const IGNORED = /(^|[/\\])\.ferry-tmp-|\.tmp$|~$/

export async function watchArchive(ctx: StoreContext, o: WatchOptions): Promise<void> {
  const roots = new Map<Harness, { root: string; id: number | null }>()
  for (const h of o.sources) roots.set(h, { root: h.root(ctx), id: null })
  const pending = new Map<Harness, Set<string>>()
  let timer: NodeJS.Timeout | null = null
  let running: Promise<void> | null = null
  let stopping = false

  const watcher: FSWatcher = chokidar.watch([], { ignoreInitial: true, persistent: true, followSymlinks: false, depth: 8, ignored: (p: string) => IGNORED.test(p) })
  watcher.on('error', (e) => o.onError(`watch: ${(e as Error).message}`))
  watcher.on('all', (_ev, p: string) => {
    for (const [h, r] of roots) {
      if (p === r.root || p.startsWith(r.root + sep)) {
        mark(h, p)
        return
      }
    }
  })

  const mark = (h: Harness, p: string | null) => {
    const set = pending.get(h) ?? new Set<string>()
    set.add(p ?? '')
    pending.set(h, set)
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void flush(), o.debounceMs ?? 1000)
  }

  /** Watches roots that appeared or were replaced; a root that changed identity gets a whole-store pass. */
  const checkRoots = (first: boolean) => {
    for (const [h, r] of roots) {
      const id = rootId(r.root)
      if (id === r.id) continue
      if (r.id !== null) watcher.unwatch(r.root)
      if (id !== null) watcher.add(r.root)
      r.id = id
      if (!first) mark(h, null)
    }
  }

  const flush = async (): Promise<void> => {
    if (running) {
      // A pass is under way: this one follows it.
      await running
      if (!pending.size) return
    }
    if (timer) clearTimeout(timer)
    timer = null
    const work = [...pending]
    pending.clear()
    running = (async () => {
      for (const [h, paths] of work) {
        if (stopping) return
        await passFor(h, paths)
      }
    })()
    try {
      await running
    } finally {
      running = null
    }
  }

  const passFor = async (h: Harness, paths: Set<string>) => {
    const sessions = await sessionsOf(ctx, h, paths)
    try {
      const sum = await archivePass(ctx, { path: o.path, sources: [h], waitMs: o.waitMs, ...(sessions ? { filter: { sessions: sessions.map((session) => ({ src: h as never, session })) } } : {}) })
      o.onPass(sum, sessions ? sessions.map((s) => s.sid).join(', ') : `${h.id} (every session)`)
    } catch (err) {
      o.onError(`${h.id}: ${asFerryError(err).message}`)
    }
  }

  checkRoots(true)
  // The first pass brings the archive up to date with every store; the watch keeps it there.
  try {
    const sum = await archivePass(ctx, { path: o.path, sources: o.sources, waitMs: o.waitMs })
    o.onPass(sum, 'every store')
  } catch (err) {
    o.onError(asFerryError(err).message)
  }
  const rootTimer = setInterval(() => checkRoots(false), o.rootCheckMs ?? 5000)
  await new Promise<void>((resolve) => {
    if (o.signal.aborted) resolve()
    o.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  stopping = true
  clearInterval(rootTimer)
  if (timer) clearTimeout(timer)
  await watcher.close()
  await running
}

/** The sessions the changed paths name (a sub-agent's file names its parent), or null when one of them names none. */
async function sessionsOf(ctx: StoreContext, h: Harness, paths: Set<string>): Promise<SourceSession[] | null> {
  if (!h.resolve || paths.has('')) return null
  const out = new Map<string, SourceSession>()
  for (const p of paths) {
    if (!statSync(p, { throwIfNoEntry: false })?.isFile()) return null
    let s = await h.resolve(ctx, p).catch(() => null)
    // A path that resolves to a session elsewhere (a database naming several) is no one session's.
    if (!s || (s.path !== p && !s.parent)) return null
    if (s.parent) s = await h.resolve(ctx, s.parent.slice(s.parent.indexOf(':') + 1)).catch(() => null)
    if (!s) return null
    out.set(s.sid, s as unknown as SourceSession)
  }
  return [...out.values()]
}
