import type { Argv } from 'yargs'
import { getHarness } from '../../harness/registry.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { openSources } from '../sources.js'
import { runIntoSink } from '../sink-run.js'
import { toOptions, writeOpts } from '../write-options.js'

export const command = 'write [ref..]'
export const describe = 'Write the interchange stream from stdin (or files) as native sessions of --to'

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
