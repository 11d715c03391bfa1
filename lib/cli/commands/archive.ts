/**
 * `ferry archive`: every session of every implemented store (or --harness)
 * into the archive database, incrementally.
 */
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { lockError, openArchive } from '../../archive/store/db.js'
import { syncArchive, type SyncSource, type SyncSummary } from '../../archive/sync.js'
import { archiveReaders } from '../../archive/readers.js'
import { archivableHarnesses, archiveHarness } from '../archive-options.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { progress } from '../progress.js'
import { jobsFlag } from '../parallel.js'
import { sinceOption } from '../selection.js'

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
