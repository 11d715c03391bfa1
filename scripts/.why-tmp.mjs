import { build } from 'esbuild'
const r = await build({ entryPoints: { ferry: 'dist/lib/cli/main.js' }, bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, metafile: true, splitting: true, outdir: '/tmp/xx', external: ['better-sqlite3', '@duckdb/node-api', 'ink', 'react'], alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, logLevel: 'error' })
const ins = r.metafile.inputs
// BFS over static imports from main, record parent
const start = 'dist/lib/cli/main.js'; const par = new Map([[start, null]]); const q = [start]
while (q.length) { const f = q.shift(); for (const i of ins[f]?.imports ?? []) if (i.kind === 'import-statement' || i.kind === 'require-call') { if (!par.has(i.path)) { par.set(i.path, f); q.push(i.path) } } }
for (const target of process.argv.slice(2)) { const t = [...par.keys()].find((k) => k.includes(target)); let c = t, chain = []; while (c) { chain.push(c); c = par.get(c) } console.log(target, ':', t ? chain.reverse().join(' -> ') : 'not static') }
