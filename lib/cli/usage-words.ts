/**
 * Usage errors in ferry's own words: yargs' messages (`Not enough non-option
 * arguments: got 0, need at least 1`, `Invalid values: Argument: …`) become
 * one line naming the flag and what would work, and a number flag given a
 * word is refused with the word as typed (yargs turns it into NaN).
 */
import { UsageError } from '../errors.js'
import type { Args } from './options.js'

/** The command word of a command line (`ls`), or '' for the top level. */
function commandOf(args: string[], commands: string[]): string {
  return args.find((a) => commands.includes(a)) ?? ''
}

const flag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`)

/** One yargs failure message → one line of ours. Unknown wording is kept, joined onto one line. */
export function ownWords(msg: string, args: string[], commands: string[]): string {
  const cmd = commandOf(args, commands)
  const help = `see ferry ${cmd ? `${cmd} ` : ''}--help`
  const one = msg.replace(/\s*\n\s*/g, ' ').trim()
  let m: RegExpMatchArray | null
  if ((m = one.match(/^Invalid values: (.*)$/))) {
    const parts = [...m[1]!.matchAll(/Argument: ([^,]+), Given: (.+?), Choices: (.+?)(?= Argument: |$)/g)]
    if (parts.length) return parts.map(([, name, given, choices]) => `${flag(name!)} ${given}: not one of ${choices!.replace(/"/g, '')}`).join('; ') + ` (${help})`
  }
  if ((m = one.match(/^Not enough non-option arguments: got (\d+), need at least (\d+)$/))) return `${cmd ? `${cmd}: ` : ''}an argument is missing (${help})`
  if ((m = one.match(/^Too many non-option arguments: got (\d+), maximum of (\d+)$/))) return `${cmd ? `${cmd}: ` : ''}too many arguments, at most ${m[2]} (${help})`
  if ((m = one.match(/^Missing required arguments?: (.+)$/))) return `${cmd ? `${cmd}: ` : ''}${m[1]!.split(/,\s*/).map(flag).join(', ')} is required (${help})`
  if ((m = one.match(/^Not enough arguments following: (.+)$/))) return `${flag(m[1]!)} needs a value (${help})`
  if ((m = one.match(/^Unknown arguments?: (.+)$/))) {
    // yargs strips the dashes: a word typed with them is an unknown flag, one without a stray argument.
    const words = m[1]!.split(/,\s*/)
    return words.map((w) => (args.some((a) => a === `--${w}` || a === `-${w}` || a.startsWith(`--${w}=`)) ? `unknown option ${flag(w)}` : `unexpected argument "${w}"`)).join('; ') + ` (${help})`
  }
  return one
}

/** The text typed after a flag (`--limit abc`, `-n abc`, `--limit=abc`), for a message. */
function typed(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    for (const n of names) {
      const f = flag(n)
      if (args[i] === f) return args[i + 1]
      if (args[i]!.startsWith(`${f}=`)) return args[i]!.slice(f.length + 1)
    }
  }
  return undefined
}

/** A number flag given something that is not a number: yargs made it NaN; say what was typed. */
export function rejectNotNumbers(opts: { number: string[]; alias?: Record<string, string[]> }, argv: Args, args: string[]): void {
  for (const key of opts.number) {
    const v = argv[key]
    if (typeof v !== 'number' || !Number.isNaN(v)) continue
    const names = [key, ...(opts.alias?.[key] ?? [])]
    throw new UsageError(`--${key}: not a number: ${JSON.stringify(typed(args, names) ?? '')}`)
  }
}
