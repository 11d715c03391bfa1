import type { Argv } from 'yargs'
import { UsageError } from '../../errors.js'
import { getHarness } from '../../harness/registry.js'
import { archiveFlag } from '../archive-options.js'
import { contextFrom, readFlagOptions, readOptsFor, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { bytesOf, refsOf, resolveSources, selectionOptions, sourceOf } from '../sources.js'
import { jobsFor, parallelPlan } from '../parallel.js'
import { outKind, runIntoSink } from '../sink-run.js'
import { wantsSourceBytes } from '../progress.js'
import { buildTransforms, cliTransforms } from '../transforms.js'
import { toOptions, writeOpts } from '../write-options.js'

export const command = 'convert [ref..]'
export const describe = 'Read sessions and write them as another harness (cat + write in one process)'

export function builder(y: Argv): Argv {
  let out = toOptions(selectionOptions(readFlagOptions(y))).positional('ref', { type: 'string', array: true, describe: 'harness:id, a session path, or -' })
  for (const t of cliTransforms()) out = out.option(t.name, { type: 'string', describe: `Apply the ${t.name} transform (value: its options, quoted), in the order given`, group: 'Transforms:' })
  return out
    .option('jobs', { type: 'number', describe: 'Sessions written at once, each on a thread and a core of its own (this one and N - 1 workers) (default: the CPU count for 64 or more sessions into a folder of one file per session; 1: one at a time, report in input order)' })
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
  // …and the progress display counts bytes read by it.
  const counted = wantsSourceBytes(Boolean(argv.quiet))
  const readOpts = (from: string) => ({ native: from === to || target.kind === 'stream' || counted, ...readOptsFor(argv, from) })
  const resolved = await resolveSources(ctx, argv)
  // Built here also when workers run them: a bad transform flag is a usage error before anything starts.
  const transforms = await buildTransforms(argv.rawArgs)
  const opts = writeOpts(argv)
  const jobs = await jobsFor(argv, target, outKind(opts.out as string | undefined), resolved, argv.rawArgs)
  const { source, count, bytes } = jobs > 1 ? { source: parallelPlan(jobs, resolved, argv.rawArgs, readOpts), count: resolved.length, bytes: bytesOf(resolved) } : sourceOf(ctx, resolved, readOpts)
  await runIntoSink(ctx, source, transforms, to, opts, { json: Boolean(argv.json), dryRun: Boolean(argv['dry-run']), total: { sessions: count, bytes }, quiet: Boolean(argv.quiet) })
  finishDiagnostics(ctx.diagnostics)
}
