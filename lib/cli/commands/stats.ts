/** `ferry stats`: tokens and cost of every agent's sessions (or of the archive's), grouped by day, week, month, session, project, model or agent. */
import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { UsageCounter, GROUP_BY, type GroupBy } from '../../stats/count.js'
import { countSessions, nativeUsageOf, type StatsSource } from '../../stats/collect.js'
import { Prices, loadPriceFile } from '../../stats/prices.js'
import { toCsv, toJson, toTable } from '../../stats/report.js'
import { sessionTime } from '../../query/select.js'
import { archiveFlag, archiveHarness } from '../archive-options.js'
import { contextFrom, requireHome, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { matches, namedEntries, selectedHarnesses, selectionFrom, type SessionSelection } from '../selection.js'
import { tableWidth } from '../table.js'
import type { SessionInfo } from '../../harness/types.js'

export const command = 'stats'
export const describe = 'Tokens and cost of the sessions of every harness (or --harness, or the archive), by day, week, month, session, project, model or agent'

export function builder(y: Argv): Argv {
  return y
    .option('by', { type: 'string', choices: [...GROUP_BY], default: 'day', describe: 'Group by this: day, week (from Monday), month (local time), session, project (working directory), model, agent' })
    .option('harness', { type: 'string', array: true, describe: 'Only these harnesses (repeatable)' })
    .option('cwd', { type: 'string', describe: 'Only sessions whose working directory is DIR or below it (or matches a glob: /srv/**/app)' })
    .option('since', { type: 'string', describe: 'Only usage since a date (ISO, yesterday, 3 days ago) or a span (7d, 12h)' })
    .option('until', { type: 'string', describe: 'Only usage until a date or span (as --since)' })
    .option(archiveFlag(), { type: 'boolean', default: false, describe: 'Count the archived sessions instead (--db FILE), those gone from their agent too' })
    .option('prices', { type: 'string', requiresArg: true, describe: 'A JSON price table ({"models": {"<model>": {"input", "output", "cache_read", "cache_write"}}}, dollars per million tokens) over the one ferry ships' })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON document: {"rows": [...], "totals": {...}}' })
    .option('csv', { type: 'boolean', default: false, describe: 'CSV: a header, one line per group, a last line of totals' })
    .example('ferry stats', 'tokens and cost per day, every agent on this machine')
    .example('ferry stats --by model --since 7d', 'the last week, per model')
    .example('ferry stats --by agent --json', 'per agent, as JSON')
    .example('ferry stats --archive --by month', 'per month from the archive, sessions the agents deleted included')
}

export async function handler(argv: Args): Promise<void> {
  if (argv.json && argv.csv) throw new UsageError('--json and --csv: give one of them')
  if (!argv[archiveFlag()]) requireHome(argv)
  const ctx = contextFrom(argv)
  const sel = selectionFrom(argv)
  const prices = new Prices(undefined, typeof argv.prices === 'string' ? loadPriceFile(argv.prices) : undefined)
  const counter = new UsageCounter({ by: argv.by as GroupBy, prices, nativeUsage: nativeUsageOf, ...(sel.since !== undefined ? { since: sel.since } : {}), ...(sel.until !== undefined ? { until: sel.until } : {}) })
  const fromArchive = Boolean(argv[archiveFlag()])
  const read = await countSessions(ctx, fromArchive ? archived(ctx, argv.harness, sel) : live(ctx, argv.harness, sel), counter)
  const res = counter.result()
  if (argv.json) process.stdout.write(toJson(res))
  else if (argv.csv) process.stdout.write(toCsv(res))
  else if (res.rows.length) process.stdout.write(toTable(res, tableWidth()))
  else process.stdout.write(`no token usage recorded in the ${read} session(s) selected${fromArchive ? ` (archive: ${archiveHarness().root(ctx)})` : ''}\n`)
  // Never silently free: every model without a price is named on stderr too, whatever the output.
  for (const u of res.unpriced) ctx.diagnostics.warn('unpriced-model', `${u.model}: no price (prices of ${res.prices_date}); its ${u.tokens} tokens in ${u.messages} response(s) are counted, their cost is not (give it with --prices FILE)`, undefined, 'stats')
  finishDiagnostics(ctx.diagnostics)
}

/**
 * Every session may have spent tokens: archived and sub-agent ones are counted too. A session
 * last updated before --since, or started after --until, has no usage in the window and is not read.
 */
function inWindow(s: SessionInfo, sel: SessionSelection): boolean {
  const { until: _until, ...rest } = sel
  if (!matches(s, { ...rest, all: true })) return false
  const start = sessionTime(s.created_at, s.updated_at)
  return !(sel.until !== undefined && start > sel.until)
}

async function* live(ctx: StoreContext, names: unknown, sel: SessionSelection): AsyncIterable<StatsSource> {
  for (const h of await selectedHarnesses(names)) {
    if (!h.read) continue
    for await (const s of h.discover!(ctx, { all: true })) if (inWindow(s, sel)) yield { reader: h, session: s }
  }
}

async function* archived(ctx: StoreContext, names: unknown, sel: SessionSelection): AsyncIterable<StatsSource> {
  const a = await archiveHarness().load()
  const only = namedEntries(names).map((h) => h.id)
  for await (const s of a.discover!(ctx, { all: true })) {
    if (only.length && !only.includes(s.harness)) continue
    if (inWindow(s, sel)) yield { reader: a, session: s }
  }
}
