// The help texts rendered at build time (dist/help-<width>.json, which bin/ferry.js prints for `--help`) are what the
// parser renders now, at each width, and what the CLI printed before they existed: `main` run without bin/ferry.js.
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import { ferry, ROOT } from '../kit.js'

// The compiled module (test/run.mjs builds first), as the bundle script runs it: the sources would be compiled again here.
const { HELP_WIDTHS, helpTexts } = (await import(pathToFileURL(join(ROOT, 'dist', 'lib', 'cli', 'help-text.js')).href)) as typeof import('../../lib/cli/help-text.js')

const built = (w: number): Record<string, string> => JSON.parse(readFileSync(join(ROOT, 'dist', `help-${w}.json`), 'utf8'))

t.test('every built help text is what the parser renders now, at every width', async (t) => {
  for (const w of HELP_WIDTHS) {
    const now = await helpTexts(w)
    t.same(Object.keys(built(w)), Object.keys(now), `width ${w}: the same commands`)
    for (const [word, text] of Object.entries(now)) t.equal(built(w)[word], text, `width ${w}: ferry ${word ? `${word} ` : ''}--help`)
  }
})

t.test('bin/ferry.js prints the built text; the live parser prints the same', async (t) => {
  // The CLI's main, started without bin/ferry.js: yargs renders the help (stdout a pipe: width 100).
  const live = async (args: string[]) =>
    (await promisify(execFile)(process.execPath, ['--input-type=module', '-e', `import { main } from ${JSON.stringify(join(ROOT, 'dist', 'ferry.mjs'))}; main(${JSON.stringify(args)})`])).stdout
  for (const [args, word] of [[['--help'], ''], [['ls', '--help'], 'ls'], [['help', 'search'], 'search'], [['-h'], '']] as const) {
    const r = await ferry([...args])
    t.equal(r.code, 0, `ferry ${args.join(' ')}: exit 0`)
    t.equal(r.stdout, built(100)[word], `ferry ${args.join(' ')}: the built text`)
    // Two of them through yargs too (each live run is a third of a CPU-second).
    if (args.length === 1 ? args[0] === '--help' : args[0] === 'ls') t.equal(r.stdout, await live([...args]), `ferry ${args.join(' ')}: what yargs prints`)
  }
  // Anything else goes to the parser: an unknown command is still a usage error.
  const bad = await ferry(['nope', '--help'])
  t.equal(bad.code, 2, 'an unknown command: exit 2')
  t.match(bad.stderr, /unknown command "nope"/)
})
