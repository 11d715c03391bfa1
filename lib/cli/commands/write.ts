import type { Argv } from 'yargs'
import { getHarness, writable } from '../../harness/registry.js'
import { contextFrom, writeFlagOptions, writeOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../io.js'
import { openSources } from '../sources.js'
import { runIntoSink } from '../sink-run.js'

export const command = 'write [ref..]'
export const describe = 'Write the interchange stream from stdin (or files) as native sessions of --to'

export function toOptions(y: Argv): Argv {
  return writeFlagOptions(y)
    .option('to', { type: 'string', demandOption: true, describe: `Target harness: ${writable().map((h) => h.id).join(', ')}` })
    .option('out', { type: 'string', describe: 'Write under DIR (or FILE, for single-file formats) instead of the store' })
    .option('force', { type: 'boolean', default: false, describe: 'Replace sessions that already exist' })
    .option('json', { type: 'boolean', default: false, describe: 'Report each written session as a JSON object (harness, id, path)' })
}

export function builder(y: Argv): Argv {
  return toOptions(y)
    .positional('ref', { type: 'string', array: true, describe: 'Interchange files to read (default: stdin)' })
    .example('ferry cat codex:0199… | ferry write --to claude-code', 'continue a Codex session in Claude Code')
    .example('ferry write --to codex --out /tmp/store < stream.jsonl', 'write into another directory')
    .example('ferry write --to claude-code --home /tmp/h --json < s.jsonl', 'report as JSON lines')
}

export async function handler(argv: Args): Promise<void> {
  const ctx = contextFrom(argv)
  getHarness(String(argv.to))
  const { source } = await openSources(ctx, argv, {})
  await runIntoSink(ctx, source, [], String(argv.to), { ...(typeof argv.out === 'string' ? { out: argv.out } : {}), force: Boolean(argv.force), ...writeOptsFor(argv, String(argv.to)) }, Boolean(argv.json))
  finishDiagnostics(ctx.diagnostics)
}
