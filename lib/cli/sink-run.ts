/**
 * Running a record stream into a harness sink and reporting what was
 * written, one line per session on stdout (or JSON with --json). Sessions
 * that could not be written were reported by the sink (sink policy); the
 * NotWrittenError it ends with only sets the exit code here.
 *
 * `--out` means one thing everywhere: `-` is stdout (only where the format
 * is a stream); a path ending in a separator, or an existing directory, is a
 * directory; anything else is a file. The interchange stream holds many
 * sessions, so a file there gets all of them; a store harness decides what a
 * file means for it (an import document, a database) and refuses what it cannot.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { Readable, Transform, Writable } from 'node:stream'
import type { StoreContext } from '../context.js'
import { NotWrittenError, UsageError } from '../errors.js'
import { createContext } from '../context.js'
import type { Diagnostic, Diagnostics } from '../diagnostics.js'
import { getHarness, storeEnvVars } from '../harness/registry.js'
import { commandLine, resumeCommand } from '../app/continue.js'
import type { Harness, WriteOptions, WrittenSession } from '../harness/types.js'
import { AtomicFile } from '../io/atomic.js'
import { stringify } from '../interchange/stringify.js'
import { parseSessionKey, type FerryRecord } from '../model.js'
import { pipeline } from '../io/pipeline.js'
import { report as printReport, stdoutIsReport, writtenLine } from './output.js'
import { salvageThrough } from './salvage.js'
import { writeInWorkers, type Parallel } from './parallel.js'
import { progress, type Progress } from './progress.js'
import { STDIN_SENTINEL } from './argv.js'

export type OutKind = 'store' | 'stdout' | 'dir' | 'file'

/** What `--out VALUE` names (see the module comment). */
export function outKind(out: string | undefined): OutKind {
  if (out === undefined) return 'store'
  if (out === '-' || out === STDIN_SENTINEL) return 'stdout'
  if (out.endsWith('/') || out.endsWith(sep)) return 'dir'
  try {
    if (statSync(out).isDirectory()) return 'dir'
  } catch {
    // Not there yet: a file name.
  }
  return 'file'
}

export interface SinkRunOptions {
  json: boolean
  /** Read and transform everything, report what would be written, write nothing. */
  dryRun?: boolean
  /** What the source holds, for the progress display (sessions, bytes on disk), when known. */
  total?: { sessions: number; bytes: number }
  quiet?: boolean
}

/**
 * `source` is the record stream, or the sessions to share out among worker threads (parallel.ts),
 * which then run `transforms` themselves, each from the command line.
 */
export async function runIntoSink(ctx: StoreContext, source: Readable | Parallel, transforms: Transform[], to: string, opts: WriteOptions & Record<string, unknown>, run: SinkRunOptions | boolean): Promise<WrittenSession[]> {
  const { json, dryRun = false, total, quiet } = typeof run === 'boolean' ? ({ json: run } as SinkRunOptions) : run
  const h = getHarness(to)
  if (!h.sink) throw new UsageError(`${h.name} (${h.id}) cannot be written yet`)
  const kind = outKind(opts.out)
  if (kind === 'stdout' && h.kind !== 'stream') throw new UsageError(`--out -: ${h.name} is written as a store, not to stdout; give a directory or file`)
  const oneFile = kind === 'file' && h.oneSessionPerFile === true
  if (oneFile && total && total.sessions > 1) throw oneFileError(h, String(opts.out), total.sessions)
  const { out: _out, ...rest } = opts
  const sinkOpts: WriteOptions & Record<string, unknown> = kind === 'stdout' || kind === 'store' ? rest : { ...rest, out: opts.out }
  const written: WrittenSession[] = []
  // The stream harness on stdout: the records themselves are the output.
  const report = dryRun || !(h.kind === 'stream' && (kind === 'stdout' || kind === 'store'))
  if (report) stdoutIsReport()
  // Progress on a terminal's stderr only (progress.ts decides); the stream to stdout has none to share the screen with.
  const bar = progress({
    label: dryRun ? 'checking' : 'writing',
    ...(total && total.sessions > 0 ? { total: total.sessions } : {}),
    ...(total && total.bytes > 0 ? { totalBytes: total.bytes } : {}),
    quiet: Boolean(quiet),
  })
  // Into an agent's real store: how to resume each session (stderr, so the report's columns stay as they are; --json: `command`).
  const resumable = kind === 'store' && !dryRun && h.kind === 'store' && Boolean(h.resumeHint)
  const onWritten = (written1: WrittenSession) => {
    let ws = written1
    const cmd = resumable ? resumeCommand(h, ws.id, ws.cwd ?? process.cwd()) : null
    if (cmd && json) ws = { ...ws, command: cmd.argv, cwd: cmd.cwd } as WrittenSession
    written.push(ws)
    bar.tick(0, ws.from ?? ws.id)
    if (report) printReport(writtenLine(ws, json) + '\n')
    // A session still to be imported (the client was not on PATH) resumes only after that step: the line has both.
    if (cmd && !json && !quiet) process.stderr.write(`ferry: resume: ${commandLine(cmd, ws.pending)}\n`)
  }
  if (!(source instanceof Readable)) {
    try {
      await writeInWorkers(ctx, source, to, sinkOpts, { written: onWritten, ...(bar.shown ? { progress: (records: number, bytes: number) => (bar.records(records), bar.bytes(bytes)) } : {}) })
    } finally {
      bar.stop()
    }
    return written
  }
  transforms = [counting(bar), ...transforms, ...(oneFile ? [oneSessionOnly(h, String(opts.out))] : [])]
  // A read or a transform that fails midway: the sessions before it are written, the cut one is not; then the located error.
  const salvaged = salvageThrough(source, transforms)
  try {
    return await writeAll()
  } finally {
    bar.stop()
  }
  async function writeAll(): Promise<WrittenSession[]> {
  if (dryRun) {
    if (h.kind === 'stream') await pipeline(salvaged.source, dryRunSink(h, kind === 'file' ? resolve(String(opts.out)) : '-', onWritten))
    else await dryRunStore(ctx, h, kind, sinkOpts, salvaged.source, onWritten)
    if (salvaged.failure()) throw salvaged.failure()
    return written
  }
  if (h.kind === 'stream' && kind === 'file') {
    await streamFile(h, salvaged.source, [], resolve(String(opts.out)), Boolean(opts.force), onWritten, salvaged.failure)
    return written
  }
  const sink = h.sink!(ctx, sinkOpts)
  sink.on('written', onWritten)
  try {
    await pipeline(salvaged.source, sink)
  } catch (err) {
    if (!(err instanceof NotWrittenError)) throw err
    process.exitCode = 1
  }
  if (salvaged.failure()) throw salvaged.failure()
  return written
  }
}

