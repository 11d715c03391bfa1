/**
 * The ferry command line. Parses arguments with yargs and hands each command
 * to its module; owns exit codes: 0 success (also when stdout's reader went
 * away), 1 runtime error or bad input (after everything readable was
 * processed), 2 usage error.
 */
import yargs, { type Argv, type CommandModule } from 'yargs'
import { UsageError } from '../errors.js'
import { isEpipe } from '../io/pipeline.js'
import { harnessSummary } from '../harness/registry.js'
import { VERSION } from '../version.js'
import { guardStdout } from './output.js'
import { globalValueFlags, rejectRepeated, storeOptions } from './options.js'
import { prepareArgs } from './argv.js'
import { helpWidth, unwrappedExamples } from './help.js'
import { reportFailure } from './failure.js'
import { COMPLETE_HOOK, completionCommands, printCompletions } from './completion.js'
import { STDIN_SENTINEL } from './sources.js'
import { cliTransforms, joinTransformValues } from './transforms.js'
import { transformCommand } from './commands/transform-commands.js'
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
import * as hooks from './commands/hooks.js'
import * as stats from './commands/stats.js'
import * as mcp from './commands/mcp.js'
import * as pick from './commands/pick.js'
import * as doctorCmd from './commands/doctor.js'

/** Every command module, in the order `--help` lists them (cat and convert get the joined argv for their transform flags). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function commandModules(joined: string[]): Array<CommandModule<any, any>> {
  const transforms = cliTransforms()
  return [
    ls,
    { ...cat, handler: (argv: Record<string, unknown>) => cat.handler({ ...argv, rawArgs: joined }) },
    write,
    { ...convert, handler: (argv: Record<string, unknown>) => convert.handler({ ...argv, rawArgs: joined }) },
    quickstart,
    archive,
    hooks,
    search,
    exportCmd,
    cont,
    show,
    { ...render, handler: (argv: Record<string, unknown>) => render.handler({ ...argv, rawArgs: joined }) },
    stats,
    mcp,
    pick,
    doctorCmd,
    ...transforms.map((t) => transformCommand(t)),
    ...completionCommands(() => commandModules(joined)),
  ] as unknown as Array<CommandModule<any, any>>
}

/** The word that names a command module (`cat [ref..]` → `cat`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function commandName(m: CommandModule<any, any>): string {
  return String(m.command).split(' ')[0]!
}

/** The parser with every option and command: what `main` runs, what completion and docs/cli.md read. */
export function parser(args: string[], joined: string[] = args): Argv {
  let y: Argv = yargs(args)
    .scriptName('ferry')
    .usage('ferry <command> [options]\n\nMove coding-agent sessions between agents: read any harness into one record stream, transform it, write it as any other.')
    .version(VERSION)
    .alias('version', 'V')
    .help('help')
    .alias('help', 'h')
    .strict()
    .exitProcess(false)
    .wrap(helpWidth())
    .demandCommand(1, 'name a command (see ferry --help)')
  y = storeOptions(unwrappedExamples(y, helpWidth()))
  for (const m of commandModules(joined)) y = y.command(m as never)
  const top = y
  return y
    .middleware((argv) => rejectRepeated((top as unknown as { getOptions(): never }).getOptions(), argv), true)
    .epilog(`${harnessSummary()}\n\`ferry help COMMAND\` is \`ferry COMMAND --help\`. Exit codes: 0 ok, 1 runtime error or bad input (or no match: search), 2 usage error.\nDocs: README.md, docs/cli.md, docs/stream-format.md`)
    .fail((msg, err) => {
      throw err ?? new UsageError(msg)
    })
}

export async function main(args: string[]): Promise<void> {
  guardStdout()
  let json = args.includes('--json')
  try {
    // The completion scripts' hook: the words typed so far, never parsed as a command line.
    if (args[0] === COMPLETE_HOOK) return await printCompletions(args.slice(args[1] === '--' ? 2 : 1), commandModules([]))
    const transforms = cliTransforms()
    const names = commandModules([]).map(commandName).filter((n) => !n.startsWith('__'))
    const prepared = prepareArgs(joinTransformValues(args, transforms), names, globalValueFlags())
    json = prepared.json
    const joined = prepared.args
    const rawArgs = joined.map((a) => (a === '-' ? STDIN_SENTINEL : a))
    await parser(rawArgs, joined).parseAsync()
  } catch (err) {
    if (isEpipe(err)) return
    reportFailure(err, json)
  }
}
