/**
 * `ferry quickstart` (what `npm start` runs): find the sessions on this
 * machine — or, when there are none, the bundled sample stores in fixtures/home —
 * convert the newest few into every other harness under ./ferry-out, and
 * list what came out, so a newcomer sees the whole round in one command.
 */
import { existsSync } from 'node:fs'
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Argv } from 'yargs'
import { createContext, type StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { FerryError, UsageError, errorMessage } from '../../errors.js'
import { harnesses, storeEnvVars } from '../../harness/registry.js'
import type { SessionInfo, WrittenSession } from '../../harness/types.js'
import { realpathSync } from 'node:fs'
import which from 'which'
import { commandLine } from '../../app/continue.js'
import { shellQuote } from '../../vocabulary/shell.js'
import { pipeline } from '../../io/pipeline.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics } from '../output.js'
import { sessionTable as lsTable, tableWidth } from '../table.js'

export const command = 'quickstart'
export const describe = 'Convert the newest sessions found here (or the bundled samples) into every other harness under ./ferry-out'

export function builder(y: Argv): Argv {
  return y
    .option('out', { type: 'string', default: 'ferry-out', describe: 'Directory used as the HOME of the converted stores: created, or replaced when an earlier quickstart made it; any other non-empty directory is refused' })
    .option('limit', { type: 'number', default: 3, describe: 'Newest sessions per harness to convert' })
    .option('samples', { type: 'boolean', default: false, describe: 'Use the bundled sample stores even if this machine has sessions' })
    .example('npm start', 'the same as ferry quickstart')
    .example('ferry quickstart --samples', 'only the bundled fixtures')
}

/** The sample HOME shipped with ferry (in a clone and in the package), never one in the current directory. */
function samplesHome(): string {
  // dist/lib/cli/commands → package root, or lib/cli/commands → package root.
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'fixtures', 'home'))) return join(dir, 'fixtures', 'home')
    dir = dirname(dir)
  }
  throw new FerryError('the bundled sample stores (fixtures/home) are missing from this installation', { code: 'unreadable' })
}

/** Marks a directory quickstart made, so a later run may replace it and nothing else. */
const QUICKSTART_MARKER = '.ferry-quickstart'

/**
 * Makes `dir` an empty quickstart HOME. Only a directory that carries the
 * marker (an earlier quickstart made it) is ever deleted; a missing or empty
 * one is taken; anything else is refused, so `--out .` or `--out ~` cannot
 * wipe a user's files.
 */
async function prepareOut(dir: string): Promise<void> {
  const st = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null
    throw err
  })
  if (st && !st.isDirectory()) throw new UsageError(`--out ${dir}: exists and is not a directory; give a new or empty directory`)
  if (st) {
    const entries = await readdir(dir)
    if (entries.includes(QUICKSTART_MARKER)) await rm(dir, { recursive: true, force: true })
    else if (entries.length > 0) throw new UsageError(`--out ${dir}: not empty and not made by ferry quickstart; give a new or empty directory (nothing was deleted)`)
  }
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, QUICKSTART_MARKER), 'made by ferry quickstart; the whole directory is replaced on the next run with this --out\n')
}

async function newest(ctx: StoreContext, limit: number): Promise<SessionInfo[]> {
  const out: SessionInfo[] = []
  for (const h of harnesses) {
    if (!h.discover || !h.read || h.kind === 'stream' || h.holdsCopies) continue
    const mine: SessionInfo[] = []
    try {
      for await (const s of h.discover(ctx, {})) if (!s.parent) mine.push(s)
    } catch (err) {
      ctx.diagnostics.warn('discover-failed', errorMessage(err), undefined, h.id)
    }
    mine.sort((a, b) => (b.updated_at ?? b.created_at ?? '').localeCompare(a.updated_at ?? a.created_at ?? ''))
    out.push(...mine.slice(0, limit))
  }
  return out
}

