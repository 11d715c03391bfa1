/**
 * The factory of the per-transform commands, the one module under commands/
 * that is not itself a command: one command per registered transform, each
 * a Unix filter (`ferry redact`, `ferry truncate --tool-output 4000`, …)
 * that reads the interchange stream on stdin (or files) and writes it on
 * stdout. Its options come from the transform's schema.
 */
import type { Argv, CommandModule } from 'yargs'
import { stringify } from '../../interchange/stringify.js'
import { pipeline } from '../../io/pipeline.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics, stdoutStage } from '../output.js'
import { salvageThrough } from '../salvage.js'
import { addSchemaOptions, commandSchema, createStage, optionsFrom, type CliTransform } from '../transforms.js'

export function transformCommand(t: CliTransform): CommandModule<object, Args> {
  return {
    command: `${t.name} [ref..]`,
    describe: t.describe,
    builder: (y: Argv) => {
      let out = addSchemaOptions(y.positional('ref', { type: 'string', array: true, describe: 'Interchange input (default: stdin)' }) as Argv, commandSchema(t))
      for (const [cmd, text] of t.examples ?? []) out = out.example(cmd, text)
      return out as Argv<Args>
    },
    handler: async (argv: Args) => {
      const ctx = contextFrom(argv)
      const stage = () => createStage(t, argv)
      if (t.command && (await t.command(optionsFrom(commandSchema(t), argv), argv, ctx, stage))) return finishDiagnostics(ctx.diagnostics)
      // The stage first: a bad option is a usage error before any input is read.
      const transform = stage()
      // The readers load with the first input read, not with the parser (docs/performance.md, "Harness facts apart from harness code").
      const { openSources } = await import('../sources.js')
      const opened = await openSources(ctx, argv, { native: true })
      const { source, failure } = salvageThrough(opened.source, [transform])
      await pipeline(source, stringify(), stdoutStage())
      finishDiagnostics(ctx.diagnostics, failure())
    },
  }
}
