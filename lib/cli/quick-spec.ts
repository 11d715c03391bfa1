/**
 * What the quick parser (quick-argv.ts) knows of a command: its options as yargs holds them once the command's
 * builder has run, read from the real parser at build time (scripts/bundle.mjs writes dist/quick-argv.json), so the
 * two cannot disagree about a name, a type or a default.
 */
import type { Argv, CommandModule } from 'yargs'
import { commandModules, commandName, loadCommands, parser } from './main.js'
import type { QuickSpec } from './quick-argv.js'

/** The commands parsed without yargs when their line is plain: short, and run often from scripts and prompts. */
export const QUICK_COMMANDS = ['search', 'ls'] as const

interface YargsOptions {
  boolean: string[]
  string: string[]
  number: string[]
  array: string[]
  count: string[]
  normalize: string[]
  narg: Record<string, number>
  alias: Record<string, string[]>
  default: Record<string, unknown>
  choices: Record<string, unknown[]>
  coerce?: Record<string, unknown>
  key: Record<string, unknown>
  demandedOptions: Record<string, unknown>
}

/** The options `word` parses, as its builder leaves them (help rendered through a callback, so nothing runs or prints). */
async function optionsOf(word: string): Promise<YargsOptions & { script: string }> {
  await loadCommands([word])
  let seen: (YargsOptions & { script: string }) | undefined
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const modules = commandModules([]).map((m): CommandModule<any, any> => {
    if (commandName(m) !== word || typeof m.builder !== 'function') return m
    const build = m.builder
    return {
      ...m,
      builder: (y: Argv) => {
        const out = (build(y) as Argv | undefined) ?? y
        const y2 = out as unknown as { getOptions(): YargsOptions; $0: string }
        seen = { ...structuredClone(y2.getOptions()), script: y2.$0 }
        return out
      },
    }
  })
  const args = [word, '--help']
  await new Promise<void>((resolve, reject) => {
    parser(args, args, 100, modules).parse(args, {}, (err: Error | undefined) => (err ? reject(err) : resolve()))
  })
  if (!seen) throw new Error(`quick-spec: ${word} has no builder`)
  return seen
}

/** The positional of a command string `word [name..]` or `word [name]` (a required or typed one is not quick). */
function positionalOf(command: string): QuickSpec['positional'] | null | undefined {
  const parts = command.split(' ').slice(1)
  if (parts.length === 0) return undefined
  const m = parts.length === 1 ? /^\[([a-z][a-z0-9-]*)(\.\.)?\]$/.exec(parts[0]!) : null
  return m ? { name: m[1]!, variadic: m[2] !== undefined } : null
}

/** The spec of `word`, or undefined when its options go beyond what quick-argv.ts parses (yargs then parses every line of it). */
export async function quickSpec(word: string): Promise<QuickSpec | undefined> {
  await loadCommands([word])
  const m = commandModules([]).find((c) => commandName(c) === word)
  if (!m) return undefined
  const positional = positionalOf(String(m.command))
  if (positional === null) return undefined
  const o = await optionsOf(word)
  // Counted, normalized, coerced or demanded options change a value or fail a line in ways not repeated here.
  if (o.count.length || o.normalize.length || Object.keys(o.coerce ?? {}).length || Object.keys(o.demandedOptions).length) return undefined
  const typed = new Set([...o.boolean, ...o.string, ...o.number])
  const keys = Object.keys(o.key).filter((k) => k !== 'help' && k !== 'version')
  if (keys.some((k) => !typed.has(k) && k !== positional?.name)) return undefined
  const top = parser([], [], 100, []) as unknown as { getOptions(): YargsOptions }
  return {
    word,
    global: Object.keys(top.getOptions().key).filter((k) => k !== 'help' && k !== 'version'),
    script: o.script,
    ...(positional ? { positional } : {}),
    boolean: o.boolean.filter((k) => k !== 'help' && k !== 'version'),
    string: o.string,
    number: o.number,
    array: o.array,
    alias: o.alias,
    default: o.default,
    choices: o.choices,
  }
}

/** Every quick command's spec, by word: the contents of dist/quick-argv.json. */
export async function quickSpecs(): Promise<Record<string, QuickSpec>> {
  const out: Record<string, QuickSpec> = {}
  for (const word of QUICK_COMMANDS) {
    const spec = await quickSpec(word)
    if (spec) out[word] = spec
  }
  return out
}
