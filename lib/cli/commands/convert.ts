import type { Argv } from 'yargs'
import { getHarness } from '../../harness/registry.js'
import { contextFrom, readFlagOptions, readOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../io.js'
import { openSources, selectionOptions } from '../sources.js'
import { runIntoSink } from '../sink-run.js'
import { buildTransforms, loadTransforms } from '../transforms.js'
import { toOptions, writeOpts } from './write.js'
import { UsageError } from '../../errors.js'
import { refsOf } from '../sources.js'
import { archiveFlag } from './archive.js'

export const command = 'convert [ref..]'
export const describe = 'Read sessions and write them as another harness (cat + write in one process)'

export async function builder(y: Argv): Promise<Argv> {
  let out = toOptions(selectionOptions(readFlagOptions(y))).positional('ref', { type: 'string', array: true, describe: 'harness:id, a session path, or -' })
  for (const t of await loadTransforms()) out = out.option(t.name, { type: 'string', describe: `Apply the ${t.name} transform (value: its options, quoted), in the order given`, group: 'Transforms:' })
  return out
    .example('ferry convert codex:019a3c1e --to claude-code', 'continue a Codex session in Claude Code')
    .example('ferry convert --from claude-code --to ferry --out ./export/', 'every Claude Code session to interchange files')
    .example('ferry convert claude-code:0b9e6c1a --to opencode --out s.json --redact', 'a redacted OpenCode export document')
    .example('ferry convert --from codex --since yesterday --to claude-code --dry-run', 'what would be written')
}

export async function handler(argv: Args & { rawArgs: string[] }): Promise<void> {
  // A script's `ferry convert --to X` with nothing named must not succeed having done nothing.
  if (refsOf(argv).length === 0 && !(Array.isArray(argv.from) && argv.from.length) && !argv[archiveFlag()]) throw new UsageError('convert: name the sessions (harness:id, a path, or - for stdin) or give --from HARNESS')
  const ctx = contextFrom(argv)
  const to = String(argv.to)
  const target = getHarness(to)
  // Source text only helps a writer of the same format (byte-identical copies) or the stream; elsewhere it is dead weight.
  const { source, count, bytes } = await openSources(ctx, argv, (from) => ({ native: from === to || target.kind === 'stream', ...readOptsFor(argv, from) }))
  const transforms = await buildTransforms(argv.rawArgs)
  await runIntoSink(ctx, source, transforms, to, writeOpts(argv), { json: Boolean(argv.json), dryRun: Boolean(argv['dry-run']), total: { sessions: count, bytes }, quiet: Boolean(argv.quiet) })
  finishDiagnostics(ctx.diagnostics)
}
