/**
 * `ferry archive`: every session of every implemented store (or --harness)
 * into the archive database, incrementally; one session (`--session`, what an
 * agent's hook runs); or continuously (`--watch`, as a user service with
 * `--install-service`).
 */
import { resolve } from 'node:path'
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import type { SyncFilter, SyncSummary } from '../../archive/sync.js'
import { archiveReaders } from '../../archive/readers.js'
import { resolveRef } from '../../harness/refs.js'
import { archivePass, passLine } from '../../app/archive-pass.js'
import { watchArchive } from '../../app/watch.js'
import { installService, uninstallService, type ServiceResult } from '../../app/service.js'
import { archivableHarnesses, archiveHarness } from '../archive-options.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { progress } from '../progress.js'
import { jobsFlag } from '../parallel.js'
import { sinceOption } from '../selection.js'

// Named after the store it fills (the registry's id), so no id is typed here.
export const command = archiveHarness().id
export const describe = 'Copy every session on this machine into the archive (incremental; --db FILE; --watch to keep it up to date)'

export function builder(y: Argv): Argv {
  return y
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions whose working directory is DIR or below it' })
    .option('since', { type: 'string', describe: 'Only sessions updated since a date (ISO) or a span (7d, 12h)' })
    .option('session', { type: 'string', array: true, describe: 'Only this session (a path, harness:id or id; repeatable), found without listing the stores: what the agents\' hooks run' })
    .option('watch', { type: 'boolean', describe: 'Stay running: archive what changes in any store as it changes (Ctrl-C or SIGTERM stops it cleanly)' })
    .option('install-service', { type: 'boolean', describe: 'Install a user service (systemd on Linux, launchd on macOS; else the crontab line) that runs archive --watch from login on' })
    .option('uninstall-service', { type: 'boolean', describe: 'Stop and remove that service' })
    .option('wait', { type: 'number', default: 30, describe: 'Seconds to wait for another archive run holding the database' })
    .option('json', { type: 'boolean', default: false, describe: 'The summary as one JSON object on stdout (--watch: one per pass)' })
    .option('jobs', { type: 'number', describe: 'Threads reading sessions while this one writes the database (default: up to 2, one per spare CPU, when 32 or more sessions and 16 MiB or more are to be read; 1: read and write in one thread)' })
    .conflicts('watch', ['session', 'install-service', 'uninstall-service'])
    .conflicts('install-service', ['session', 'uninstall-service'])
    .example('ferry archive', 'archive (or bring up to date) every session of every agent')
    .example('ferry archive --harness codex --db /srv/team/archive.db', 'only Codex, into a chosen file')
    .example('ferry archive --install-service', 'keep the archive up to date from now on (or: ferry hooks install)')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const path = archiveHarness().root(ctx)
  const opts = { ...(typeof argv.db === 'string' ? { db: resolve(argv.db) } : {}), ...(typeof argv.home === 'string' ? { home: resolve(argv.home) } : {}) }
  if (argv.installService) return serviceReport(await installService(ctx, opts), 'installed')
  if (argv.uninstallService) return serviceReport(uninstallService(ctx, {}), 'removed')
  const sources = await archivableHarnesses(argv.harness)
  const since = sinceOption(argv)
  const wait = Number(argv.wait)
  if (!Number.isFinite(wait) || wait < 0) throw new UsageError(`--wait: not a number of seconds: ${String(argv.wait)}`)
  const jobs = jobsFlag(argv)
  if (argv.watch) return watch(ctx, argv, path, sources, wait)
  const filter: SyncFilter = { ...(typeof argv.cwd === 'string' ? { cwd: resolve(argv.cwd) } : {}), ...(since === undefined ? {} : { since }) }
  if (Array.isArray(argv.session) && argv.session.length) filter.sessions = await sessionsOf(ctx, argv.session.map(String), sources)
  let bar: ReturnType<typeof progress> | null = null
  let sum: SyncSummary
  try {
    sum = await archivePass(ctx, {
      path,
      sources,
      filter,
      waitMs: wait * 1000,
      readers: archiveReaders(jobs),
      hooks: {
        start: (total, totalBytes) => {
          bar = progress({ label: 'archiving', total, totalBytes, quiet: Boolean(argv.quiet) })
        },
        tick: (bytes, what) => bar?.tick(bytes, what),
      },
    })
  } finally {
    ;(bar as ReturnType<typeof progress> | null)?.stop()
  }
  if (argv.json) process.stdout.write(JSON.stringify(sum) + '\n')
  else if (!argv.quiet || sum.sessions.failed) process.stderr.write(passLine(path, sum) + '\n')
  if (sum.sessions.failed > 0) process.exitCode = 1
  finishDiagnostics(ctx.diagnostics)
}

/** `--session` refs as sessions of archivable stores; a sub-agent's ref archives its parent, which carries it. */
async function sessionsOf(ctx: ReturnType<typeof contextFrom>, refs: string[], sources: Awaited<ReturnType<typeof archivableHarnesses>>): Promise<NonNullable<SyncFilter['sessions']>> {
  const out: NonNullable<SyncFilter['sessions']> = []
  for (const ref of refs) {
    let r = await resolveRef(ctx, ref)
    if (!sources.includes(r.harness)) throw new UsageError(`--session ${ref}: a ${r.harness.name} session cannot be archived (archivable: ${sources.map((h) => h.id).join(', ')})`)
    if (r.session.parent) r = await resolveRef(ctx, r.session.parent)
    out.push({ src: r.harness as never, session: r.session as never })
  }
  return out
}

async function watch(ctx: ReturnType<typeof contextFrom>, argv: Args, path: string, sources: Awaited<ReturnType<typeof archivableHarnesses>>, wait: number): Promise<void> {
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  if (!argv.quiet) process.stderr.write(`ferry: archive --watch: keeping ${path} up to date with ${sources.map((h) => h.id).join(', ')} (Ctrl-C stops)\n`)
  try {
    await watchArchive(ctx, {
      path,
      sources,
      waitMs: wait * 1000,
      signal: stop.signal,
      onPass: (sum, what) => {
        if (argv.json) process.stdout.write(JSON.stringify({ ...sum, what }) + '\n')
        else if (!argv.quiet && (sum.sessions.added + sum.sessions.updated + sum.sessions.gone + sum.sessions.failed > 0 || what === 'every store')) process.stderr.write(`${passLine(path, sum)} (${what})\n`)
      },
      onError: (m) => process.stderr.write(`ferry: archive --watch: ${m}\n`),
    })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  if (!argv.quiet) process.stderr.write('ferry: archive --watch: stopped\n')
}

function serviceReport(r: ServiceResult, verb: string): void {
  if (r.file) process.stderr.write(`ferry: ${r.kind} service ${verb}: ${r.file}\n`)
  for (const x of r.ran) process.stderr.write(`ferry: ran ${x.command}: ${x.ok ? 'ok' : `failed${x.output ? ` (${x.output.split('\n')[0]})` : ''}`}\n`)
  for (const t of r.todo) process.stdout.write(`${t}\n`)
  if (r.todo.length && r.file) process.stderr.write('ferry: the service manager could not be asked here; run the command(s) above to start it\n')
}
