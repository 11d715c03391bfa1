// The quick parser (lib/cli/quick-argv.ts, what bin/ferry.js runs for a plain line of `search` or `ls`) against yargs
// itself: on every line it takes, the handler gets what yargs would have handed it; a line yargs refuses, it declines.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ferry, ROOT } from '../kit.js'

// The compiled modules, as the bundle script runs them (test/run.mjs builds first).
const dist = (p: string): string => pathToFileURL(join(ROOT, 'dist', 'lib', 'cli', p)).href
const { QUICK_COMMANDS, quickSpecs } = (await import(dist('quick-spec.js'))) as typeof import('../../lib/cli/quick-spec.js')
const { quickParse } = (await import(dist('quick-argv.js'))) as typeof import('../../lib/cli/quick-argv.js')
const { commandModules, commandName, loadCommands, parser } = (await import(dist('main.js'))) as typeof import('../../lib/cli/main.js')

const specs = await quickSpecs()
await loadCommands([...QUICK_COMMANDS])

/** What yargs hands the command's handler for `args`, or the error it fails with. */
async function yargsArgv(args: string[]): Promise<{ argv?: Record<string, unknown>; error?: string }> {
  let argv: Record<string, unknown> | undefined
  const modules = commandModules(args).map((m) => ({ ...m, handler: (a: Record<string, unknown>) => void (argv = { ...a }) }))
  try {
    // With a callback yargs hands over what it would print (a help text) instead of printing it.
    await new Promise<void>((resolve, reject) => {
      parser(args, args, 100, modules).parse(args, {}, (err: Error | undefined) => (err ? reject(err) : resolve()))
    })
  } catch (err) {
    return { error: (err as Error).message }
  }
  return argv ? { argv } : { error: 'no handler ran (help or version printed)' }
}

/** A deterministic stream of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const VALUES = ['5', '05', '0', '1.5', '1e3', '0x10', '', 'claude-code', 'codex', 'user', 'assistant', 'title', 'created', 'true', 'false', '7d', 'npm run', 'é ü', '42', '/tmp/x.db']
const ODD = ['--', '-', '-3d', '-nq', '--json=true', '--no-json', '--nope', '-x', '--limit=3', '--query', 'help', '---']

function line(word: string, next: () => number): string[] {
  const spec = specs[word]!
  const names = [...spec.boolean, ...spec.string, ...spec.number].map((n) => (n.length === 1 ? `-${n}` : `--${n}`))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!
  // Sometimes options before the word: global ones (taken), or the command's own (left to yargs).
  const before = next() < 0.3 ? [pick([...spec.global.map((g) => (g.length === 1 ? `-${g}` : `--${g}`)), '--json', '--limit']), pick(VALUES)] : []
  const out = [...before, word]
  const n = Math.floor(next() * 6)
  for (let i = 0; i < n; i++) {
    const r = next()
    out.push(r < 0.5 ? pick(names) : r < 0.85 ? pick(VALUES) : pick(ODD))
  }
  return out
}

t.test('every quick command has a spec read from the parser, and the build wrote the same', async (t) => {
  t.same(Object.keys(specs).sort(), [...QUICK_COMMANDS].sort(), 'search and ls are quick')
  t.same(JSON.parse(readFileSync(join(ROOT, 'dist', 'quick-argv.json'), 'utf8')), specs, 'dist/quick-argv.json is the parser of this build')
})

t.test('plain lines are taken, and mean what yargs says', async (t) => {
  const plain: string[][] = [
    ['search', 'npm', 'run'],
    ['search', '--db', '/tmp/a.db', '--limit', '5', 'connection', 'refused'],
    ['search', '--json', '--harness', 'codex', 'claude-code', '--role', 'user', 'deploy'],
    ['search', 'migration', '--tool', 'Bash', '--since', '30d', '--home', '/tmp/h'],
    ['ls'],
    ['ls', '--archive', '--db', '/tmp/a.db', '-n', '5'],
    ['ls', '--json', '--harness', 'codex', '--harness', 'pi', '--sort', 'title', '--reverse', '--max-line-bytes', '1024'],
    ['ls', '--cwd', '/srv/app', '--until', 'yesterday', '-q', '--all'],
    ['--home', '/tmp/h', 'ls', '--json'],
    ['--db', '/tmp/a.db', '-q', 'search', '--limit', '3', 'npm'],
  ]
  for (const args of plain) {
    const quick = quickParse(args, specs[args.find((a) => Object.hasOwn(specs, a))!]!)
    t.ok(quick, `taken: ${args.join(' ')}`)
    t.same(quick, (await yargsArgv(args)).argv, `the same argv: ${args.join(' ')}`)
  }
})

t.test('on generated lines: what quick takes yargs parses the same; what yargs refuses quick declines', async (t) => {
  const next = random(49)
  let taken = 0
  let refused = 0
  const wrong: string[] = []
  for (const word of QUICK_COMMANDS) {
    for (let i = 0; i < 400; i++) {
      const args = line(word, next)
      const quick = quickParse(args, specs[word]!)
      const y = await yargsArgv(args)
      if (y.error !== undefined) refused++
      if (!quick) continue
      taken++
      if (y.error !== undefined) wrong.push(`${JSON.stringify(args)}: quick took it, yargs refused it (${y.error})`)
      else if (JSON.stringify(Object.entries(quick).sort()) !== JSON.stringify(Object.entries(y.argv!).sort())) wrong.push(`${JSON.stringify(args)}: ${JSON.stringify(quick)} against ${JSON.stringify(y.argv)}`)
    }
  }
  t.same(wrong.slice(0, 10), [], `${wrong.length} lines parsed otherwise`)
  t.notOk(quickParse(['search', '--help'], specs.search!) ?? quickParse(['ls', '-V'], specs.ls!), '--help and --version are left to yargs')
  t.notOk(quickParse(['--json', 'ls'], specs.ls!) ?? quickParse(['--home', '/h', 'cat', 'ls'], specs.ls!), "a command's own option before its word, or another word first, is left to yargs")
  t.ok(taken > 150, `quick took ${taken} of 800 lines`)
  t.ok(refused > 60, `yargs refused ${refused} of them (the generator reaches its errors)`)
})

t.test('the CLI: a line quick declines still runs through yargs, with its errors', async (t) => {
  const bad = await ferry(['search', '--limit=x', 'word'])
  t.equal(bad.code, 2, 'a usage error, as before')
  t.match(bad.stderr, /--limit/, 'naming the flag')
  t.notMatch(bad.stderr, /\n\s+at /, 'no stack trace')
  const repeated = await ferry(['ls', '--sort', 'title', '--sort', 'cwd'])
  t.equal(repeated.code, 2, 'a repeated option is refused by the parser')
})
