/**
 * The second entry of the bundle (dist/ferry-quick.mjs): a plain command line of a quick command run without yargs
 * (quick-argv.ts), with `main`'s stdout guard and failure report. bin/ferry.js tries it first and starts `main` when
 * it declines the line.
 */
import { isEpipe } from '../io/pipeline.js'
import { COMMANDS, type CommandWord } from './command-modules.js'
import { reportFailure } from './failure.js'
import { guardStdout } from './output.js'
import { quickParse, type QuickSpec } from './quick-argv.js'

/** Runs `args` when `specs` (dist/quick-argv.json) parse it; false when yargs must. */
export async function quickMain(args: string[], specs: Record<string, QuickSpec>): Promise<boolean> {
  const word = args.find((a) => Object.hasOwn(specs, a) && Object.hasOwn(COMMANDS, a))
  const argv = word === undefined ? undefined : quickParse(args, specs[word]!)
  if (!word || !argv) return false
  guardStdout()
  try {
    const m = await COMMANDS[word as CommandWord]()
    await (m.handler as (a: typeof argv) => unknown)(argv)
  } catch (err) {
    if (!isEpipe(err)) reportFailure(err, argv.json === true)
  }
  return true
}
