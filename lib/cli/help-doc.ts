/**
 * The generated half of docs/cli.md: `ferry --help` and every command's
 * `--help`, exactly as the CLI prints them in a pipe (100 columns), so the
 * reference is the parser's own definitions. `npm run docs:cli` rewrites
 * the part of docs/cli.md below the marker; test/core/cli-doc.test.ts
 * fails when they differ.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { commandModules, commandName, loadCommands } from './main.js'

// The CLI loads a command's module when it runs; the reference lists every one.
await loadCommands()

/** The program's own name (as scriptName in main.ts), for the overview heading. */
const PROGRAM = 'ferry --help'.split(' ')[0]!

export const MARKER = '<!-- Everything below is generated from the CLI definitions by `npm run docs:cli`; a test compares it with --help. -->'

/** The package root: from dist/lib/cli or from lib/cli (the sources, under a test runner). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'bin', 'ferry.js')) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
}

const ROOT = packageRoot()
const BIN = join(ROOT, 'bin', 'ferry.js')
export const DOC = join(ROOT, 'docs', 'cli.md')

/** Every command a user can type, in `--help` order. */
export function documentedCommands(): string[] {
  return commandModules([])
    .filter((m) => m.describe !== false)
    .map(commandName)
}

async function help(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args, '--help'], { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 4 << 20 })
  return stdout
}

export async function generated(): Promise<string> {
  const cmds = documentedCommands()
  const texts = await Promise.all([help([]), ...cmds.map((c) => help([c]))])
  const block = (title: string, text: string) => `### ${title}\n\n\`\`\`text\n${text.trimEnd()}\n\`\`\`\n`
  return [`## Commands\n`, block(PROGRAM, texts[0]!), ...cmds.map((c, i) => block(`ferry ${c}`, texts[i + 1]!))].join('\n')
}

/** docs/cli.md with its generated part replaced. */
export function spliced(doc: string, gen: string): string {
  const at = doc.indexOf(MARKER)
  const head = at === -1 ? doc.trimEnd() + '\n\n' : doc.slice(0, at)
  return `${head}${MARKER}\n\n${gen}`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const doc = readFileSync(DOC, 'utf8')
  writeFileSync(DOC, spliced(doc, await generated()))
  process.stdout.write(`${DOC} updated\n`)
}
