/**
 * Help layout. yargs puts an example's command and its description in two
 * columns and wraps a long command in the middle; here a command that does
 * not fit its column gets a line of its own, with the description indented
 * on the next line, so every example can be copied as it is shown.
 */
import type { Argv } from 'yargs'

/** The help width: the terminal's (at most 110), or 100 in a pipe, so docs/cli.md is stable. */
export function helpWidth(): number {
  return Math.min(110, process.stdout.isTTY ? process.stdout.columns || 100 : 100)
}

export function unwrappedExamples(y: Argv, width: number): Argv {
  const original = y.example.bind(y) as (cmd: string, desc: string) => Argv
  // yargs' command column is at most half the width, less its padding.
  const column = Math.floor(width / 2) - 4
  const patched = (cmd: string | ReadonlyArray<[string, string?]>, desc?: string): Argv => {
    if (typeof cmd !== 'string') {
      for (const [c, d] of cmd) patched(c, d ?? '')
      return y
    }
    if (!desc || cmd.length <= column) return original(cmd, desc ?? '')
    original(cmd, '')
    return original(`    # ${desc}`, '')
  }
  ;(y as unknown as { example: typeof patched }).example = patched
  return y
}

/**
 * A command's `--help` lists its own flags first and the options every
 * command takes last, under "Global options" (as gh does). yargs prints a
 * command's groups before the global ones it carries over, but its default
 * "Options:" group after them, so the command's ungrouped flags are named
 * into "Options:" once its builder has run.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ownOptionsFirst<M extends { builder?: unknown }>(m: M): M {
  const builder = m.builder
  if (typeof builder !== 'function') return m
  const wrapped = (y: Argv): Argv => {
    const out = ((builder as (y: Argv) => Argv | void)(y) ?? y) as Argv
    const o = out as unknown as { getGroups(): Record<string, string[]>; getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }
    const grouped = new Set(Object.values(o.getGroups()).flat())
    const opts = o.getOptions()
    const aliases = new Set(Object.values(opts.alias).flat())
    const own = Object.keys(opts.key).filter((k) => !grouped.has(k) && !aliases.has(k) && k !== 'help' && k !== 'version')
    return own.length ? out.group(own, 'Options:') : out
  }
  return { ...m, builder: wrapped }
}
