/**
 * The flags of a command that writes sessions (`write`, `convert`): the
 * target (`--to`), where (`--out`), `--dry-run`, `--force`, `--json` and
 * the target's own write flags, and the sink options they make.
 */
import type { Argv } from 'yargs'
import { UsageError } from '../errors.js'
import { writable } from '../harness/registry.js'
import { writeFlagOptions, writeOptsFor, type Args } from './options.js'

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