/** Counts records and their size as they pass, for the progress display of one long session. */
function counting(bar: Progress): Transform {
  let n = 0
  return new Transform({
    objectMode: true,
    transform(rec: FerryRecord, _enc, cb) {
      n++
      const raw = (rec as { native?: { raw?: unknown } }).native?.raw
      if (typeof raw === 'string') bar.bytes(raw.length)
      if (n % 64 === 0) bar.records(64)
      cb(null, rec)
    },
  })
}

/** Counts each session as it passes and reports it when the next one (or the end) comes. */
function sessionsOf(h: Harness, path: string, report: (ws: WrittenSession, records: number) => void): Transform {
  let current: { sid: string; native: string; title?: string; records: number } | null = null
  const flush = () => {
    if (current) report({ harness: h.id, id: current.native, path, from: current.sid, ...(current.title ? { title: current.title } : {}) }, current.records)
  }
  return new Transform({
    objectMode: true,
    transform(rec: FerryRecord, _enc, cb) {
      if (rec.kind === 'session') {
        flush()
        current = { sid: rec.sid, native: rec.native_id ?? parseSessionKey(rec.sid).nativeId, records: 0, ...(rec.title ? { title: rec.title } : {}) }
      }
      if (current) current.records++
      cb(null, rec)
    },
    flush(cb) {
      flush()
      cb()
    },
  })
}

/**
 * `--dry-run` into a store: the real sink writes into a scratch folder that stands for the store
 * (or the --out folder or file) and for HOME, with no agent client on PATH (nothing is imported),
 * and each session is reported with the id and path a real run would write. The scratch folder is
 * removed; nothing outside it is touched.
 */
