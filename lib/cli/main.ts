/**
 * The ferry command line. Parses arguments with yargs and hands each command
 * to its module; owns exit codes: 0 success (also when stdout's reader went
 * away), 1 runtime error or bad input (after everything readable was
 * processed), 2 usage error.
 */
import yargs, { type Argv, type CommandModule } from 'yargs'
import { UsageError } from '../errors.js'
import { isEpipe } from '../io/pipeline.js'
import { harnessSummary } from '../harness/manifest.js'
import { VERSION } from '../version.js'
import { guardStdout } from './output.js'
import { GLOBAL, globalValueFlags, rejectRepeated, storeOptions } from './options.js'
import { commandIndex, prepareArgs, STDIN_SENTINEL } from './argv.js'
import { helpWidth, ownOptionsFirst, unwrappedExamples } from './help.js'
import { reportFailure } from './failure.js'
import { ownWords, rejectNotNumbers } from './usage-words.js'
import { COMPLETE_HOOK, completionCommands, printCompletions } from './completion.js'
import { cliTransforms, joinTransformValues } from './transforms.js'
import { transformCommand } from './commands/transform-commands.js'
import { COMMANDS, type CommandWord } from './command-modules.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loaded = new Map<CommandWord, CommandModule<any, any>>()
/** Commands whose handler needs the joined argv (their transform flags). */
const RAW_ARGS: ReadonlySet<string> = new Set(['cat', 'convert', 'render'])

/** Loads the modules of `words` (the commands among them), or of every command. */
export async function loadCommands(words: readonly string[] = Object.keys(COMMANDS)): Promise<void> {
  const wanted = words.filter((w): w is CommandWord => Object.hasOwn(COMMANDS, w) && !loaded.has(w as CommandWord))
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const mods = await Promise.all(wanted.map((w) => COMMANDS[w]() as Promise<CommandModule<any, any>>))
  wanted.forEach((w, i) => loaded.set(w, mods[i]!))
}

/**
 * Every loaded command module (all of them after `loadCommands()`), in the order `--help` lists them (cat, convert
 * and render get the joined argv for their transform flags), then the transforms' and completion's commands.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function commandModules(joined: string[]): Array<CommandModule<any, any>> {
  const transforms = cliTransforms()
  return [
    ...(Object.keys(COMMANDS) as CommandWord[]).flatMap((w) => {
      const m = loaded.get(w)
      if (!m) return []
      return [RAW_ARGS.has(w) ? { ...m, handler: (argv: Record<string, unknown>) => m.handler!({ ...argv, rawArgs: joined } as never) } : m]
    }),
    ...transforms.map((t) => transformCommand(t)),
    ...completionCommands(() => commandModules(joined)),
  ] as unknown as Array<CommandModule<any, any>>
}

/** The word that names a command module (`cat [ref..]` → `cat`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function commandName(m: CommandModule<any, any>): string {
  return String(m.command).split(' ')[0]!
}

/**
 * The parser with every option and command: what `main` runs, what completion and docs/cli.md read. `modules` are
 * the command modules it runs (those loaded, by default).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function parser(args: string[], joined: string[] = args, width = helpWidth(), modules: Array<CommandModule<any, any>> = commandModules(joined)): Argv {
  let y: Argv = yargs(args)
    .scriptName('ferry')
    .usage('ferry <command> [options]\n\nMove coding-agent sessions between agents: read any harness into one record stream, transform it, write it as any other.')
    .version(VERSION)
    .alias('version', 'V')
    .help('help')
    .alias('help', 'h')
    .strict()
    .exitProcess(false)
    .wrap(width)
    .demandCommand(1, 'name a command (see ferry --help)')
  y = storeOptions(unwrappedExamples(y, width)).group(['help', 'version'], GLOBAL)
  const own = modules.map(ownOptionsFirst)
  for (const m of own) y = y.command(m as never)
  const top = y
  const names = own.map(commandName)
  return y
    .middleware((argv) => rejectRepeated((top as unknown as { getOptions(): never }).getOptions(), argv), true)
    .middleware((argv) => rejectNotNumbers((top as unknown as { getOptions(): never }).getOptions(), argv, args), true)
    .epilog(`${harnessSummary()}\n\`ferry help COMMAND\` is \`ferry COMMAND --help\`. Exit codes: 0 ok, 1 runtime error, bad input or nothing matched, 2 usage error.\nDocs: README.md, docs/cli.md, docs/stream-format.md`)
    .fail((msg, err) => {
      // yargs' own failures (its YError, or a message alone) in ferry's words; anything of ours as thrown.
      if (!err || err.name === 'YError') throw new UsageError(ownWords(err?.message ?? msg, args, names))
      throw err
    })
}

export async function main(args: string[]): Promise<void> {
  guardStdout()
  let json = args.includes('--json')
  try {
    // The completion scripts' hook: the words typed so far, never parsed as a command line.
    if (args[0] === COMPLETE_HOOK) {
      await loadCommands()
      return await printCompletions(args.slice(args[1] === '--' ? 2 : 1), commandModules([]))
    }
    const transforms = cliTransforms()
    const names = [...new Set([...Object.keys(COMMANDS), ...commandModules([]).map(commandName)])].filter((n) => !n.startsWith('__'))
    const prepared = prepareArgs(joinTransformValues(args, transforms), names, globalValueFlags())
    json = prepared.json
    const joined = prepared.args
    // The command named loads alone; with none, every one (`ferry --help` lists them), but for `ferry --version`.
    const at = commandIndex(joined, globalValueFlags())
    const versionOnly = at === -1 && joined.some((a) => a === '--version' || a === '-V') && !joined.some((a) => a === '--help' || a === '-h')
    await loadCommands(at !== -1 ? [joined[at]!] : versionOnly ? [] : undefined)
    const rawArgs = joined.map((a) => (a === '-' ? STDIN_SENTINEL : a))
    await parser(rawArgs, joined).parseAsync()
  } catch (err) {
    if (isEpipe(err)) return
    reportFailure(err, json)
  }
}
