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
import { resolveRef } from './refs.js'

export * from './model.js'
export type { Harness, HarnessSpec, SessionInfo, ReadOptions, WriteOptions, WrittenSession, DiscoverOptions, Flag, Flags } from './harness/types.js'
export { defineHarness } from './harness/types.js'
export type { HarnessId } from './harness/registry.js'
export { CODES, type Code } from './codes.js'
export { SessionSink, type SessionWriter } from './harness/session-sink.js'
export { createContext, type StoreContext, type ContextOptions } from './context.js'
export { Diagnostics, type Diagnostic } from './diagnostics.js'
export { FerryError, UsageError, ExistsError, UnsafePathError, NotWrittenError, type SessionFailure } from './errors.js'
export { pipeline, mapRecords, concatSources, collect, type RecordFn, type Stage } from './pipeline.js'
export { parseStream } from './interchange/parse.js'
export { stringify } from './interchange/stringify.js'
export { LineSplitter, lines } from './io/lines.js'
export { readLines, readHead, readTail } from './io/line-file.js'
export { openBytes } from './io/bytes.js'
export { AtomicFile, AtomicDir } from './io/atomic.js'
export { harnesses, getHarness } from './harness/registry.js'
export { VERSION } from './version.js'
export { openArchive, defaultArchivePath } from './archive/db.js'
export { syncArchive, type SyncSummary, type SyncSource } from './archive/sync.js'
export { search, type SearchHit, type SearchOptions } from './archive/search.js'
export { exportArchive, type ExportOptions, type ExportSummary } from './archive/export.js'

/** A store context for library use; `home` isolates every store under one directory. */
export function context(opts: ContextOptions = {}): StoreContext {
  return createContext({ ...opts, storeEnvVars: storeEnvVars() })
}

/** Opens a session (`harness:id`, a path, or `-`) as a Readable of records. */
export async function open(ref: string, opts: ReadOptions & Record<string, unknown> & { ctx?: StoreContext } = {}): Promise<Readable> {
  const { ctx = context(), ...readOpts } = opts
  const { harness, session } = await resolveRef(ctx, ref)
  return harness.read!(ctx, session, { native: true, ...readOpts })
}

/** A Writable that writes records as sessions of `harness`. */
export function sink(harness: HarnessId, opts: WriteOptions & Record<string, unknown> & { ctx?: StoreContext } = {}): Writable {
  const { ctx = context(), ...writeOpts } = opts
  const h = getHarness(harness)
  if (!h.sink) throw new UsageError(`${h.name} (${h.id}) cannot be written yet`)
  return h.sink(ctx, writeOpts)
}

/** Every session of every (or the given) harness. */
export async function* discover(opts: DiscoverOptions & { ctx?: StoreContext; harness?: HarnessId[] } = {}): AsyncGenerator<SessionInfo> {
  const { ctx = context(), harness, ...dopts } = opts
  for (const h of harnesses) {
    // A store that holds copies (the archive) is listed only when named.
    if (!h.discover || (harness ? !(harness as string[]).includes(h.id) : h.holdsCopies)) continue
    yield* h.discover(ctx, dopts)
  }
}
export { continueSession, resumeCommand, commandLine, type ContinueOptions, type ContinueResult, type ResumeCommand } from './harness/continue.js'
export { renderer, renderStages, shareRedaction, FORMATS as RENDER_FORMATS, VIEW_DEFAULTS, type RenderFormat, type RenderOptions, type ViewOptions } from './render/index.js'
