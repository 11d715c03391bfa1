#!/usr/bin/env node
// `npm run fuzz`: the fault campaign of the fault suite (fuzz/campaign.mjs),
// with many more runs per reader. Builds first, like `npm test`.
// Usage: npm run fuzz [-- --runs N --surface-runs N --seed S --only NAME]. Prints the counts table
// (in total, per line reader and per surface scenario) and exits 1 when any count but inputs is not
// zero. --only runs the surface scenarios whose names contain NAME (repeatable) and no line readers.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
const only = process.argv.flatMap((a, i) => (a === '--only' ? [process.argv[i + 1]] : []))
const runs = only.length ? 0 : arg('runs', 300)
const seed = arg('seed', Date.now() % 1_000_000)

const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root], { stdio: 'inherit' })
if (tsc.status !== 0) process.exit(1)

const { campaign } = await import('./campaign.mjs')
const t0 = Date.now()
let last = 0
const { totals, failures, perTarget = {} } = await campaign({
  runs,
  seed,
  onProgress: (t) => {
    if (Date.now() - last > 5000) {
      last = Date.now()
      process.stderr.write(`  … ${t.inputs} inputs\n`)
    }
  },
})
// #47: real processes against the surfaces beyond the line readers (fuzz/surfaces.mjs).
const surfaceRuns = arg('surface-runs', 6)
const { surfaces } = await import('./surfaces.mjs')
const more = await surfaces({ runs: surfaceRuns, seed, only, onProgress: () => {} })
for (const k of Object.keys(more.totals)) totals[k] = (totals[k] ?? 0) + more.totals[k]
failures.push(...more.failures)
const rows = [
  ['inputs', totals.inputs],
  ['crashes', totals.crashes],
  ['hangs', totals.hangs],
  ['lost records', totals.lost],
  ['sources changed', totals.changed],
  ['partial outputs left', totals.partial],
  ['escapes', totals.escapes],
]
console.log(`fuzz: seed ${seed}, ${runs} runs per reader, ${surfaceRuns} per surface scenario (${Object.keys((await import('./surfaces.mjs')).SCENARIOS).length}), ${((Date.now() - t0) / 1000).toFixed(0)} s`)
console.log('| count | value |\n|---|---|')
for (const [k, v] of rows) console.log(`| ${k} | ${v} |`)
const COLS = ['inputs', 'crashes', 'hangs', 'lost', 'changed', 'partial', 'escapes']
console.log(`\n| reader or scenario | runs | crashes | hangs | lost | sources changed | partial outputs | escapes |\n|---|---|---|---|---|---|---|---|`)
for (const [name, c] of [...Object.entries(perTarget), ...Object.entries(more.perScenario)]) console.log(`| ${name} | ${COLS.map((k) => c[k] ?? 0).join(' | ')} |`)
for (const f of failures.slice(0, 20)) console.log(`\n${f.target} ${JSON.stringify(f.mutation)}\n  ${f.notes.join('\n  ').slice(0, 2000)}`)
process.exit(rows.slice(1).some(([, v]) => v !== 0) ? 1 : 0)
