/**
 * The help texts, rendered once at build time (scripts/bundle.mjs writes
 * `dist/help-<width>.json`), so `ferry --help` and `ferry COMMAND --help`
 * print without loading yargs, the commands or the harnesses (bin/ferry.js;
 * docs/performance.md, "Start-up and `ls`, second round (issue #49)"). They
 * come from the parser `main` runs, at the widths `helpWidth` gives most
 * often (a pipe: 100; a terminal of 110 columns or more: 110; the common 80);
 * any other width is rendered live.
 * test/core/help-text.test.ts checks the files against the live CLI.
 */
import { commandModules, commandName, loadCommands, parser } from './main.js'

/** The widths rendered ahead of time. */
export const HELP_WIDTHS = [80, 100, 110] as const

/** Every word whose help is rendered ahead: '' (`ferry --help`) and each command a user can type. */
export async function helpWords(): Promise<string[]> {
  await loadCommands()
  return ['', ...commandModules([]).filter((m) => m.describe !== false).map(commandName)]
}

/** What `ferry [WORD] --help` prints at `width`, keyed by WORD. */
export async function helpTexts(width: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const word of await helpWords()) {
    const args = word ? [word, '--help'] : ['--help']
    // With a callback yargs hands the text over instead of printing it (console.log adds the newline).
    out[word] = await new Promise<string>((resolve, reject) => {
      parser(args, args, width).parse(args, {}, (err: Error | undefined, _argv: unknown, output: string) => (err ? reject(err) : resolve(`${output}\n`)))
    })
  }
  return out
}
