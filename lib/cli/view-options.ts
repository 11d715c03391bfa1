/**
 * What the two views of a session share (`show` for a terminal, `render`
 * for a document): the view flags, `REF#A-B` ranges, and the colour rule.
 */
import { existsSync } from 'node:fs'
import type { Argv } from 'yargs'
import { UsageError } from '../errors.js'
import { parseRange } from '../render/index.js'
import type { Args } from './options.js'
import { refsOf } from './sources.js'
import { STDIN_SENTINEL } from './argv.js'

/** The view flags `show` and `render` share. */
export function viewOptions<T>(y: Argv<T>, toolsDefault: 'full' | 'brief'): Argv<T> {
  return y
    .option('range', { type: 'string', describe: 'Only messages A-B (the numbers shown in the view); also REF#A-B', group: 'View:' })
    .option('thinking', { type: 'boolean', default: true, describe: 'Show thinking (--no-thinking hides it)', group: 'View:' })
    .option('tools', { type: 'string', choices: ['full', 'brief', 'none'], default: toolsDefault, describe: 'Tool calls and outputs: in full, one line each with outputs shortened, or left out', group: 'View:' })
    .option('context', { type: 'boolean', default: false, describe: 'Show the context the agent injected (command caveats, reminders, environment, instructions); by default each run of it is one summary line', group: 'View:' }) as Argv<T>
}

/**
 * Splits `REF#5-12` into the ref and its range (a path that exists with the
 * `#` in its name stays a path). All refs must agree on one range.
 */
export function refsAndRange(argv: Args): { refs: string[]; range: [number, number] | null } {
  const refs: string[] = []
  let range: [number, number] | null = null
  let rangeText: string | undefined
  const take = (text: string): void => {
    if (rangeText !== undefined && rangeText !== text) throw new UsageError(`give one range for all sessions (got ${rangeText} and ${text})`)
    rangeText = text
    try {
      range = parseRange(text)
    } catch (err) {
      throw new UsageError((err as Error).message)
    }
  }
  for (const ref of refsOf(argv)) {
    const m = /^(.*)#(\d+(?:-\d*)?)$/.exec(ref)
    if (m && m[1] && !existsSync(ref)) {
      refs.push(m[1])
      take(m[2]!)
    } else refs.push(ref)
  }
  if (typeof argv.range === 'string') take(argv.range.replace(/^#/, ''))
  return { refs, range }
}

/** Argv with the refs replaced (what openSources reads). */
export function withRefs(argv: Args, refs: string[]): Args {
  return { ...argv, ref: refs.map((r) => (r === '-' ? STDIN_SENTINEL : r)) }
}

/** Colour by the usual rules: FORCE_COLOR wins, then NO_COLOR, then whether stdout is a terminal. */
export function useColor(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return isTTY
}
