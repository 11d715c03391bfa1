/**
 * What the command line means before yargs sees it: `ferry help CMD` is
 * `ferry CMD --help`, a word where the command goes that names no command
 * is a usage error with a suggestion (yargs would say "Unknown argument"),
 * and a negative span after a time flag (`--since -3d`) is that flag's
 * value, not a cluster of short options.
 */
import { didYouMean, UsageError } from '../errors.js'

const TIME_FLAGS = new Set(['--since', '--until'])
const NEGATIVE_SPAN = /^-\d+\s*[mhdw]$/

/** Stands for `-` during parsing: yargs drops a lone `-` from variadic positionals (yargs#1312). Here, not in sources.ts, so the parser needs no reader. */
export const STDIN_SENTINEL = '\u0000stdin'

/** The index of the command word: the first word that is neither an option nor a global option's value. */
export function commandIndex(args: string[], valueFlags: ReadonlySet<string>): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '--') return -1
    if (!a.startsWith('-') || a === '-') return i
    if (!a.includes('=') && valueFlags.has(a.replace(/^--?/, ''))) i++
  }
  return -1
}

export interface Prepared {
  args: string[]
  /** `--json` was given: failures go to stderr as JSON objects too. */
  json: boolean
}

export function prepareArgs(input: string[], commands: readonly string[], valueFlags: ReadonlySet<string>): Prepared {
  let args = [...input]
  const end = args.indexOf('--')
  const opts = end === -1 ? args : args.slice(0, end)
  const json = opts.some((a) => a === '--json' || a === '--json=true')
  for (let i = 0; i < args.length - 1 && (end === -1 || i < end); i++) {
    if (TIME_FLAGS.has(args[i]!) && NEGATIVE_SPAN.test(args[i + 1]!)) args.splice(i, 2, `${args[i]}=${args[i + 1]}`)
  }
  const at = commandIndex(args, valueFlags)
  if (at === -1) return { args, json }
  const word = args[at]!
  if (word === 'help') {
    args = [...args.slice(0, at), ...args.slice(at + 1), '--help']
    const next = commandIndex(args, valueFlags)
    if (next !== -1 && !commands.includes(args[next]!)) throw unknownCommand(args[next]!, commands)
    return { args, json }
  }
  if (!commands.includes(word)) throw unknownCommand(word, commands)
  return { args, json }
}

function unknownCommand(word: string, commands: readonly string[]): UsageError {
  return new UsageError(`unknown command "${word}"${didYouMean(word, commands)} (commands: ${commands.join(', ')}; ferry --help)`)
}
