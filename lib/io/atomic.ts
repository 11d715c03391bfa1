/**
 * Atomic writes: everything ferry writes into a store goes to a temp file (or
 * temp directory) beside its final place and is renamed into place only when
 * complete, so an interrupted run never leaves a half-written session that
 * looks finished. Temp names start with `.ferry-tmp-` so that no harness's
 * discovery mistakes them for sessions; a signal handler removes the ones of
 * this process on SIGINT/SIGTERM/SIGHUP and on exit (signal-exit).
 *
 * Streamed files use AtomicFile; small whole files use writeWholeFile or
 * StagedFile (written now, renamed into place later, so side files can be
 * committed with the session they belong to). All of them write the temp file
 * with a loop that checks every write's byte count (a full disk shows up as a
 * short write or ENOSPC, never as a shorter file), fsync it, and commit it
 * through the same no-clobber rename.
 *
 * Every writer takes an optional store `root`: the target's directory must
 * resolve, symlinks followed, inside the root (insideRoot), so no path or
 * symlinked directory inside a store makes a write leave it.
 */
import { randomBytes } from 'node:crypto'
import { closeSync, createWriteStream, fsync, linkSync, openSync, readdirSync, renameSync, rmSync, writeSync, type WriteStream } from 'node:fs'
import { mkdir, link, open, rename, rm, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { once } from 'node:events'
import { onExit } from 'signal-exit'
import { ExistsError } from '../errors.js'
import { insideRoot } from './inside-root.js'

export const TEMP_PREFIX = '.ferry-tmp-'

const live = new Set<string>()

/** Forgets a temp path (file, or a directory with `dir`) and removes it. */
async function dropTemp(tmp: string, dir = false): Promise<void> {
  live.delete(tmp)
  await rm(tmp, { force: true, ...(dir ? { recursive: true } : {}) })
}
/** Folders where other threads of this process write temp files (see sweepOnExit). */
const swept = new Set<string>()
let hooked = false
function hook(): void {
  if (hooked) return
  hooked = true
  // signal-exit runs this on every exit path it can see (signals it re-raises
  // afterwards, so the exit status still says we were killed; process.exit).
  onExit(() => {
    for (const p of live) rmSync(p, { recursive: true, force: true })
    const mine = `${TEMP_PREFIX}${process.pid}-`
    for (const dir of swept) {
      let names: string[] = []
      try {
        names = readdirSync(dir)
      } catch {
        // Not made yet, or gone.
      }
      for (const n of names) if (n.startsWith(mine)) rmSync(join(dir, n), { recursive: true, force: true })
    }
  })
}
function track(path: string): void {
  live.add(path)
  hook()
}

/**
 * On exit (a signal included), also remove this process's temp files directly in `dir`. For worker
 * threads writing there (`convert --jobs`): a signal ends the process from the main thread, where
 * their own lists of temp files are not, and their names carry the process id.
 */
export function sweepOnExit(dir: string): void {
  swept.add(dir)
  hook()
}

/** Registers a temp path made elsewhere (by its own writer) so that a signal or exit removes it like ours; returns it. */
export function trackTemp(path: string): string {
  track(path)
  return path
}

/**
 * Removes the temp files and folders (`.ferry-tmp-<pid>-…`) that an earlier
 * ferry run left under `dir` (its subfolders included) when it was killed
 * outright: those whose process is gone. A live run's are kept.
 */
export function sweepStaleTemps(dir: string, depth = 4): void {
  let ents: import('node:fs').Dirent[]
  try {
    ents = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const e of ents) {
    if (e.name.startsWith(TEMP_PREFIX)) {
      const pid = Number(/^\.ferry-tmp-(\d+)-/.exec(e.name)?.[1])
      if (pid > 0 && !alive(pid)) rmSync(join(dir, e.name), { recursive: true, force: true })
    } else if (e.isDirectory() && depth > 0) sweepStaleTemps(join(dir, e.name), depth - 1)
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function tempPathFor(finalPath: string): string {
  return join(dirname(finalPath), `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}-${basename(finalPath)}`)
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/**
 * A write error on a descriptor (ENOSPC, EIO) or from SQLite (SQLITE_FULL) names no file: it gets the final path it was writing,
 * so that the one-line report says where (the temp file is gone by the time it is read).
 */
export function located(err: unknown, path: string): unknown {
  const e = err as NodeJS.ErrnoException | null
  if (e && typeof e === 'object' && /^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(String(e.code)) && !e.path) e.path = path
  return err
}

/** Moves `tmp` to `final`; refuses to replace an existing `final` unless `force`. */
async function commitPath(tmp: string, final: string, force: boolean): Promise<void> {
  if (force) {
    await rename(tmp, final)
    return
  }
  try {
    // link() fails with EEXIST instead of replacing: a race-free no-clobber rename for files.
    await link(tmp, final)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ExistsError(final)
    throw err
  }
  await unlink(tmp)
}

/** Size of the buffer an AtomicFile gathers strings in. */
const WRITE_BUFFER = 1024 * 1024
/** Buffers of committed files, kept for the next ones (a run writes one file after another). */
const writeBuffers: Buffer[] = []
const SPARE_BUFFERS = 4

/** A file written as a stream and renamed into place by `commit()`. */
export class AtomicFile {
  readonly path: string
  readonly tmp: string
  readonly stream: WriteStream
  private done = false
  private error: Error | null = null
  private buffer: Buffer | null = null
  private used = 0

  private constructor(path: string, tmp: string, stream: WriteStream) {
    this.path = path
    this.tmp = tmp
    this.stream = stream
    // Keep the first write error (ENOSPC, EIO) for write()/commit() to throw; never an unhandled event.
    stream.on('error', (err) => {
      this.error ??= located(err, path) as Error
    })
  }

  static async create(path: string, opts: { force?: boolean; root?: string } = {}): Promise<AtomicFile> {
    if (!opts.force && (await exists(path))) throw new ExistsError(path)
    await prepareDir(path, opts.root)
    const tmp = tempPathFor(path)
    // Tracked before it exists: a signal or a failure while it is opening still removes it.
    track(tmp)
    // Made synchronously: once a thread writing here is stopped, no open of its is still under way
    // that could leave a temp file after the sweep (convert --jobs, sweepOnExit).
    let fd: number
    try {
      fd = openSync(tmp, 'wx')
    } catch (err) {
      live.delete(tmp)
      throw err
    }
    const stream = createWriteStream(tmp, { fd, highWaterMark: 256 * 1024 })
    return new AtomicFile(path, tmp, stream)
  }

  /**
   * Writes, waiting for the disk when the buffer is full (backpressure).
   * Strings are encoded into one buffer of the file's and written from it a
   * buffer at a time: the stream would otherwise allocate a fresh buffer for
   * every string, which the allocator keeps long after the write (a third of
   * a long conversion's resident memory).
   */
  async write(data: string | Buffer): Promise<void> {
    if (this.error) throw this.error
    if (typeof data === 'string' && data.length * 3 <= WRITE_BUFFER) {
      // At most 3 UTF-8 bytes per UTF-16 unit: it fits once the buffer is written out.
      if (this.used + data.length * 3 > WRITE_BUFFER) await this.flush()
      this.buffer ??= writeBuffers.pop() ?? Buffer.allocUnsafeSlow(WRITE_BUFFER)
      this.used += this.buffer.write(data, this.used)
      return
    }
    await this.flush()
    if (!this.stream.write(data)) await once(this.stream, 'drain')
  }

  /** Writes out the gathered strings, and waits until they are written: the buffer is then free again. */
  private async flush(): Promise<void> {
    if (!this.used) return
    const chunk = this.buffer!.subarray(0, this.used)
    this.used = 0
    await new Promise<void>((res) => this.stream.write(chunk, () => res()))
    if (this.error) throw this.error
  }

  async commit(opts: { force?: boolean } = {}): Promise<void> {
    if (this.done) return
    this.done = true
    try {
      if (this.error) throw this.error
      await this.flush()
      this.stream.end()
      await once(this.stream, 'finish')
      this.releaseBuffer()
      const fh = await open(this.tmp, 'r')
      try {
        await fh.sync()
      } finally {
        await fh.close()
      }
      await commitPath(this.tmp, this.path, opts.force ?? false)
    } catch (err) {
      throw located(err, this.path)
    } finally {
      await dropTemp(this.tmp)
    }
  }

  /** Back to the spares once nothing can still be writing from it (not after an abort: a write may be under way). */
  private releaseBuffer(): void {
    if (this.buffer && writeBuffers.length < SPARE_BUFFERS) writeBuffers.push(this.buffer)
    this.buffer = null
  }

  async abort(): Promise<void> {
    if (this.done) return
    this.done = true
    this.stream.destroy()
    await dropTemp(this.tmp)
  }
}

/** A directory filled in a temp location and renamed into place by `commit()`. */
export class AtomicDir {
  readonly path: string
  readonly tmp: string
  private done = false

  private constructor(path: string, tmp: string) {
    this.path = path
    this.tmp = tmp
  }

  static async create(path: string, opts: { force?: boolean; root?: string } = {}): Promise<AtomicDir> {
    if (!opts.force && (await exists(path))) throw new ExistsError(path)
    await prepareDir(path, opts.root)
    const tmp = tempPathFor(path)
    track(tmp)
    await mkdir(tmp)
    return new AtomicDir(path, tmp)
  }

  async commit(opts: { force?: boolean } = {}): Promise<void> {
    if (this.done) return
    this.done = true
    try {
      if (await exists(this.path)) {
        if (!opts.force) throw new ExistsError(this.path)
        // Swap: move the old one aside first so there is never a moment with a half directory.
        const old = tempPathFor(this.path)
        await rename(this.path, old)
        await rename(this.tmp, this.path)
        await rm(old, { recursive: true, force: true })
      } else {
        await rename(this.tmp, this.path)
      }
    } finally {
      await dropTemp(this.tmp, true)
    }
  }

  async abort(): Promise<void> {
    if (this.done) return
    this.done = true
    await dropTemp(this.tmp, true)
  }
}

/** Checks the target against the store root, then creates its directory (and checks again: mkdir may have followed a link). */
async function prepareDir(path: string, root: string | undefined): Promise<void> {
  if (root !== undefined) await insideRoot(root, path)
  await mkdir(dirname(path), { recursive: true })
  if (root !== undefined) await insideRoot(root, path)
}

/** Writes all of `data` to a new file `tmp` ('wx'), checking each write's count, and fsyncs it. */
async function writeAll(tmp: string, data: string | Buffer, mode: number | undefined): Promise<void> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  const fh = await open(tmp, 'wx', mode ?? 0o666)
  try {
    let off = 0
    while (off < buf.length) {
      const { bytesWritten } = await fh.write(buf, off, buf.length - off)
      // A zero-byte write would loop forever; the disk is full in all but name.
      if (bytesWritten <= 0) throw Object.assign(new Error(`ENOSPC: short write (${off} of ${buf.length} bytes): ${tmp}`), { code: 'ENOSPC' })
      off += bytesWritten
    }
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/**
 * A small whole file written to its temp name now and renamed into place by
 * `commit()` (side files committed together with their session).
 */
export class StagedFile {
  private done = false
  private constructor(readonly path: string, readonly tmp: string) {}

  static async create(path: string, data: string | Buffer, opts: { force?: boolean; mode?: number; root?: string } = {}): Promise<StagedFile> {
    if (!opts.force && (await exists(path))) throw new ExistsError(path)
    await prepareDir(path, opts.root)
    const tmp = tempPathFor(path)
    track(tmp)
    try {
      await writeAll(tmp, data, opts.mode)
    } catch (err) {
      await dropTemp(tmp)
      throw located(err, path)
    }
    return new StagedFile(path, tmp)
  }

  async commit(opts: { force?: boolean } = {}): Promise<void> {
    if (this.done) return
    this.done = true
    try {
      await commitPath(this.tmp, this.path, opts.force ?? false)
    } finally {
      await dropTemp(this.tmp)
    }
  }

  async abort(): Promise<void> {
    if (this.done) return
    this.done = true
    await dropTemp(this.tmp)
  }
}

/** Writes a small whole file atomically: temp file, checked writes, fsync, no-clobber rename. */
export async function writeWholeFile(path: string, data: string | Buffer, opts: { force?: boolean; mode?: number; root?: string } = {}): Promise<void> {
  const f = await StagedFile.create(path, data, opts)
  await f.commit({ force: opts.force ?? false })
}

/** A temp file made (never over another), holding all of `data`; its descriptor is still open. */
function writeTempSync(tmp: string, data: string | Buffer): number {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  track(tmp)
  let fd: number | undefined
  try {
    fd = openSync(tmp, 'wx', 0o666)
    let off = 0
    while (off < buf.length) {
      const n = writeSync(fd, buf, off, buf.length - off)
      if (n <= 0) throw Object.assign(new Error(`ENOSPC: short write (${off} of ${buf.length} bytes): ${tmp}`), { code: 'ENOSPC' })
      off += n
    }
    return fd
  } catch (err) {
    if (fd !== undefined) closeSync(fd)
    forgetTemp(tmp)
    throw err
  }
}

/** The complete temp file takes its final name: no-clobber link, or rename over it with `force`. */
function placeSync(tmp: string, path: string, force?: boolean): void {
  if (force) return renameSync(tmp, path)
  try {
    linkSync(tmp, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ExistsError(path)
    throw err
  }
}

/** Stops tracking a temp file and removes it (unless a rename already moved it). */
function forgetTemp(tmp: string, moved = false): void {
  live.delete(tmp)
  if (!moved) rmSync(tmp, { force: true })
}

/**
 * Many small whole files into a folder the caller has already made and
 * checked (a sink writing thousands of sessions): each is written to its temp
 * file now through synchronous calls (the data is in memory, so each call is
 * bounded, and thread-pool round trips would cost more than the syscalls),
 * fsynced in the thread pool while the caller goes on (the next session is
 * read meanwhile, and several fsyncs share one journal commit), and given its
 * final name (no-clobber link, or rename with `force`) only once its fsync
 * returned, so what a power cut leaves under a final name is complete.
 * Bounded: at most `limit` files (open descriptors) are in flight.
 */
export class BackgroundCommits {
  private readonly inflight = new Set<Promise<void>>()

  constructor(private readonly limit = 32) {}

  /** Writes the temp file and returns at once; `later` settles when the file has its final name (or failed). */
  async add(path: string, data: string | Buffer, opts: { force?: boolean } = {}): Promise<{ later: Promise<void> }> {
    // `inflight` holds settled-either-way promises: the race never rejects.
    while (this.inflight.size >= this.limit) await Promise.race(this.inflight)
    const tmp = tempPathFor(path)
    const fd = writeTempSync(tmp, data)
    const later = new Promise<void>((resolve, reject) => {
      fsync(fd, (syncErr) => {
        let placed = false
        try {
          closeSync(fd)
          if (syncErr) throw syncErr
          placeSync(tmp, path, opts.force)
          placed = true
          resolve()
        } catch (err) {
          reject(err)
        } finally {
          forgetTemp(tmp, placed && opts.force)
        }
      })
    })
    const settled = later.then(
      () => undefined,
      () => undefined,
    )
    this.inflight.add(settled)
    void settled.then(() => this.inflight.delete(settled))
    return { later }
  }
}

/** Makes `dir` (and its parents) and checks it lies inside `root`: what every write into it would check, done once. */
export async function prepareDirOnce(dir: string, root?: string): Promise<void> {
  await prepareDir(join(dir, 'x'), root)
}
