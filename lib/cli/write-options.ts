/**
 * The flags of a command that writes sessions (`write`, `convert`): the
 * target (`--to`), where (`--out`), `--dry-run`, `--force`, `--json` and
 * the target's own write flags, and the sink options they make.
 */
import type { Argv } from 'yargs'
import { UsageError } from '../errors.js'
import { statSync } from 'node:fs'
import { getHarness, writable } from '../harness/registry.js'
import { writeFlagOptions, writeOptsFor, type Args } from './options.js'
import { STDIN_SENTINEL } from './argv.js'

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

/** A name that is a session file's, not a folder's. */
const FILE_NAME = /\.(jsonl|json|zst|db|sqlite|ya?ml|md|html|txt)$/i

/** The sink options of write and convert from argv; `--out` naming a file for a target that writes a store is a usage error. */
export function writeOpts(argv: Args): Record<string, unknown> {
  const to = getHarness(String(argv.to))
  if (to.outIsStore && typeof argv.out === 'string' && argv.out !== '-' && argv.out !== STDIN_SENTINEL && !argv.out.endsWith('/')) {
    const st = statSync(argv.out, { throwIfNoEntry: false })
    if (st?.isFile() || (!st && FILE_NAME.test(argv.out)))
      throw new UsageError(`--out ${argv.out}: ${to.name} writes a store (a folder it lays sessions out in, as under ${to.store.flag?.name ? `--${to.store.flag.name}` : 'its home'}), not a file; give a folder (--out ${argv.out.replace(FILE_NAME, '')}/), or --to ferry --out FILE for one file`)
  }
  return { ...(typeof argv.out === 'string' ? { out: argv.out } : {}), force: Boolean(argv.force), ...writeOptsFor(argv, String(argv.to)) }
}
