import type { Argv } from 'yargs'
import { stringify } from '../../interchange/stringify.js'
import { pipeline } from '../../io/pipeline.js'
import { contextFrom, readFlagOptions, readOptsFor, type Args } from '../options.js'
import { finishDiagnostics, stdoutStage } from '../output.js'
import { salvageThrough } from '../salvage.js'
import { openSources, selectionOptions } from '../sources.js'
import { buildTransforms, cliTransforms } from '../transforms.js'

export const command = 'cat [ref..]'
export const describe = 'Print sessions as the ferry interchange stream (JSON lines) on stdout'

export function builder(y: Argv): Argv {
  let out = selectionOptions(readFlagOptions(y))
    .positional('ref', { type: 'string', array: true, describe: 'harness:id, a session file or directory, or - for stdin' })
    .option('native', { type: 'boolean', default: true, describe: 'Carry the source text of each record (lets a same-harness write reproduce it byte for byte); --no-native for smaller output' })
  for (const t of cliTransforms()) out = out.option(t.name, { type: 'string', describe: `Apply the ${t.name} transform (value: its options, quoted), in the order given`, group: 'Transforms:' })
  return out
    .example('ferry cat codex:019a3c1e', 'one Codex session as records')
    .example('ferry cat ~/.claude/projects/-home-dev-demo-app/0b9e6c1a-4d2f-4a8b-9c1d-00000000de00.jsonl | jq -c .kind', 'a session file, piped')
    .example("ferry cat claude-code:0b9e6c1a --redact --truncate '--tool-output 4000'", 'redacted, outputs capped')
    .example('ferry cat --from codex --since 7d > week.jsonl', 'every Codex session of the last week')
}

export async function handler(argv: Args & { rawArgs: string[] }): Promise<void> {
  const ctx = contextFrom(argv)
  const opened = await openSources(ctx, argv, (from) => ({ native: argv.native !== false, ...readOptsFor(argv, from) }))
  const transforms = await buildTransforms(argv.rawArgs)
  const { source, failure } = salvageThrough(opened.source, transforms)
  await pipeline(source, stringify(), stdoutStage())
  finishDiagnostics(ctx.diagnostics, failure())
}
