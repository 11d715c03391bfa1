/**
 * A plain command line parsed without yargs, exactly as yargs parses it: a short command (`ferry search`, `ferry ls`)
 * then starts without loading the parser and every command's options, about a third of its start-up. Only lines whose
 * meaning is beyond doubt are taken: known long options and one-letter aliases, each once (an array option may
 * repeat), a value after every option that takes one, and words. Anything else (`--`, `--x=y`, `--no-x`, a cluster,
 * a repeat, a value that is not a plain number or not among the choices, a word where none is taken) returns
 * undefined, and yargs parses the line with its own messages. test/core/quick-argv.test.ts compares the two.
 */
import { camel, type Args } from './options.js'

/** A command's options as yargs holds them (quick-spec.ts reads them from the real parser at build time). */
export interface QuickSpec {
  word: string
  /** The options the parser takes before the command's word too (`--home DIR ls`). */
  global: string[]
  /** The parser's script name (`$0`). */
  script: string
  /** The positional of `word [name..]` (variadic) or `word [name]`. */
  positional?: { name: string; variadic: boolean }
  boolean: string[]
  string: string[]
  number: string[]
  array: string[]
  alias: Record<string, string[]>
  default: Record<string, unknown>
  choices: Record<string, unknown[]>
}

const PLAIN_NUMBER = /^(0|[1-9]\d{0,14})(\.\d{1,15})?$/

/** The option a token names (`--limit`, `-n` → `limit`), or undefined. */
function optionOf(token: string, spec: QuickSpec, known: ReadonlySet<string>): string | undefined {
  const name = token.startsWith('--') ? token.slice(2) : token.length === 2 && token[0] === '-' ? token.slice(1) : undefined
  if (name === undefined || !/^[a-z][a-z0-9-]*$/i.test(name) || !known.has(name) || name === spec.positional?.name) return undefined
  for (const [key, aliases] of Object.entries(spec.alias)) if (aliases.includes(name)) return key
  return name
}

/** The argv yargs would hand the command's handler for `args` (global options, the command's word, the rest), or undefined. */
export function quickParse(args: readonly string[], spec: QuickSpec): Args | undefined {
  const global = new Set(spec.global)
  let named = false
  const known = new Set([...spec.boolean, ...spec.string, ...spec.number])
  const arrays = new Set(spec.array)
  const given = new Map<string, unknown>()
  const words: string[] = []
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!
    if (!token.startsWith('-')) {
      if (named) words.push(token)
      else if (token === spec.word) named = true
      else return undefined
      continue
    }
    const key = optionOf(token, spec, known)
    if (key === undefined || (!named && !global.has(key))) return undefined
    if (given.has(key) && !arrays.has(key)) return undefined
    if (spec.boolean.includes(key)) {
      // yargs takes a following `true` or `false` as the flag's value.
      if (arrays.has(key) || args[i + 1] === 'true' || args[i + 1] === 'false') return undefined
      given.set(key, true)
      continue
    }
    const values: string[] = []
    while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
      values.push(args[++i]!)
      if (!arrays.has(key)) break
    }
    if (values.length === 0) return undefined
    let parsed: unknown[] = values
    if (spec.number.includes(key)) {
      if (!values.every((v) => PLAIN_NUMBER.test(v))) return undefined
      parsed = values.map(Number)
    }
    const choices = spec.choices[key]
    if (choices && !parsed.every((v) => choices.includes(v))) return undefined
    if (arrays.has(key)) given.set(key, [...((given.get(key) as unknown[] | undefined) ?? []), ...parsed])
    else given.set(key, parsed[0])
  }
  const pos = spec.positional
  if (!named || (words.length && !pos)) return undefined
  if (pos && !pos.variadic && words.length > 1) return undefined
  // yargs reads a word that looks like a number as one, whatever the positional's type, and `help` as its help.
  if (words.some((w) => PLAIN_NUMBER.test(w) || /^0x[0-9a-f]+$/i.test(w) || w === 'help')) return undefined
  const argv: Args = { _: [spec.word] }
  const set = (key: string, value: unknown): void => {
    for (const name of [key, ...(spec.alias[key] ?? [])]) {
      argv[name] = value
      if (name.includes('-')) argv[camel(name)] = value
    }
  }
  for (const [key, value] of Object.entries(spec.default)) if (!given.has(key)) set(key, value)
  for (const [key, value] of given) set(key, value)
  if (pos) {
    if (pos.variadic) set(pos.name, words)
    else if (words.length) set(pos.name, words[0])
  }
  argv.$0 = spec.script
  return argv
}
