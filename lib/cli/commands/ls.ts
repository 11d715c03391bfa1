import { resolve, sep } from 'node:path'
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { getHarness, harnesses } from '../../harness/registry.js'
import type { SessionInfo } from '../../harness/types.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics, lsTable, parseSince } from '../io.js'
import { archiveFlag, lsArchive } from './archive.js'

export const command = 'ls'
export const describe = 'List the sessions of every harness (or of --harness)'

export function builder(y: Argv): Argv {
  return y
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions whose working directory is DIR or below it' })
    .option('since', { type: 'string', describe: 'Only sessions updated since a date (ISO) or a span (7d, 12h)' })
    .option('all', { type: 'boolean', default: false, describe: 'Include archived and sub-agent sessions' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per session, per line' })
    .option(archiveFlag(), { type: 'boolean', default: false, describe: 'List the archived sessions instead (--db FILE), with whether each is gone from its source' })
    .example('ferry ls', 'every session on this machine, newest first')
    .example('ferry ls --harness codex --since 7d --json', 'last week of Codex sessions as JSON lines')
    .example('ferry ls --home /tmp/h --cwd /home/dev/app', 'sessions of one project in another HOME')
}

export function matches(s: SessionInfo, argv: { cwd?: string; since?: number; all?: boolean }): boolean {
  if (argv.cwd !== undefined) {
    if (!s.cwd) return false
    if (s.cwd !== argv.cwd && !s.cwd.startsWith(argv.cwd.endsWith(sep) ? argv.cwd : argv.cwd + sep)) return false
  }
  if (argv.since !== undefined) {
    const t = Date.parse(s.updated_at ?? s.created_at ?? '')
    if (Number.isNaN(t) || t < argv.since) return false
  }
  if (!argv.all && (s.archived || s.parent)) return false
  return true
}

export function selectedHarnesses(names: unknown): typeof harnesses {
  if (!Array.isArray(names) || names.length === 0) return harnesses.filter((h) => h.discover && !h.holdsCopies)
  const list = names.flatMap((n) => String(n).split(',')).map((n) => getHarness(n.trim()))
  for (const h of list) if (!h.discover) throw new UsageError(`${h.name} (${h.id}) cannot list sessions yet`)
  return list
}

export async function handler(argv: Args): Promise<void> {
  if (argv[archiveFlag()]) return lsArchive(argv)
  const ctx = contextFrom(argv)
  const hs = selectedHarnesses(argv.harness)
  let since: number | undefined
  try {
    since = typeof argv.since === 'string' ? parseSince(argv.since) : undefined
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const filter = { ...(typeof argv.cwd === 'string' ? { cwd: resolve(argv.cwd) } : {}), ...(since === undefined ? {} : { since }), all: Boolean(argv.all) }
  const rows: SessionInfo[] = []
  for (const h of hs) {
    for await (const s of h.discover!(ctx, { all: Boolean(argv.all) })) {
      if (!matches(s, filter)) continue
      if (argv.json) {
        if (!process.stdout.write(JSON.stringify(s) + '\n')) await new Promise((r) => process.stdout.once('drain', r))
      } else rows.push(s)
    }
  }
  if (!argv.json) {
    rows.sort((a, b) => (b.updated_at ?? b.created_at ?? '').localeCompare(a.updated_at ?? a.created_at ?? ''))
    process.stdout.write(rows.length ? lsTable(rows) : `no sessions found (stores looked at: ${hs.map((h) => `${h.id} ${h.root(ctx)}`).join(', ')})\n`)
  }
  finishDiagnostics(ctx.diagnostics)
}
