/**
 * `ferry archive`: copies every session of the given sources into the
 * archive, incrementally. A session whose provenance (path, size, mtime,
 * inode of its files, and what discovery says of it) is what the archive
 * stored is not read at all; one that changed is read again and only its
 * new or changed records are written (ids are stable, so nothing
 * duplicates: also not when a rollout was compressed or moved); one that
 * disappeared from its store is marked gone and kept.
 *
 * The sources are passed in (the CLI gives the registry's store harnesses),
 * so this module names none.
 */
import crypto, { createHash } from 'node:crypto'
import { closeSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { StoreContext } from '../context.js'
import { asFerryError } from '../errors.js'
import type { Diagnostic } from '../diagnostics.js'
import type { EndRec, FerryRecord, Locator, SessionRec } from '../model.js'
import type { ArchiveDb } from './store/db.js'
import { ArchiveWriter, RowMaker, type Row } from './store/store.js'

/** What discovery tells about a session (the harness contract's SessionInfo, structurally). */
export interface SourceSession {
  harness: string
  id: string
  sid: string
  path: string
  locator: Locator
  parent?: string
  cwd?: string
  title?: string
  created_at?: string
  updated_at?: string
  message_count?: number
  bytes?: number
  archived?: boolean
}

export interface SyncSource {
  id: string
  discover(ctx: StoreContext, opts: { all?: boolean }): AsyncIterable<SourceSession>
  read(ctx: StoreContext, session: SourceSession, opts: { native?: boolean }): Readable
}

/**
 * What reading one session gives the writer, in order: the rows of its records, its stream's own
 * records (session headers, ends), and, from a reader in another thread, the diagnostics the read
 * reported (so they count against the session they belong to).
 */
export type SessionEvent = Row | FerryRecord | { kind: 'diagnostic'; diagnostic: Diagnostic } | SealedBlock

/** A block of the open session's rows, sealed by the reader thread that read them (seal.ts): the last `rows` rows that carry a `bidx`. */
export interface SealedBlock {
  kind: 'block'
  rows: number
  blob: Uint8Array
}

/** A session to read: its source's id and what discovery found. */
export interface ReadItem {
  src: string
  session: SourceSession
  /** Its files' bytes on disk (compressed where they are). */
  bytes: number
  /** Not archived yet: a reader thread seals its blocks (seal.ts); an archived one's rows go into the writer's blocks. */
  fresh?: boolean
}

/**
 * Reads the sessions a run must read, possibly ahead of the writer in other threads. `session(i)`
 * is asked for in order, once each; a session whose read fails throws from its iterator (after the
 * events before the failure).
 */
export interface ReadAhead {
  /** Threads reading besides the writer's (0: it reads itself). */
  threads: number
  session(i: number): AsyncIterable<SessionEvent[]>
  close(): Promise<void>
}

export type ReadAheadFactory = (ctx: StoreContext, items: ReadItem[], bytes: number) => ReadAhead | null

/** Turns a session's record batches into the writer's events (rows prepared here). */
export async function* sessionEvents(batches: AsyncIterable<FerryRecord[]>): AsyncGenerator<SessionEvent[]> {
  const rows = new RowMaker()
  for await (const batch of batches) {
    const out: SessionEvent[] = new Array(batch.length)
    for (let i = 0; i < batch.length; i++) {
      const r = batch[i]!
      if (r.kind === 'session') rows.reset()
      out[i] = r.kind === 'session' || r.kind === 'end' || r.kind === 'stream' ? r : rows.row(r)
    }
    yield out
  }
}

/** Reads each session in this thread, when it is its turn. */
function readInline(ctx: StoreContext, sources: Map<string, SyncSource>, items: ReadItem[]): ReadAhead {
  return {
    threads: 0,
    session: (i) => sessionEvents(drain(sources.get(items[i]!.src)!.read(ctx, items[i]!.session, { native: true }))),
    close: async () => {},
  }
}

export interface SyncFilter {
  /** Only sessions whose cwd is this directory or below (not a full listing: nothing is marked gone). */
  cwd?: string
  /** Only sessions updated since (epoch ms; not a full listing either). */
  since?: number
  /** Exactly these sessions, found without listing their stores (`archive --session`, an agent's hook). */
  sessions?: Array<{ src: SyncSource; session: SourceSession }>
}

export interface SyncHooks {
  /** Called once the work is known: sessions to look at and their bytes. */
  start?(total: number, totalBytes: number): void
  /** One session looked at (read or skipped), with the bytes it took. */
  tick?(bytes: number, what: string): void
}

export interface SyncSummary {
  sessions: { added: number; updated: number; unchanged: number; gone: number; failed: number }
  records: { added: number; changed: number }
  /** Bytes of source read (unchanged sessions count nothing). */
  bytes: number
  /** Threads that read sessions while the main one wrote (0: one thread did both). */
  readers: number
  db: string
}

interface Stat {
  size: number
  mtimeMs: number
  ino: number
}

function statOf(path: string): Stat | null {
  const s = statSync(path, { throwIfNoEntry: false })
  return s ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : null
}

function names(dir: string): Dirent[] {
  // Most session files have no side directory: ask without an exception (a thrown ENOENT costs more than the stat).
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return []
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/**
 * The sub-directories of a folder, listed once a run: whether a session
 * file has a side directory is a lookup here, not a stat of each session's
 * (most have none; that stat was half of what a re-run of unchanged
 * sessions cost).
 */
class SubDirs {
  private byDir = new Map<string, Set<string>>()

  has(path: string): boolean {
    const cut = path.lastIndexOf('/')
    const dir = path.slice(0, cut)
    let set = this.byDir.get(dir)
    if (!set) {
      set = new Set()
      let list: Dirent[] = []
      try {
        list = readdirSync(dir || '/', { withFileTypes: true })
      } catch {
        /* no folder: no side directories */
      }
      for (const e of list) if (e.isDirectory() || (e.isSymbolicLink() && statSync(join(dir, e.name), { throwIfNoEntry: false })?.isDirectory())) set.add(e.name)
      this.byDir.set(dir, set)
    }
    return set.has(path.slice(cut + 1))
  }
}

/**
 * A path's stat, and for a directory every file directly in it (session
 * directories keep several files). Synchronous on purpose: a re-run of
 * 10,000 unchanged sessions is these calls and nothing else, and a stat
 * through the thread pool costs ten times one made inline.
 */
function statTree(path: string, dirs: SubDirs): Array<[string, number, number, number]> {
  let s
  try {
    s = statSync(path, { throwIfNoEntry: false })
  } catch {
    return []
  }
  if (!s) return []
  if (!s.isDirectory()) {
    const own: Array<[string, number, number, number]> = [[path, s.size, s.mtimeMs, s.ino]]
    // A session file's side directory (same name without the extension: sub-agents, spilled outputs).
    const side = path.replace(/\.[^./]+(\.zst)?$/, '')
    if (side !== path && dirs.has(side)) for (const t of sideTree(side, 0)) own.push(t)
    return own
  }
  const out: Array<[string, number, number, number]> = []
  let list: string[]
  try {
    list = readdirSync(path).sort()
  } catch {
    return [[path, 0, s.mtimeMs, s.ino]]
  }
  for (const n of list) {
    const f = statOf(join(path, n))
    if (f) out.push([n, f.size, f.mtimeMs, f.ino])
  }
  return out
}

function sideTree(dir: string, depth: number): Array<[string, number, number, number]> {
  const out: Array<[string, number, number, number]> = []
  for (const e of names(dir).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (depth < 2) out.push(...sideTree(p, depth + 1))
      continue
    }
    const f = statOf(p)
    if (f) out.push([p, f.size, f.mtimeMs, f.ino])
  }
  return out
}

/**
 * What must not change for a session to be skipped. Sessions kept as rows of
 * a shared database (whose file changes with any session) are compared by
 * what discovery says of them instead.
 */
function fingerprint(s: SourceSession, children: SourceSession[], dirs: SubDirs): { fp: string; bytes: number; top: Stat | null } {
  const parts: unknown[] = []
  let bytes = 0
  let top: Stat | null = null
  for (const x of [s, ...children]) {
    if (x.locator?.db) {
      parts.push([x.sid, x.updated_at ?? null, x.message_count ?? null, x.title ?? null])
      bytes += x.bytes ?? 0
      continue
    }
    const tree = statTree(x.path, dirs)
    for (const t of tree) bytes += t[1]
    if (x === s && tree.length >= 1 && tree[0]![0] === x.path) top = { size: tree[0]![1], mtimeMs: tree[0]![2], ino: tree[0]![3] }
    parts.push([x.sid, x.path, tree])
  }
  return { fp: sha256(JSON.stringify(parts)), bytes, top }
}

/** The one-shot hash where Node has it (20.12+): a Hash object per session was a tenth of a re-run's CPU. */
const sha256: (s: string) => string = typeof crypto.hash === 'function' ? (s) => crypto.hash('sha256', s, 'hex') : (s) => createHash('sha256').update(s).digest('hex')

/** How much of a session file's start is hashed: enough to tell a rewrite from an append, small enough to cost one page read. */
const HEAD_BYTES = 4096

const headBuf = Buffer.allocUnsafe(HEAD_BYTES)

/** Synchronous for the reason statTree is: one page from the cache costs less inline than three trips through the thread pool. */
function headHash(path: string): string | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const n = readSync(fd, headBuf, 0, HEAD_BYTES, 0)
    return createHash('sha256').update(headBuf.subarray(0, n)).digest('hex').slice(0, 32)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * The records of a source's stream. Drained with read() while records are
 * buffered, and awaited only when it runs dry: `for await` costs a promise
 * and a microtask turn per record, which on 150,000 small records is a
 * noticeable part of a first archive.
 */
export async function* drain(stream: Readable): AsyncGenerator<FerryRecord[]> {
  let ended = false
  let failed: unknown = null
  let wake: (() => void) | null = null
  const poke = () => {
    const w = wake
    wake = null
    w?.()
  }
  stream.on('readable', poke)
  stream.once('end', () => ((ended = true), poke()))
  stream.once('error', (err) => ((failed = err), poke()))
  stream.once('close', () => ((ended = true), poke()))
  try {
    for (;;) {
      if (failed) throw failed
      const batch: FerryRecord[] = []
      for (let r = stream.read() as FerryRecord | null; r !== null; r = stream.read() as FerryRecord | null) batch.push(r)
      if (batch.length) {
        yield batch
        continue
      }
      if (failed) throw failed
      if (ended || stream.readableEnded) return
      await new Promise<void>((res) => (wake = res))
    }
  } finally {
    stream.off('readable', poke)
    if (!stream.readableEnded) stream.destroy()
  }
}

function inCwd(s: SourceSession, cwd: string): boolean {
  return !!s.cwd && (s.cwd === cwd || s.cwd.startsWith(cwd.endsWith('/') ? cwd : cwd + '/'))
}

/** Sessions per batch (one transaction) and records per commit inside a long session. */
const BATCH_SESSIONS = 50
const BATCH_RECORDS = 20_000

/**
 * `readAhead` may read the sessions to read in other threads (the CLI's reader workers); it is asked
 * once the work is known and may decline (null), and by default every session is read here.
 */
export async function syncArchive(ctx: StoreContext, db: ArchiveDb, dbPath: string, sources: SyncSource[], filter: SyncFilter = {}, hooks: SyncHooks = {}, waitMs = 30_000, readAhead?: ReadAheadFactory): Promise<SyncSummary> {
  const w = new ArchiveWriter(db, dbPath, waitMs)
  const sum: SyncSummary = { sessions: { added: 0, updated: 0, unchanged: 0, gone: 0, failed: 0 }, records: { added: 0, changed: 0 }, bytes: 0, readers: 0, db: dbPath }
  const full = filter.cwd === undefined && filter.since === undefined && filter.sessions === undefined

  // Discovery first (cheap), so progress knows the total.
  const plan: Array<{ src: SyncSource; top: SourceSession; children: SourceSession[] }> = []
  const present = new Map<string, Set<string>>()
  for (const { src, session } of filter.sessions ?? []) plan.push({ src, top: session, children: [] })
  for (const src of filter.sessions ? [] : sources) {
    const found: SourceSession[] = []
    const seen = new Set<string>()
    try {
      for await (const s of src.discover(ctx, { all: true })) {
        if (seen.has(s.sid)) continue
        seen.add(s.sid)
        found.push(s)
      }
    } catch (err) {
      const e = asFerryError(err)
      ctx.diagnostics.error('discover-failed', `${src.id}: sessions could not be listed: ${e.message}`, e.position, src.id)
      continue
    }
    present.set(src.id, seen)
    const kids = new Map<string, SourceSession[]>()
    for (const s of found) if (s.parent && seen.has(s.parent)) kids.set(s.parent, [...(kids.get(s.parent) ?? []), s])
    for (const s of found) {
      if (s.parent && seen.has(s.parent)) continue
      if (filter.cwd !== undefined && !inCwd(s, filter.cwd)) continue
      if (filter.since !== undefined) {
        const t = Date.parse(s.updated_at ?? s.created_at ?? '')
        if (Number.isNaN(t) || t < filter.since) continue
      }
      plan.push({ src, top: s, children: kids.get(s.sid) ?? [] })
    }
  }

  // In key order: the indexes keyed by session (record ids, records by session, sessions by sid) then grow at
  // their right edge, so a batch dirties a few pages of each rather than one per session; in discovery's
  // order (folder by folder) every batch rewrote pages all over them, which on 10,000 sessions was a sixth
  // of what a first archive writes. Nothing reads meaning into the order records are numbered in within a run.
  plan.sort((a, b) => (a.top.sid < b.top.sid ? -1 : a.top.sid > b.top.sid ? 1 : 0))
  const fps: Array<ReturnType<typeof fingerprint>> = []
  let totalBytes = 0
  const dirs = new SubDirs()
  for (const p of plan) {
    const f = fingerprint(p.top, p.children, dirs)
    fps.push(f)
    totalBytes += f.bytes
  }
  hooks.start?.(plan.length, totalBytes)

  let inBatch = 0
  let reader: ReadAhead | null = null
  try {
    w.begin()
    // Every session's fingerprint in one scan (under the lock, so what another run just wrote counts).
    const known = w.storedAll()
    const unchanged = plan.map(({ top, children }, i) => {
      const stored = known.get(top.sid)
      return stored !== undefined && stored.fingerprint === fps[i]!.fp && children.every((c) => known.has(c.sid))
    })
    const items: ReadItem[] = []
    let readBytes = 0
    for (let i = 0; i < plan.length; i++) {
      if (unchanged[i]) continue
      items.push({ src: plan[i]!.src.id, session: plan[i]!.top, bytes: fps[i]!.bytes, fresh: !known.has(plan[i]!.top.sid) })
      readBytes += fps[i]!.bytes
    }
    reader = (items.length ? readAhead?.(ctx, items, readBytes) : null) ?? readInline(ctx, new Map(sources.map((x) => [x.id, x])), items)
    sum.readers = reader.threads
    let next = 0
    for (let i = 0; i < plan.length; i++) {
      const { src, top, children } = plan[i]!
      const f = fps[i]!
      const stored = known.get(top.sid) ?? null
      if (unchanged[i]) {
        if (stored!.gone) w.seenUnchanged(top.sid)
        for (const c of children) if (known.get(c.sid)?.gone) w.seenUnchanged(c.sid)
        sum.sessions.unchanged++
        hooks.tick?.(0, top.sid)
        continue
      }
      const r = await syncOne(ctx, w, src, top, children, f, stored === null, reader.session(next++))
      sum.bytes += f.bytes
      sum.records.added += r.added
      sum.records.changed += r.changed
      if (r.failed) sum.sessions.failed++
      else if (stored === null) sum.sessions.added++
      else if (r.added + r.changed > 0 || r.newSessions > 0) sum.sessions.updated++
      else sum.sessions.unchanged++
      hooks.tick?.(f.bytes, top.sid)
      inBatch++
      if (inBatch >= BATCH_SESSIONS || w.pending >= BATCH_RECORDS) {
        w.commit()
        w.begin()
        inBatch = 0
      }
    }
    if (full) for (const [h, sids] of present) sum.sessions.gone += w.markGone(h, sids)
    w.commit()
  } catch (err) {
    w.rollback()
    throw err
  } finally {
    await reader?.close()
  }
  return sum
}

interface OneResult {
  added: number
  changed: number
  newSessions: number
  failed: boolean
}

/** Reads one session (and the sub-agent sessions its read brings) into the open transaction. */
async function syncOne(ctx: StoreContext, w: ArchiveWriter, src: SyncSource, top: SourceSession, children: SourceSession[], f: { fp: string; top: Stat | null }, isNew: boolean, events: AsyncIterable<SessionEvent[]>): Promise<OneResult> {
  const res: OneResult = { added: 0, changed: 0, newSessions: 0, failed: false }
  const errorsBefore = ctx.diagnostics.errors
  const infos = new Map([top, ...children].map((s) => [s.sid, s]))
  const head = f.top ? headHash(top.path) : undefined
  let open: string | null = null
  let end: EndRec | undefined
  const close = (complete: boolean) => {
    if (open === null) return
    const c = w.finishSession(end, { complete, fingerprint: open === top.sid ? f.fp : complete ? 'child' : null })
    res.added += c.added
    res.changed += c.changed
    open = null
    end = undefined
  }
  try {
    for await (const batch of events) {
      for (const ev of batch) {
        if ('data' in ev) {
          if (open === null || ev.sid !== open) continue
          w.writeRow(ev)
          // Not while a reader's sealed block for these rows is still to come (the writer would seal it itself): after it comes.
          if (w.pending >= BATCH_RECORDS && !w.awaitingBlock) {
            w.commit()
            w.begin()
          }
          continue
        }
        if (ev.kind === 'diagnostic') {
          ctx.diagnostics.report(ev.diagnostic)
          continue
        }
        if (ev.kind === 'block') {
          if (open === null) continue
          w.takeBlock(ev.rows, ev.blob)
          if (w.pending >= BATCH_RECORDS) {
            w.commit()
            w.begin()
          }
          continue
        }
        const rec = ev
        if (rec.kind === 'stream') continue
        if (rec.kind === 'session') {
          close(true)
          const info = infos.get(rec.sid)
          const isTop = rec.sid === top.sid
          const made = w.openSession(rec as SessionRec, {
            ...(info ? { path: info.path, info: info as unknown as Record<string, unknown> } : {}),
            ...(isTop && f.top ? { size: f.top.size, mtimeMs: f.top.mtimeMs, ino: f.top.ino } : {}),
            ...(isTop && head ? { head } : {}),
          })
          if (made && !isNew) res.newSessions++
          open = rec.sid
          continue
        }
        if (rec.kind === 'end') {
          if (open === rec.sid) end = rec
          continue
        }
      }
    }
    const clean = ctx.diagnostics.errors === errorsBefore
    close(clean)
    // A session with unreadable parts keeps what was read, but no fingerprint: the next run reads it again and says so again.
    if (!clean) {
      res.failed = true
      w.forget(top.sid)
    }
  } catch (err) {
    // The archive itself failing (lock, disk full) ends the run; a session that cannot be read only skips it.
    if ((err as { code?: string })?.code === 'db-error' || (err as Error)?.name === 'SqliteError') throw err
    const e = asFerryError(err, 'unreadable')
    ctx.diagnostics.error(e.code === 'internal' ? 'unreadable' : e.code, `${top.sid}: not archived: ${e.message}`, e.position ?? { file: top.path }, src.id)
    if (open !== null) {
      const c = w.finishSession(end, { complete: false, fingerprint: null })
      res.added += c.added
      res.changed += c.changed
    }
    w.forget(top.sid)
    res.failed = true
  }
  return res
}

