/**
 * Each transform as a Unix filter: `ferry redact`, `ferry truncate --tool-output 4000`, …
 * read the interchange stream on stdin (or files), write it on stdout.
 */
import type { Argv, CommandModule } from 'yargs'
import { stringify } from '../../interchange/stringify.js'
import { pipeline } from '../../pipeline.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../io.js'
import { openSources } from '../sources.js'
import type { TransformSpec } from '../transforms.js'

export function filterCommand(spec: TransformSpec): CommandModule<object, Args> {
  return {
    command: `${spec.name} [ref..]`,
    describe: spec.describe,
    builder: (y: Argv) => {
      let out = y.positional('ref', { type: 'string', array: true, describe: 'Interchange input (default: stdin)' }) as Argv
      for (const o of spec.options) out = out.option(o.name, { type: o.type, describe: o.describe, ...(o.default === undefined ? {} : { default: o.default }) })
      for (const [cmd, text] of spec.examples ?? []) out = out.example(cmd, text)
      return out as Argv<Args>
    },
    handler: async (argv: Args) => {
      const ctx = contextFrom(argv)
      if (spec.command && (await spec.command(argv, ctx))) return finishDiagnostics(ctx.diagnostics)
      const { source } = await openSources(ctx, argv, { native: true })
      await pipeline(source, spec.create(argv), stringify(), process.stdout)
      finishDiagnostics(ctx.diagnostics)
    },
  }
}
