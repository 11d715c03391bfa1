/**
 * What the CLI adds to each transform: flags that only concern printing or a
 * command mode (declared with the same schema as the library options, so they
 * get help and docs rows too), examples, printing the reports the library
 * returns, exit codes, and whole-command modes (`redact --text`,
 * `filter --count`).
 */
import { once } from 'node:events'
import { Writable, type Transform } from 'node:stream'
import { pipeline } from '../io/pipeline.js'
import type { StoreContext } from '../context.js'
import { Redactor, TextRedactor } from '../redact/engine.js'
import type { FilterCount, RedactFinding, RedactReport } from '../../transforms/index.js'
import { defineOptions, type OptionSchema } from '../../transforms/spec.js'
import type { Args } from './options.js'

/** Option values by schema key (library and CLI options together). */
export type CliValues = Record<string, unknown>

export interface TransformAdapter {
  /** CLI flags of both forms (`ferry redact …` and `--redact '…'`). */
  options: OptionSchema
  /** Flags of the filter command only. */
  commandOptions?: OptionSchema
  examples?: Array<[string, string]>
  /** The library options, adjusted from the CLI values. */
  adjust?(opts: CliValues, cli: CliValues): CliValues
  /** Prints what the created stage reports, sets the exit code. */
  attach?(stage: Transform, cli: CliValues): void
  /** The stage reports on the whole run (a total, an exit code): every session must pass through one stage, in one process. */
  runWide?(cli: CliValues): boolean
  /** Runs the whole filter command when it returns true; `stage` creates the transform from argv. */
  command?(cli: CliValues, argv: Args, ctx: StoreContext, stage: () => Transform): Promise<boolean>
}

function kinds(k: Record<string, number>): string {
  return Object.entries(k)
    .map(([kind, n]) => `${kind}×${n}`)
    .join(', ')
}

function printReport(report: RedactReport, json: boolean): void {
  if (json) {
    process.stderr.write(JSON.stringify(report) + '\n')
    return
  }
  for (const f of report.records) {
    process.stderr.write(`redact: ${f.id}: ${kinds(f.kinds)}\n`)
    for (const x of f.fields ?? []) process.stderr.write(`redact:   ${x.path} ${x.label}\n`)
  }
  process.stderr.write(Object.keys(report.redacted).length ? `redact: ${kinds(report.redacted)}\n` : 'redact: nothing found\n')
}

/** `--check`: exit 1 when anything would be redacted. */
function checkExit(cli: CliValues, found: Record<string, number>): void {
  if (cli.check === true && Object.keys(found).length > 0) process.exitCode = 1
}

const redactAdapter: TransformAdapter = {
  options: defineOptions({
    reportJson: { type: 'boolean', default: false, describe: 'Print the report as one JSON line on stderr (implies `report`)' },
  }),
  commandOptions: defineOptions({
    text: { type: 'boolean', default: false, describe: 'Redact plain text from stdin instead of a record stream; every byte outside a secret is unchanged' },
    json: { type: 'boolean', default: false, describe: 'With `--report` or `--check`: the report as one JSON line on stderr (as `--report-json`)' },
  }),
  examples: [
    ['ferry cat codex:019a3c1e | ferry redact | ferry write --to claude-code', 'share a session without its secrets'],
    ['ferry redact --text < error.log', 'redact any text'],
    ['ferry cat claude-code:0b9e6c1a | ferry redact --check', 'pre-share hook: exit 1 when something would be redacted'],
  ],
  adjust: (opts, cli) => (cli.reportJson === true || cli.json === true ? { ...opts, report: true } : opts),
  runWide: (cli) => cli.report === true || cli.reportJson === true || cli.check === true,
  attach(stage, cli) {
    if (cli.report !== true && cli.reportJson !== true && cli.check !== true) return
    stage.once('report', (report: RedactReport) => {
      printReport(report, cli.reportJson === true || cli.json === true)
      checkExit(cli, report.redacted)
    })
  },
  async command(cli) {
    if (cli.text !== true) return false
    const redactor = new Redactor({
      paths: cli.paths === true,
      emails: cli.emails === true,
      ...(typeof cli.rulesFile === 'string' ? { rulesFile: cli.rulesFile } : {}),
      ...(Array.isArray(cli.allow) ? { allow: cli.allow as string[] } : {}),
    })
    // Streamed: the redactor cuts the same line-aligned chunks as over the whole text, so memory stays flat and no secret is cut in two.
    // latin1 maps every byte to one character and back: bytes outside secrets stay exactly as they were, even invalid UTF-8 cut between reads.
    const stream = new TextRedactor(redactor)
    const write = async (text: string): Promise<void> => {
      if (text === '' || cli.check === true) return
      if (!process.stdout.write(Buffer.from(text, 'latin1'))) await once(process.stdout, 'drain')
    }
    for await (const c of process.stdin) await write(stream.push((c as Buffer).toString('latin1')))
    await write(stream.end())
    const found = redactor.report()
    if (cli.report === true || cli.reportJson === true || cli.check === true) printReport({ redacted: found, records: [] as RedactFinding[] }, cli.reportJson === true || cli.json === true)
    checkExit(cli, found)
    return true
  },
}

const filterAdapter: TransformAdapter = {
  options: {},
  commandOptions: defineOptions({
    count: { type: 'boolean', default: false, describe: 'Print what would pass (`sessions N`, `messages N`, `records N`) instead of the stream' },
  }),
  examples: [
    ['ferry cat codex:019a3c1e | ferry filter --no-context --blocks text,tool', 'drop injected context, thinking and images'],
    ['ferry cat --from codex | ferry filter --since 7d --cwd ~/app --count', 'how many sessions of one project last week'],
  ],
  async command(cli, argv, ctx, makeStage) {
    if (cli.count !== true) return false
    const stage = makeStage()
    let counts: FilterCount = { sessions: 0, messages: 0, records: 0 }
    stage.once('count', (c: FilterCount) => (counts = c))
    // The readers load with the first input read, not with the parser (docs/performance.md, "Harness facts apart from harness code").
    const { openSources } = await import('./sources.js')
    const { source } = await openSources(ctx, argv, { native: false })
    await pipeline(source, stage, new Writable({ objectMode: true, write: (_r, _e, cb) => cb() }))
    process.stdout.write(`sessions ${counts.sessions}\nmessages ${counts.messages}\nrecords ${counts.records}\n`)
    return true
  },
}

const truncateAdapter: TransformAdapter = {
  options: {},
  examples: [['ferry cat codex:019a3c1e | ferry truncate --tool-output 4000 --images strip', 'shorten outputs, drop image bytes']],
}

const normalizeAdapter: TransformAdapter = {
  options: {},
  examples: [
    ['ferry cat grok:01a1f84a | ferry normalize-tools', 'every tool call under the canonical names and keys'],
    ['ferry cat codex:019a3c1e | ferry normalize-tools --style grok', 'in another agent\'s tool vocabulary'],
  ],
}

export const adapters: Record<string, TransformAdapter> = {
  filter: filterAdapter,
  'normalize-tools': normalizeAdapter,
  redact: redactAdapter,
  truncate: truncateAdapter,
}
