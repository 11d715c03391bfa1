#!/usr/bin/env node
// Only starts the CLI: argument parsing and everything else live in lib/cli.
// dist/ferry.mjs is that code bundled into one module (scripts/bundle.mjs).
// On Node ≥ 22.1, Node's compile cache keeps the bundle's compiled code
// between runs (in Node's own cache directory, os.tmpdir()/node-compile-cache
// unless NODE_COMPILE_CACHE says otherwise; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): a quarter less CPU for every short command. Node 20 has no cache.
// A command that streams whole sessions runs in a second Node process started
// with V8 heap flags, which Node reads only at startup (lib/cli/relaunch.ts).
// `ferry --version` alone needs only the version: it loads nothing else
// (docs/performance.md, "Start-up"); `ferry [COMMAND] --help` prints the
// text rendered at build time when it was rendered at this width
// (lib/cli/help-text.ts; docs/performance.md, "Start-up and `ls`, second
// round (issue #49)"); a plain line of a quick command (`search`, `ls`) runs
// without the parser (lib/cli/quick.ts).
import module from 'node:module'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The command word of `--help`, `-h`, `WORD --help`, `help` or `help WORD` ('' for none), or null for any other command line. */
function helpWord(args) {
  const isHelp = (a) => a === '--help' || a === '-h'
  const word = (a) => a !== undefined && /^[a-z][a-z-]*$/.test(a)
  if (args.length === 1 && isHelp(args[0])) return ''
  if (args.length === 2 && isHelp(args[1]) && word(args[0]) && args[0] !== 'help') return args[0]
  if (args[0] === 'help' && (args.length === 1 || (args.length === 2 && word(args[1]) && args[1] !== 'help'))) return args[1] ?? ''
  return null
}

/** The help text rendered at build time for `word` at this output's width, if there is one. */
function builtHelp(word) {
  if (word === null) return undefined
  // As helpWidth() in lib/cli/help.ts.
  const width = Math.min(110, process.stdout.isTTY ? process.stdout.columns || 100 : 100)
  try {
    const texts = JSON.parse(readFileSync(new URL(`../dist/help-${width}.json`, import.meta.url), 'utf8'))
    return Object.hasOwn(texts, word) ? texts[word] : undefined
  } catch {
    return undefined
  }
}

/** The quick commands' options (dist/quick-argv.json), when this line names one of them. */
function quickSpecs() {
  try {
    const specs = JSON.parse(readFileSync(new URL('../dist/quick-argv.json', import.meta.url), 'utf8'))
    return args.some((a) => Object.hasOwn(specs, a)) ? specs : undefined
  } catch {
    return undefined
  }
}

module.enableCompileCache?.()
const args = process.argv.slice(2)
const help = builtHelp(helpWord(args))
// A reader that went away (`ferry --help | head -1`) is success, as everywhere in ferry (lib/cli/output.ts).
const quietEpipe = () =>
  process.stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err
  })
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/lib/version.js')
  quietEpipe()
  process.stdout.write(`${VERSION}\n`)
} else if (help !== undefined) {
  quietEpipe()
  process.stdout.write(help)
} else {
  const { nodeFlagsFor, relaunch, watchLauncher } = await import('../dist/lib/cli/relaunch.js')
  const flags = nodeFlagsFor(args)
  if (!flags.length || !(await relaunch(flags, fileURLToPath(import.meta.url), args))) {
    watchLauncher()
    const specs = quickSpecs()
    if (!specs || !(await (await import('../dist/ferry-quick.mjs')).quickMain(args, specs))) {
      const { main } = await import('../dist/ferry.mjs')
      main(args)
    }
  }
}
