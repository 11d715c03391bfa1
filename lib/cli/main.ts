/**
 * The ferry command line. Parses arguments with yargs and hands each command
 * to its module; owns exit codes: 0 success (also when stdout's reader went
 * away), 1 runtime error or bad input (after everything readable was
 * processed), 2 usage error.
 */
import yargs, { type Argv } from 'yargs'
import { errorMessage, FerryError, UsageError } from '../errors.js'
import { isEpipe } from '../pipeline.js'
import { harnessSummary } from '../harness/registry.js'
import { VERSION } from '../version.js'
import { storeOptions } from './options.js'
import { STDIN_SENTINEL } from './sources.js'
import { joinTransformValues, loadTransforms } from './transforms.js'
import { filterCommand } from './commands/filter-command.js'
import * as ls from './commands/ls.js'
import * as cat from './commands/cat.js'
import * as write from './commands/write.js'
import * as convert from './commands/convert.js'
import * as quickstart from './commands/quickstart.js'
import * as archive from './commands/archive.js'
import * as search from './commands/search.js'
import * as exportCmd from './commands/export.js'
import * as cont from './commands/continue.js'
import * as show from './commands/show.js'
import * as render from './commands/render.js'

function quietEpipe(): void {
  // `ferry cat … | head -1`: the reader is gone; stop quietly with success.
  process.stdout.on('error', (err) => {
    if (isEpipe(err)) process.exit(process.exitCode ?? 0)
    throw err
  })
}

export async function main(args: string[]): Promise<void> {
  quietEpipe()
  const transforms = await loadTransforms()
  const joined = joinTransformValues(args, transforms)
  const rawArgs = joined.map((a) => (a === '-' ? STDIN_SENTINEL : a))
  let y: Argv = yargs(rawArgs)
    .scriptName('ferry')
    .usage('ferry <command> [options]\n\nMove coding-agent sessions between agents: read any harness into one record stream, transform it, write it as any other.')
    .version(VERSION)
    .strict()
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .demandCommand(1, 'name a command (see ferry --help)')
    .recommendCommands()
  y = storeOptions(y)
  y = y
    .command(ls as unknown as Parameters<Argv['command']>[0])
    .command({ ...cat, handler: (argv: Record<string, unknown>) => cat.handler({ ...argv, rawArgs: joined }) } as never)
    .command(write as unknown as Parameters<Argv['command']>[0])
    .command({ ...convert, handler: (argv: Record<string, unknown>) => convert.handler({ ...argv, rawArgs: joined }) } as never)
    .command(quickstart as unknown as Parameters<Argv['command']>[0])
    .command(archive as unknown as Parameters<Argv['command']>[0])
    .command(search as unknown as Parameters<Argv['command']>[0])
    .command(exportCmd as unknown as Parameters<Argv['command']>[0])
    .command(cont as unknown as Parameters<Argv['command']>[0])
    .command(show as unknown as Parameters<Argv['command']>[0])
    .command({ ...render, handler: (argv: Record<string, unknown>) => render.handler({ ...argv, rawArgs: joined }) } as never)
  for (const t of transforms) y = y.command(filterCommand(t) as never)
  y = y
    .epilog(`${harnessSummary()}\nDocs: README.md, docs/cli.md, docs/stream-format.md`)
    .fail((msg, err) => {
      throw err ?? new UsageError(msg)
    })
  try {
    await y.parseAsync()
  } catch (err) {
    if (isEpipe(err)) return
    if (err instanceof UsageError || (!(err instanceof FerryError) && (err as Error)?.name === 'YError')) {
      process.stderr.write(`ferry: ${errorMessage(err)}\n`)
      process.exitCode = 2
      return
    }
    process.stderr.write(`ferry: error: ${errorMessage(err)}\n`)
    if (process.env.FERRY_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`)
    process.exitCode = 1
  }
}
