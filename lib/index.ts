/**
 * ferry as a library:
 *
 *   import { open, sink, pipeline } from 'ferry'
 *   import { redact } from 'ferry/transforms'
 *   await pipeline(await open('codex:0199…'), redact(), sink('claude-code'))
 */
import type { Readable, Writable } from 'node:stream'
import { createContext, type ContextOptions, type StoreContext } from './context.js'
import { getHarness, harnesses, storeEnvVars, type HarnessId } from './harness/registry.js'
import type { DiscoverOptions, ReadOptions, SessionInfo, WriteOptions } from './harness/types.js'
import { UsageError } from './errors.js'
import { resolveRef } from './harness/refs.js'
import { pipeline as joinStages, type Stage } from './io/pipeline.js'
import type { WrittenSession } from './harness/types.js'

export * from './model.js'
export type { Harness, HarnessSpec, SessionInfo, ReadOptions, WriteOptions, WrittenSession, DiscoverOptions, Flag, Flags } from './harness/types.js'
export { defineHarness } from './harness/types.js'
export type { HarnessId } from './harness/registry.js'
export { CODES, type Code } from './codes.js'
export { SessionSink, type SessionWriter } from './harness/session-sink.js'
export { createContext, type StoreContext, type ContextOptions } from './context.js'
export { Diagnostics, type Diagnostic } from './diagnostics.js'
export { FerryError, UsageError, ExistsError, UnsafePathError, NotWrittenError, type SessionFailure } from './errors.js'
export { mapRecords, concatSources, collect, type RecordFn, type Stage } from './io/pipeline.js'
export { parseStream } from './interchange/parse.js'
export { stringify } from './interchange/stringify.js'
export { LineSplitter, lines } from './io/lines.js'
export { readLines, readHead, readTail } from './io/line-file.js'
export { openBytes } from './io/bytes.js'
export { AtomicFile, AtomicDir } from './io/atomic.js'
export { harnesses, getHarness } from './harness/registry.js'
export { VERSION } from './version.js'
export { openArchive, defaultArchivePath } from './archive/store/db.js'
export { syncArchive, type SyncSummary, type SyncSource } from './archive/sync.js'
export { search, type SearchHit, type SearchOptions } from './archive/search.js'
export { exportArchive, type ExportOptions, type ExportSummary } from './archive/export.js'

/** A store context for library use; `home` isolates every store under one directory. */
export function context(opts: ContextOptions = {}): StoreContext {
  return createContext({ ...opts, storeEnvVars: storeEnvVars() })
}

/**
 * Where a library call looks for stores: `ctx` (a context()), or `home` (every store under
 * that directory, as the CLI's --home); neither means this process's HOME and environment.
 */
export interface StoreChoice {
  ctx?: StoreContext
  home?: string
}

function contextOf(opts: StoreChoice): StoreContext {
  if (opts.ctx && opts.home !== undefined) throw new UsageError('give ctx or home, not both')
  return opts.ctx ?? context(opts.home !== undefined ? { home: opts.home } : {})
}

/** A session reference: `harness:id` (id or any unique prefix), a bare id, a path, or `-`. */
export type SessionRef = `${HarnessId}:${string}` | (string & {})

/** Opens a session (`harness:id`, a path, or `-`) as a Readable of records. */
export async function open(ref: SessionRef, opts: ReadOptions & StoreChoice & Record<string, unknown> = {}): Promise<Readable> {
  const { ctx: _c, home: _h, ...readOpts } = opts
  const ctx = contextOf(opts)
  const { harness, session } = await resolveRef(ctx, ref)
  return harness.read!(ctx, session, { native: true, ...readOpts })
}

/** A Writable that writes records as sessions of `harness`; `pipeline()` resolves to what it wrote. */
export function sink(harness: HarnessId, opts: WriteOptions & StoreChoice & Record<string, unknown> = {}): Writable {
  const { ctx: _c, home: _h, ...writeOpts } = opts
  const ctx = contextOf(opts)
  const h = getHarness(harness)
  if (!h.sink) throw new UsageError(`${h.name} (${h.id}) cannot be written yet`)
  return h.sink(ctx, writeOpts)
}

/**
 * Joins a source, stages and a sink (backpressure, abort on error). Resolves
 * to the sessions the sink wrote (its `written` reports; none for a plain
 * Writable); rejects with NotWrittenError after the others were written
 * when some could not be (sink policy).
 */
export async function pipeline(source: Readable, ...rest: [...Stage[], Writable] | [...Stage[], Writable, { signal?: AbortSignal }]): Promise<WrittenSession[]> {
  const streams = (rest as unknown[]).filter((x): x is Writable => typeof (x as Writable | null)?.on === 'function')
  const last = streams[streams.length - 1]
  const written: WrittenSession[] = []
  last?.on('written', (w: WrittenSession) => written.push(w))
  await joinStages(source, ...rest)
  return written
}

/** Every session of every (or the given) harness. */
export async function* discover(opts: DiscoverOptions & StoreChoice & { harness?: HarnessId[] } = {}): AsyncGenerator<SessionInfo> {
  const { ctx: _c, home: _h, harness, ...dopts } = opts
  const ctx = contextOf(opts)
  for (const h of harnesses) {
    // A store that holds copies (the archive) is listed only when named.
    if (!h.discover || (harness ? !(harness as string[]).includes(h.id) : h.holdsCopies)) continue
    yield* h.discover(ctx, dopts)
  }
}
export { continueSession, resumeCommand, commandLine, type ContinueOptions, type ContinueResult, type ResumeCommand } from './app/continue.js'
export { renderer, renderStages, shareRedaction, FORMATS as RENDER_FORMATS, VIEW_DEFAULTS, type RenderFormat, type RenderOptions, type ViewOptions } from './render/index.js'
