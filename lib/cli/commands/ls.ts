/** `ferry ls`: the sessions of every harness (or --harness) as a table or JSON lines; with `--archive`, the archived ones. */
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import type { Harness, SessionInfo } from '../../harness/types.js'
import type { StoreContext } from '../../context.js'
import { archiveFlag, archiveHarness } from '../archive-options.js'
import { contextFrom, requireHome, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { reportFailure } from '../failure.js'
import { matches, namedEntries, noMatch, selectedHarnesses, selectionFrom, selectionWords } from '../selection.js'
import { SORT_KEYS, sessionTable, sortSessions, tableWidth, type SortKey } from '../table.js'

export const command = 'ls'
export const describe = 'List the sessions of every harness (or of --harness)'

export function builder(y: Argv): Argv {
  return y
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions whose working directory is DIR or below it (or matches a glob: /srv/**/app)' })
    .option('since', { type: 'string', describe: 'Only sessions updated since a date (ISO, yesterday, 3 days ago) or a span (7d, 12h)' })
    .option('until', { type: 'string', describe: 'Only sessions updated until a date or span (as --since)' })
    .option('sort', { type: 'string', choices: [...SORT_KEYS], default: 'updated', describe: 'Order: updated or created (newest first), harness, title, cwd (A-Z); the same for --json. none: as discovered, printed as found (with --json, `| head -1` stops the listing early)' })
    .option('reverse', { type: 'boolean', default: false, describe: 'Reverse the order (oldest first)' })
    .option('limit', { type: 'number', alias: 'n', requiresArg: true, describe: 'At most N sessions (after sorting)' })
    .option('all', { type: 'boolean', default: false, describe: 'Include archived and sub-agent sessions' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per session, per line' })
    .option(archiveFlag(), { type: 'boolean', default: false, describe: 'List the archived sessions instead (--db FILE), with whether each is gone from its source' })
    .example('ferry ls', 'every session on this machine, newest first')
    .example('ferry ls --harness codex --since 7d --json', 'last week of Codex sessions as JSON lines')
    .example('ferry ls -n 5 --since yesterday', 'the five newest since yesterday 00:00')
    .example('ferry ls --home /tmp/h --cwd /home/dev/app', 'sessions of one project in another HOME')
}

export async function handler(argv: Args): Promise<void> {
  if (argv[archiveFlag()]) return lsArchive(argv)
  requireHome(argv)
  const ctx = contextFrom(argv)
  const hs = await selectedHarnesses(argv.harness)
  const filter = selectionFrom(argv)
  const limit = argv.limit
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) throw new UsageError(`--limit: not a whole number: ${String(limit)}`)
  // Unsorted JSON streams: each session is printed as discovery finds it, so a reader that stops early stops the listing.
  if (argv.json && argv.sort === 'none' && !argv.reverse) {
    let n = 0
    let matched = false
    outer: for (const h of hs) {
      for await (const s of h.discover!(ctx, { all: Boolean(argv.all) })) {
        if (!matches(s, filter)) continue
        matched = true
        if (typeof limit === 'number' && n >= limit) break outer
        n++
        if (!process.stdout.write(JSON.stringify(s) + '\n')) await new Promise((r) => process.stdout.once('drain', r))
      }
    }
    finishDiagnostics(ctx.diagnostics)
    if (!matched) throw noneFound(argv, ctx, hs)
    return
  }
  const rows: SessionInfo[] = []
  for (const h of hs) {
    for await (const s of h.discover!(ctx, { all: Boolean(argv.all) })) if (matches(s, filter)) rows.push(s)
  }
  // JSON comes in the table's order too (metadata only, so holding it is cheap).
  let sorted = sortSessions(rows, argv.sort as SortKey, Boolean(argv.reverse))
  if (typeof limit === 'number') sorted = sorted.slice(0, limit)
  if (argv.json) await writeJsonLines(sorted)
  else if (sorted.length) process.stdout.write(sessionTable(sorted, tableWidth()))
  // `-n 0` of sessions that exist prints nothing, as `head -n 0`; none at all is exit 1 on stderr, as every selecting command.
  const none = rows.length === 0 ? noneFound(argv, ctx, hs) : undefined
  const d = ctx.diagnostics
  if (none && d.errors + d.warnings > 0) {
    // After reports, the line saying why comes before the summary, which stays last.
    reportFailure(none, d.json)
    process.exitCode = 1
    finishDiagnostics(d)
    return
  }
  finishDiagnostics(d)
  if (none) throw none
}

const BATCH = 64 * 1024

/**
 * One JSON line per session, written some 64 KiB at a time (a write per line is a system call each when stdout
 * is a file or a pipe). Each line is encoded straight into the batch's buffer: concatenating the lines into one
 * string and encoding that cost about as much as the JSON itself (docs/performance.md, "`ls` third round").
 */
async function writeJsonLines(rows: readonly SessionInfo[]): Promise<void> {
  let buf = Buffer.allocUnsafe(BATCH)
  let used = 0
  const flush = async (data: Buffer | string) => {
    if (!process.stdout.write(data)) await new Promise((r) => process.stdout.once('drain', r))
  }
  for (const row of rows) {
    const line = JSON.stringify(row) + '\n'
    // A UTF-16 unit is at most 3 bytes of UTF-8: this is room enough without measuring the line.
    if (used + line.length * 3 > BATCH && used > 0) {
      await flush(buf.subarray(0, used))
      // A new buffer each time: the stream may still hold the last one.
      buf = Buffer.allocUnsafe(BATCH)
      used = 0
    }
    if (line.length * 3 > BATCH) await flush(line)
    else used += buf.write(line, used)
  }
  if (used > 0) await flush(buf.subarray(0, used))
}

/** The stderr line (and exit 1) of an empty listing: what was asked, where ferry looked, and why when a store failed. */
function noneFound(argv: Args, ctx: StoreContext, hs: readonly Harness[]): Error {
  const where = `stores looked at: ${hs.map((h) => `${h.id} ${h.root(ctx)}`).join(', ')}`
  // After a store could not be read, "none found" would read as "there are none": say why the list is empty.
  const d = ctx.diagnostics
  const why = d.errors ? `${d.errors} error(s) reported above` : d.warnings ? `${d.warnings} warning(s) reported above` : ''
  const asked = selectionWords(argv, 'harness')
  return noMatch(why ? `no sessions listed: ${why} (${where})` : asked ? `no sessions matched ${asked} (${where})` : `no sessions found (${where})`)
}

/** `ferry ls --archive`: the archived sessions, with the same columns and filters, plus whether the source is gone. */
async function lsArchive(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  const a = await archiveHarness().load()
  const names = namedEntries(argv.harness).map((h) => h.id)
  const filter = selectionFrom(argv)
  const limit = argv.limit
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) throw new UsageError(`--limit: not a whole number: ${String(limit)}`)
  // The archive lists newest first: with that order, discovery stops once the last row's time is past (ties kept, then sorted as usual).
  const newestFirst = argv.sort === 'updated' && !argv.reverse && typeof limit === 'number'
  const time = (s: SessionInfo) => s.updated_at ?? s.created_at ?? ''
  let rows: SessionInfo[] = []
  let found = false
  for await (const s of a.discover!(ctx, { all: true })) {
    if (names.length && !names.includes(s.harness)) continue
    if (!matches(s, filter)) continue
    if (newestFirst && rows.length > 0 && rows.length >= limit && time(s) !== time(rows[rows.length - 1]!)) break
    found = true
    rows.push(s)
  }
  rows = sortSessions(rows, argv.sort as SortKey, Boolean(argv.reverse))
  if (typeof limit === 'number') rows = rows.slice(0, limit)
  if (argv.json) await writeJsonLines(rows)
  else if (rows.length) {
    const gone = (s: SessionInfo) => Boolean((s as { gone_from_source?: string }).gone_from_source)
    process.stdout.write(sessionTable(rows.map((s) => (gone(s) ? { ...s, title: `[gone from source] ${s.title ?? ''}` } : s)), tableWidth()))
  }
  finishDiagnostics(ctx.diagnostics)
  if (!found) {
    const asked = selectionWords(argv, 'harness')
    throw noMatch(asked ? `no archived sessions matched ${asked} (archive: ${a.root(ctx)})` : `no archived sessions (archive: ${a.root(ctx)})`)
  }
}
