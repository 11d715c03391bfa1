import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { getHarness, writable } from '../../harness/registry.js'
import { contextFrom, writeFlagOptions, writeOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../io.js'
import { openSources } from '../sources.js'
import { runIntoSink } from '../sink-run.js'

export const command = 'write [ref..]'
export const describe = 'Write the interchange stream from stdin (or files) as native sessions of --to'

export function toOptions(y: Argv): Argv {
  return writeFlagOptions(y)
    .option('to', {
      type: 'string',
      demandOption: true,
      requiresArg: true,
      describe: `Target harness: ${writable().map((h) => h.id).join(', ')}`,
      coerce: (v: unknown) => {
        if (Array.isArray(v)) throw new UsageError(`--to takes one harness, got ${v.length} (${v.join(', ')}); run once per target`)
        return v
      },
    })
    .option('out', { type: 'string', requiresArg: true, describe: 'Write here instead of the store: a path ending in / or an existing directory is a directory, anything else a file; - is stdout (interchange stream only)' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Read and transform everything and report each session that would be written; write nothing' })
    .option('force', { type: 'boolean', default: false, describe: 'Replace sessions that already exist' })
    .option('json', { type: 'boolean', default: false, describe: 'Report each written session as a JSON object (harness, id, path)' })
}

/** The sink options of write and convert from argv. */
export function writeOpts(argv: Args): Record<string, unknown> {
  return { ...(typeof argv.out === 'string' ? { out: argv.out } : {}), force: Boolean(argv.force), ...writeOptsFor(argv, String(argv.to)) }
}

export function builder(y: Argv): Argv {
  return toOptions(y)
    .positional('ref', { type: 'string', array: true, describe: 'Interchange files to read (default: stdin)' })
    .example('ferry cat codex:019a3c1e | ferry write --to claude-code', 'continue a Codex session in Claude Code')
    .example('ferry write --to codex --out /tmp/store < stream.jsonl', 'write into another directory')
    .example('ferry write --to claude-code --home /tmp/h --json < s.jsonl', 'report as JSON lines')
    .example('ferry write --to codex --dry-run < s.jsonl', 'what would be written, writing nothing')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  getHarness(String(argv.to))
  const { source, count, bytes } = await openSources(ctx, argv, {})
  await runIntoSink(ctx, source, [], String(argv.to), writeOpts(argv), { json: Boolean(argv.json), dryRun: Boolean(argv['dry-run']), total: { sessions: count, bytes }, quiet: Boolean(argv.quiet) })
  finishDiagnostics(ctx.diagnostics)
}