async function dryRunStore(ctx: StoreContext, h: Harness, kind: OutKind, sinkOpts: WriteOptions & Record<string, unknown>, source: Readable, report: (ws: WrittenSession) => void): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'ferry-dry-run-'))
  try {
    const home = join(tmp, 'home')
    const maps: Array<[string, string]> = []
    const opts: WriteOptions & Record<string, unknown> = { ...sinkOpts }
    const roots: Record<string, string> = {}
    if (kind === 'store') {
      roots[h.id] = join(tmp, 'store')
      maps.push([roots[h.id]!, h.root(ctx)])
      // A small store is copied, so a database the sink adds to (ZCode) is there and a clash shows as it would.
      copySmall(h.root(ctx), roots[h.id]!)
    } else {
      const real = resolve(String(sinkOpts.out))
      const stand = kind === 'dir' ? join(tmp, 'out') : join(tmp, 'file', basename(real))
      mkdirSync(kind === 'dir' ? stand : dirname(stand), { recursive: true })
      opts.out = kind === 'dir' ? stand + sep : stand
      maps.push([stand, real])
    }
    maps.push([home, ctx.home])
    const real = (p: string) => {
      for (const [a, b] of maps) if (p === a || p.startsWith(a + sep)) return b + p.slice(a.length)
      return p
    }
    // What the scratch run reports (a clash with an existing session) names the real place.
    const realText = (t: string) => maps.reduce((acc, [a, b]) => acc.split(a).join(b), t)
    const diagnostics = Object.create(ctx.diagnostics) as Diagnostics
    diagnostics.report = (d: Diagnostic) => ctx.diagnostics.report({ ...d, message: realText(d.message), ...(d.position?.file ? { position: { ...d.position, file: real(d.position.file) } } : {}) })
    const dctx = createContext({ home, roots, env: { ...ctx.env, PATH: '' }, storeEnvVars: storeEnvVars(), diagnostics, maxLineBytes: ctx.maxLineBytes })
    const records = new Map<string, number>()
    const counter = new Transform({
      objectMode: true,
      transform(rec: FerryRecord, _enc, cb) {
        if ('sid' in rec && typeof rec.sid === 'string') records.set(rec.sid, (records.get(rec.sid) ?? 0) + 1)
        cb(null, rec)
      },
    })
    const sink = h.sink!(dctx, opts)
    sink.on('written', (ws: WrittenSession) => {
      const n = records.get(ws.from ?? '') ?? 0
      // The scratch run's note (an import step) is about the scratch folder: a dry run says only what it did.
      report({ ...ws, path: real(ws.path), note: `dry run: ${n} records, not written`, dry_run: true, records: n } as WrittenSession)
    })
    try {
      await pipeline(source, counter, sink)
    } catch (err) {
      if (!(err instanceof NotWrittenError)) throw err
      process.exitCode = 1
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Copies `from` (a folder or file, at most 64 MiB, symlinks left out) to `to`; a bigger or missing one is not copied. */
function copySmall(from: string, to: string, cap = 64 * 1024 * 1024): void {
  let total = 0
  const walk = (p: string): boolean => {
    const st = lstatSync(p, { throwIfNoEntry: false })
    if (!st || st.isSymbolicLink()) return true
    if (st.isFile()) return (total += st.size) <= cap
    if (!st.isDirectory()) return true
    for (const name of readdirSync(p)) if (!walk(join(p, name))) return false
    return true
  }
  if (!existsSync(from) || !walk(from)) return
  cpSync(from, to, { recursive: true, filter: (src) => !lstatSync(src, { throwIfNoEntry: false })?.isSymbolicLink() })
}

/** `--dry-run` of the stream: everything is read and transformed; each session is reported with `dry_run: true`, nothing is written. */
function dryRunSink(h: Harness, where: string, report: (ws: WrittenSession) => void): Writable {
  const counter = sessionsOf(h, where, (ws, records) => report({ ...ws, note: `dry run: ${records} records, not written`, dry_run: true, records } as WrittenSession))
  const sinkEnd = new Writable({ objectMode: true, write: (_r, _e, cb) => cb() })
  counter.pipe(sinkEnd)
  return new Writable({
    objectMode: true,
    write(rec, _enc, cb) {
      if (counter.write(rec)) cb()
      else counter.once('drain', () => cb())
    },
    final(cb) {
      counter.end()
      sinkEnd.once('finish', () => cb())
    },
  })
}

/** Every session into one interchange file, written under a temp name and renamed when complete. */
async function streamFile(h: Harness, source: Readable, transforms: Transform[], path: string, force: boolean, report: (ws: WrittenSession) => void, failure: () => unknown): Promise<void> {
  const file = await AtomicFile.create(path, { force })
  const seen: WrittenSession[] = []
  try {
    // Through file.write (not piped into file.stream): commit() ends the stream itself.
    const into = new Writable({ write: (chunk: Buffer, _enc, cb) => void file.write(chunk).then(() => cb(), cb) })
    await pipeline(source, ...transforms, sessionsOf(h, path, (ws) => seen.push(ws)), stringify(), into)
    // A read cut short leaves nothing under the final name.
    if (failure()) throw failure()
    await file.commit({ force })
  } catch (err) {
    await file.abort()
    throw err
  }
  for (const ws of seen) report(ws)
}

function oneFileError(h: Harness, out: string, n?: number): UsageError {
  return new UsageError(`--out ${out}: one ${h.name} file holds one session and the input has ${n ?? 'more than one'}; give a directory (--out DIR/) or select one session`)
}

/**
 * A stream (stdin) whose session count is not known up front: each `end` is
 * held until the next record shows whether another session follows. A second
 * session is a usage error while the first is still open in the sink, so
 * nothing is committed.
 */
function oneSessionOnly(h: Harness, out: string): Transform {
  let sessions = 0
  let held: FerryRecord | null = null
  return new Transform({
    objectMode: true,
    transform(rec: FerryRecord, _enc, cb) {
      if (rec.kind === 'session' && ++sessions > 1) return cb(oneFileError(h, out))
      if (held) this.push(held)
      held = rec.kind === 'end' ? rec : null
      cb(null, held ? undefined : rec)
    },
    flush(cb) {
      cb(null, held ?? undefined)
    },
  })
}
