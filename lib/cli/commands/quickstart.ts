/**
 * `ferry quickstart` (what `npm start` runs): find the sessions on this
 * machine — or, when there are none, the bundled sample stores in fixtures/home —
 * convert the newest few into every other harness under ./ferry-out, and
 * list what came out, so a newcomer sees the whole round in one command.
 */
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Argv } from 'yargs'
import { createContext, type StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { UsageError, errorMessage } from '../../errors.js'
import { harnesses, storeEnvVars } from '../../harness/registry.js'
import type { SessionInfo } from '../../harness/types.js'
import { pipeline } from '../../pipeline.js'
import { contextFrom, type Args } from '../options.js'
import { finishDiagnostics, lsTable } from '../io.js'

export const command = 'quickstart'
export const describe = 'Convert the newest sessions found here (or the bundled samples) into every other harness under ./ferry-out'

export function builder(y: Argv): Argv {
  return y
    .option('out', { type: 'string', default: 'ferry-out', describe: 'Directory used as the HOME of the converted stores (replaced on each run)' })
    .option('limit', { type: 'number', default: 3, describe: 'Newest sessions per harness to convert' })
    .option('samples', { type: 'boolean', default: false, describe: 'Use the bundled sample stores even if this machine has sessions' })
    .example('npm start', 'the same as ferry quickstart')
    .example('ferry quickstart --samples', 'only the bundled fixtures')
}

function samplesHome(): string {
  // dist/lib/cli/commands → repo root, or lib/cli/commands → repo root.
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'fixtures', 'home'))) return join(dir, 'fixtures', 'home')
    dir = dirname(dir)
  }
  return resolve('fixtures/home')
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
  const limit = Number(argv.limit ?? 3)
  let found = argv.samples ? [] : await newest(ctx, limit)
  if (found.length === 0) {
    const home = samplesHome()
    process.stdout.write(`No sessions found on this machine${argv.samples ? ' (or --samples given)' : ''}: using the bundled sample stores in ${home}\n\n`)
    ctx = createContext({ home, storeEnvVars: storeEnvVars(), diagnostics: ctx.diagnostics })
    found = await newest(ctx, limit)
  }
  process.stdout.write(`Sessions to convert:\n${lsTable(found)}\n`)
  const outHome = resolve(String(argv.out))
  await rm(outHome, { recursive: true, force: true })
  const outCtx = createContext({ home: outHome, storeEnvVars: storeEnvVars(), diagnostics: new Diagnostics() })
  const targets = harnesses.filter((h) => h.sink && !h.holdsCopies)
  let ok = 0
  let failed = 0
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
      sink.on('written', (w: { path: string; note?: string }) => paths.push(w.note ? `${w.path} (${w.note})` : w.path))
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
  process.stdout.write(`\nWhat each agent now finds in ${outHome} (ferry ls --home ${String(argv.out)} --all):\n${lsTable(after)}`)
  if (failed > 0) process.exitCode = 1
  finishDiagnostics(ctx.diagnostics)
}
