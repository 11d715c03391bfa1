/**
 * `ferry archive`: every session of every implemented store (or --harness)
 * into the archive database, incrementally. Also the shared helpers of the
 * archive commands: which harness is the archive (the registry's one that
 * holds copies; its id is the `--archive` flag), its file (`--db`), and
 * `ls --archive`.
 */
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { FerryError, UsageError } from '../../errors.js'
import { getHarness, harnesses, storeHarnesses } from '../../harness/registry.js'
import type { Harness, SessionInfo } from '../../harness/types.js'
import { lockError, openArchive } from '../../archive/db.js'
import { syncArchive, type SyncSource, type SyncSummary } from '../../archive/sync.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../io.js'
import { sessionTable as lsTable, tableWidth } from '../table.js'
import { progress } from '../progress.js'
import { archiveReaders } from '../archive-readers.js'
import { jobsFlag } from '../parallel.js'
import { matches, selectionFrom } from './ls.js'

/** The store that holds copies of the others (the archive). */
export function archiveHarness(): Harness {
  const h = harnesses.find((x) => x.holdsCopies)
  if (!h) throw new FerryError('no archive store is registered', { code: 'internal' })
  return h
}

/** The flag that points `ls`, `cat` and `convert` at the archive (`--archive`). */
export function archiveFlag(): string {
  return archiveHarness().id
}

/** The stores `ferry archive` copies: every readable, listable store that is not itself a copy. */
export function archivableHarnesses(names: unknown): Harness[] {
  const all = storeHarnesses().filter((h) => h.discover && h.read && !h.holdsCopies)
  if (!Array.isArray(names) || names.length === 0) return all
  const list = names.flatMap((n) => String(n).split(',')).map((n) => getHarness(n.trim()))
  for (const h of list) if (!all.includes(h)) throw new UsageError(`${h.name} (${h.id}) cannot be archived (archivable: ${all.map((x) => x.id).join(', ')})`)
  return list
}

export function sinceOption(argv: Args): number | undefined {
  return selectionFrom(argv).since
}

// Named after the store it fills (the registry's id), so no id is typed here.
export const command = archiveHarness().id
export const describe = 'Copy every session on this machine into the archive (incremental; --db FILE)'

export function builder(y: Argv): Argv {
  return y
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions whose working directory is DIR or below it' })
    .option('since', { type: 'string', describe: 'Only sessions updated since a date (ISO) or a span (7d, 12h)' })
    .option('wait', { type: 'number', default: 30, describe: 'Seconds to wait for another archive run holding the database' })
    .option('json', { type: 'boolean', default: false, describe: 'The summary as one JSON object on stdout' })
    .option('jobs', { type: 'number', describe: 'Threads reading sessions while this one writes the database (default: up to 2, one per spare CPU, when 32 or more sessions and 16 MiB or more are to be read; 1: read and write in one thread)' })
    .example('ferry archive', 'archive (or bring up to date) every session of every agent')
    .example('ferry archive --harness codex --db /srv/team/archive.db', 'only Codex, into a chosen file')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const sources = archivableHarnesses(argv.harness)
  const since = sinceOption(argv)
  const wait = Number(argv.wait)
  if (!Number.isFinite(wait) || wait < 0) throw new UsageError(`--wait: not a number of seconds: ${String(argv.wait)}`)
  const jobs = jobsFlag(argv)
  const path = archiveHarness().root(ctx)
  const db = openArchive(path, { waitMs: wait * 1000 })
  let bar: ReturnType<typeof progress> | null = null
  let sum: SyncSummary
  try {
    sum = await syncArchive(
      ctx,
      db,
      path,
      sources as unknown as SyncSource[],
      { ...(typeof argv.cwd === 'string' ? { cwd: resolve(argv.cwd) } : {}), ...(since === undefined ? {} : { since }) },
      {
        start: (total, totalBytes) => {
          bar = progress({ label: 'archiving', total, totalBytes, quiet: Boolean(argv.quiet) })
        },
        tick: (bytes, what) => bar?.tick(bytes, what),
      },
      wait * 1000,
      archiveReaders(jobs),
    ).catch((err: unknown) => {
      throw lockError(path, err, wait * 1000) ?? err
    })
  } finally {
    ;(bar as ReturnType<typeof progress> | null)?.stop()
    db.close()
  }
  const s = sum.sessions
  if (argv.json) process.stdout.write(JSON.stringify(sum) + '\n')
  else
    process.stderr.write(
      `ferry: archive ${path}: ${s.added} added, ${s.updated} updated, ${s.unchanged} unchanged, ${s.gone} gone from source, ${s.failed} failed; ${sum.records.added} records added${sum.records.changed ? `, ${sum.records.changed} changed` : ''}; ${mib(sum.bytes)} read\n`,
    )
  if (s.failed > 0) process.exitCode = 1
  finishDiagnostics(ctx.diagnostics)
}

function mib(n: number): string {
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`
}

/** `ferry ls --archive`: the archived sessions, with the same columns and filters, plus whether the source is gone. */
export async function lsArchive(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const a = archiveHarness()
  const names = Array.isArray(argv.harness) ? argv.harness.flatMap((n) => String(n).split(',')).map((n) => getHarness(n.trim()).id) : []
  const filter = selectionFrom(argv)
  const rows: SessionInfo[] = []
  for await (const s of a.discover!(ctx, { all: true })) {
    if (names.length && !names.includes(s.harness)) continue
    if (!matches(s, filter)) continue
    if (argv.json) {
      if (!process.stdout.write(JSON.stringify(s) + '\n')) await new Promise((r) => process.stdout.once('drain', r))
    } else rows.push(s)
  }
  if (!argv.json) {
    const gone = (s: SessionInfo) => Boolean((s as { gone_from_source?: string }).gone_from_source)
    process.stdout.write(rows.length ? lsTable(rows.map((s) => (gone(s) ? { ...s, title: `[gone from source] ${s.title ?? ''}` } : s))) : `no archived sessions (archive: ${a.root(ctx)})\n`)
  }
  finishDiagnostics(ctx.diagnostics)
}

/** `cat`/`convert --archive`: the REFs (harness:id, id, prefix) or every session of `--from` harnesses, as archived. */
export async function archivedRefs(ctx: ReturnType<typeof contextFrom>, argv: Args, refs: string[]): Promise<Array<{ harness: Harness; session: SessionInfo }>> {
  const a = archiveHarness()
  const from = Array.isArray(argv.from) ? argv.from.flatMap((n) => String(n).split(',')).map((n) => getHarness(n.trim()).id) : []
  if (from.length && refs.length) throw new UsageError('give REFs or --from, not both')
  if (!from.length && !refs.length) throw new UsageError(`name the archived sessions to read (harness:id), or --from HARNESS`)
  const out: Array<{ harness: Harness; session: SessionInfo }> = []
  if (from.length) {
    const filter = selectionFrom(argv)
    for await (const s of a.discover!(ctx, { all: true })) {
      if (!from.includes(s.harness) || s.parent || !matches(s, { ...filter, all: true })) continue
      out.push({ harness: a, session: s })
    }
    return out
  }
  for (const ref of refs) {
    const s = await a.resolve!(ctx, ref)
    if (!s) throw new FerryError(`no session "${ref}" in the archive at ${a.root(ctx)}`, { code: 'no-session' })
    out.push({ harness: a, session: s })
  }
  return out
}
