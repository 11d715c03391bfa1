/**
 * The record source of `cat` and `convert`: the sessions named on the
 * command line (refs), or every discovered session of `--from` harnesses.
 */
import { existsSync } from 'node:fs'
import { Readable } from 'node:stream'
import type { Argv } from 'yargs'
import type { StoreContext } from '../context.js'
import { asDiagnostic } from '../diagnostics.js'
import { FerryError, fromSource, UsageError } from '../errors.js'
import { concatSources } from '../io/pipeline.js'
import { resolveRef, type ResolvedRef } from '../harness/refs.js'
import type { ReadOptions } from '../harness/types.js'
import { archiveFlag, archiveHarness } from './archive-options.js'
import { matches, namedEntries, noMatch, selectedHarnesses, selectionFrom, selectionWords } from './selection.js'
import { requireHome, type Args } from './options.js'
import { readableOf } from '../io/drain.js'
import { salvageRecords } from './salvage.js'
import { STDIN_SENTINEL } from './argv.js'

export function selectionOptions<T>(y: Argv<T>): Argv<T> {
  return y
    .option('from', { type: 'string', array: true, describe: 'Every session of these harnesses instead of REFs (repeatable)', group: 'Selecting:' })
    .option('cwd', { type: 'string', describe: 'With --from: only sessions of this directory or below (or matching a glob)', group: 'Selecting:' })
    .option('since', { type: 'string', describe: 'With --from: only sessions updated since (ISO date or 7d)', group: 'Selecting:' })
    .option('all', { type: 'boolean', default: false, describe: 'With --from: include archived sessions', group: 'Selecting:' })
    .option(archiveFlag(), { type: 'boolean', default: false, describe: 'Read the REFs (or --from harnesses) from the archive (--db FILE), also when their source is gone', group: 'Selecting:' }) as Argv<T>
}

export function refsOf(argv: Args): string[] {
  const refs = (Array.isArray(argv.ref) ? argv.ref : argv.ref === undefined ? [] : [argv.ref]).map((r) => (String(r) === STDIN_SENTINEL ? '-' : String(r)))
  return refs
}

/** Read options, or a function giving them per source harness. */
export type ReadOptsFor = (ReadOptions & Record<string, unknown>) | ((harness: string) => ReadOptions & Record<string, unknown>)

export async function openSources(ctx: StoreContext, argv: Args, readOpts: ReadOptsFor): Promise<{ source: Readable; count: number; bytes: number }> {
  return sourceOf(ctx, await resolveSources(ctx, argv), readOpts)
}

/** The sessions `cat`/`convert` read: the REFs, every `--from` session that matches, or stdin. */
export async function resolveSources(ctx: StoreContext, argv: Args): Promise<ResolvedRef[]> {
  let refs = refsOf(argv)
  const from = argv.from
  // Only a lookup in the stores needs --home to exist: stdin and session files do not (a writer may create a fresh HOME).
  if ((Array.isArray(from) && from.length > 0) || !refs.every((r) => r === '-' || existsSync(r))) requireHome(argv)
  const resolved: ResolvedRef[] = []
  if (argv[archiveFlag()]) resolved.push(...(await archivedRefs(ctx, argv, refs)))
  else if (Array.isArray(from) && from.length > 0) {
    if (refs.length) throw new UsageError('give REFs or --from, not both')
    const filter = selectionFrom(argv)
    const hs = await selectedHarnesses(from)
    for (const h of hs) {
      if (!h.read) throw new UsageError(`${h.name} (${h.id}) cannot be read yet`)
      // Sub-agents come with their parent's read, so they are not listed on their own.
      for await (const s of h.discover!(ctx, { all: Boolean(argv.all) })) {
        if (s.parent || !matches(s, filter)) continue
        resolved.push({ harness: h, session: s })
      }
    }
    // Silence and exit 0 would read as success (and `--out FILE` would be left empty): say so, exit 1, write nothing.
    if (resolved.length === 0) throw noMatch(`no sessions matched ${selectionWords(argv, 'from')} (stores looked at: ${hs.map((h) => `${h.id} ${h.root(ctx)}`).join(', ')})`)
  } else {
    if (refs.length === 0) {
      if (process.stdin.isTTY) throw new UsageError('no session given: name one (harness:id, a path) or pipe a stream into - ')
      refs = ['-']
    }
    for (const ref of refs) resolved.push(await resolveRef(ctx, ref))
  }
  return resolved
}

/** `cat`/`convert --archive`: the REFs (harness:id, id, prefix) or every session of `--from` harnesses, as archived. */
async function archivedRefs(ctx: StoreContext, argv: Args, refs: string[]): Promise<ResolvedRef[]> {
  const a = await archiveHarness().load()
  const from = namedEntries(argv.from).map((h) => h.id)
  if (from.length && refs.length) throw new UsageError('give REFs or --from, not both')
  if (!from.length && !refs.length) throw new UsageError(`name the archived sessions to read (harness:id), or --from HARNESS`)
  const out: ResolvedRef[] = []
  if (from.length) {
    const filter = selectionFrom(argv)
    for await (const s of a.discover!(ctx, { all: true })) {
      if (!from.includes(s.harness) || s.parent || !matches(s, { ...filter, all: true })) continue
      out.push({ harness: a, session: s })
    }
    if (out.length === 0) throw noMatch(`no archived sessions matched ${selectionWords(argv, 'from')} (archive: ${a.root(ctx)})`)
    return out
  }
  for (const ref of refs) {
    const s = await a.resolve!(ctx, ref)
    if (!s) throw new FerryError(`no session "${ref}" in the archive at ${a.root(ctx)}`, { code: 'no-session' })
    out.push({ harness: a, session: s })
  }
  return out
}

/** One record stream over resolved sessions, in order. */
export function sourceOf(ctx: StoreContext, resolved: ResolvedRef[], readOpts: ReadOptsFor): { source: Readable; count: number; bytes: number } {
  const optsFor = typeof readOpts === 'function' ? readOpts : () => readOpts
  const source = concatSources(
    resolved.map((r, i) => () => {
      const read = readSession(ctx, r, optsFor(r.session.harness || r.harness.id))
      if (i === resolved.length - 1) return read
      // A session that fails midway is reported now and closed incomplete, and the next one is still
      // read: one bad file must not cost the sessions after it. The last one's failure is the run's own.
      return salvageRecords(read, (err) => ctx.diagnostics.report(asDiagnostic(err)))
    }),
  )
  return { source, count: resolved.length, bytes: bytesOf(resolved) }
}

export function bytesOf(resolved: ResolvedRef[]): number {
  return resolved.reduce((n, r) => n + (r.session.bytes ?? 0), 0)
}

/** One session's records; the reader's errors name its harness. */
export function readSession(ctx: StoreContext, r: ResolvedRef, opts: ReadOptions & Record<string, unknown>): Readable {
  return namedErrors(r.harness.id, () => r.harness.read!(ctx, r.session, opts))
}

/** A reader's errors name its harness (`codex:unreadable: …`), also a bare errno thrown before its first record. */
function namedErrors(harness: string, make: () => Readable | Promise<Readable>): Readable {
  async function* run(): AsyncGenerator<unknown> {
    try {
      yield* await make()
    } catch (err) {
      const errno = (err as NodeJS.ErrnoException)?.code
      throw fromSource(err, harness, typeof errno === 'string' && /^E[A-Z]+$/.test(errno) ? 'unreadable' : 'internal')
    }
  }
  return readableOf(run())
}
