// The help texts rendered at build time (dist/help-<width>.json, which bin/ferry.js prints for `--help`) are what the
// CLI printed before they existed (`main` run without bin/ferry.js), in a pipe and on terminals of several widths.
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import { ferry, ROOT, scaled } from '../kit.js'

// The compiled module (test/run.mjs builds first, the bundle script included), as the bundle script runs it.
const { HELP_WIDTHS, helpWords } = (await import(pathToFileURL(join(ROOT, 'dist', 'lib', 'cli', 'help-text.js')).href)) as typeof import('../../lib/cli/help-text.js')

const built = (w: number): Record<string, string> => JSON.parse(readFileSync(join(ROOT, 'dist', `help-${w}.json`), 'utf8'))

t.test('a help text for every command at every width, wrapped to it', async (t) => {
  const words = await helpWords()
  for (const w of HELP_WIDTHS) {
    t.same(Object.keys(built(w)), words, `width ${w}: ferry --help and every command's`)
    const over = Object.entries(built(w)).flatMap(([word, text]) => text.split('\n').filter((l) => l.length > w).map((l) => `${word}: ${l}`))
    t.same(over, [], `width ${w}: no line is longer`)
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

t.test('on a terminal: the text of its width when one was rendered, else what yargs prints at that width', async (t) => {
  // script(1) gives the CLI a pseudo-terminal of `cols` columns; its output with the CRs the terminal adds removed.
  const onTerminal = (cols: number, line: string) =>
    spawnSync('script', ['-qfec', `stty cols ${cols} rows 50; ${line}`, '/dev/null'], { encoding: 'utf8', timeout: scaled(60_000) }).stdout.replace(/\r/g, '')
  const bin = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin', 'ferry.js'))}`
  t.equal(onTerminal(120, `${bin} ls --help`), built(110).ls, '120 columns: the text rendered at 110')
  const live = `${JSON.stringify(process.execPath)} --input-type=module -e 'import(${JSON.stringify(join(ROOT, 'dist', 'ferry.mjs'))}).then((m) => m.main(["ls", "--help"]))'`
  const narrow = onTerminal(95, `${bin} ls --help`)
  t.equal(narrow, onTerminal(95, live), '95 columns (none rendered): what yargs prints')
  t.not(narrow, built(100).ls, '95 columns: not the pipe\'s text')
})