export async function handler(argv: Args): Promise<void> {
  let ctx = contextFrom(argv)
  const outHome = resolve(String(argv.out))
  await prepareOut(outHome)
  const limit = Number(argv.limit ?? 3)
  let found = argv.samples ? [] : await newest(ctx, limit)
  if (found.length === 0) {
    const home = samplesHome()
    process.stdout.write(`No sessions found on this machine${argv.samples ? ' (or --samples given)' : ''}: using the bundled sample stores in ${home}\n\n`)
    ctx = createContext({ home, storeEnvVars: storeEnvVars(), diagnostics: ctx.diagnostics })
    found = await newest(ctx, limit)
    if (found.length === 0) throw new FerryError(`no sessions in the bundled sample stores at ${home}`, { code: 'no-session', position: { file: home } })
  }
  process.stdout.write(`Sessions to convert:\n${lsTable(found, tableWidth())}\n`)
  const outCtx = createContext({ home: outHome, storeEnvVars: storeEnvVars(), diagnostics: new Diagnostics() })
  const targets = harnesses.filter((h) => h.sink && !h.holdsCopies)
  let ok = 0
  let failed = 0
  // Import documents (OpenCode, Kilo) are not in their agent's database until imported: listed after the table.
  const waiting: Array<WrittenSession & { pending: NonNullable<WrittenSession['pending']> }> = []
  for (const s of found) {
    const from = harnesses.find((h) => h.id === s.harness)!
    for (const to of targets) {
      if (to.id === from.id) continue
      const opts = to.kind === 'stream' ? { out: join(outHome, 'interchange') } : {}
      let sink
      try {
        sink = to.sink!(outCtx, opts)
      } catch (err) {
        // A harness that writes only into a store its agent created (none in this fresh home):
        // a standalone store at the same place instead, so the tour still shows it.
        if (!(err instanceof UsageError)) throw err
        sink = to.sink!(outCtx, { out: to.root(outCtx) })
      }
      const paths: string[] = []
      sink.on('written', (w: WrittenSession) => {
        paths.push(w.note ? `${w.path} (${w.note})` : w.path)
        if (w.pending) waiting.push({ ...w, pending: w.pending })
      })
      try {
        await pipeline(from.read!(ctx, s, { native: true }), sink)
        ok++
        process.stdout.write(`  ${s.sid} → ${to.id}: ${paths.join(', ')}\n`)
      } catch (err) {
        failed++
        process.stdout.write(`  ${s.sid} → ${to.id}: FAILED ${errorMessage(err)}\n`)
      }
    }
  }
  process.stdout.write(`\n${ok} conversions written, ${failed} failed, under ${outHome}\n`)
  const after: SessionInfo[] = []
  for (const h of harnesses) {
    if (!h.discover || h.kind === 'stream' || h.holdsCopies) continue
    for await (const s of h.discover(outCtx, { all: true })) after.push(s)
  }
  const me = invocation()
  const outArg = shellQuote(String(argv.out))
  process.stdout.write(`\nWhat each agent now finds in ${outHome} (${me} ls --home ${outArg} --all):\n${lsTable(after, tableWidth())}`)
  if (waiting.length) {
    process.stdout.write(`\nImport documents, in their agent once imported (the agent's own import command):\n`)
    for (const w of waiting) process.stdout.write(`${w.harness.padEnd(11)} ${w.id}  ${commandLine(w.pending.argv.length ? { argv: w.pending.argv, cwd: w.pending.cwd } : { argv: [], cwd: '.' })}\n`)
  }
  // Next steps that run as printed, from where the quickstart ran (a clone: `npx ferry`).
  const one = after.find((s) => !s.parent) ?? after[0]
  const other = targets.find((h) => h.kind !== 'stream' && h.id !== one?.harness)
  if (one && other) {
    const ref = `${one.harness}:${one.id.slice(0, 8)}`
    const steps: Array<[string, string]> = [
      [`${me} ls --home ${outArg} --all`, 'the table above'],
      [`${me} show --home ${outArg} ${ref} --no-pager | head -20`, 'a session as a conversation'],
      [`${me} convert --home ${outArg} ${ref} --to ${other.id} --dry-run`, 'what a conversion would write (writes nothing)'],
      [`${me} render --home ${outArg} ${ref} --format html --out session.html`, 'writes session.html, a redacted page to share'],
    ]
    const w = Math.max(...steps.map(([c]) => c.length))
    process.stdout.write(`\nNext steps (they read ${outArg} only):\n${steps.map(([c, why]) => `  ${c.padEnd(w)}  # ${why}\n`).join('')}`)
  }
  if (failed > 0) process.exitCode = 1
  finishDiagnostics(ctx.diagnostics)
}

/** How this program was started, for commands to print: its name when that is the one on PATH, else `npx NAME` (a clone). */
function invocation(): string {
  // bin/ferry.js in a clone, the package's bin link once installed: the name either way.
  const name = basename(process.argv[1] ?? '').replace(/\.js$/, '')
  const onPath = which.sync(name, { nothrow: true })
  try {
    if (onPath && process.argv[1] && realpathSync(onPath) === realpathSync(process.argv[1])) return name
  } catch {
    // Not resolvable: the clone's form works from its folder.
  }
  return `npx ${name}`
}
