import { build } from 'esbuild'
const r = await build({ entryPoints: { ferry: 'dist/lib/cli/main.js' }, bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, metafile: true, splitting: true, outdir: '/tmp/xx', chunkNames: 'ferry-[name]-[hash]', outExtension: { '.js': '.mjs' }, external: ['better-sqlite3', '@duckdb/node-api', 'ink', 'react'], alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, minifyWhitespace: true, logLevel: 'error' })
const outs = r.metafile.outputs
// static closure of the entry
const seen = new Set(); const st = [Object.keys(outs).find((k) => k.endsWith('/ferry.mjs'))]; console.log(Object.keys(outs).slice(0,3))
while (st.length) { const o = st.pop(); if (seen.has(o)) continue; seen.add(o); for (const i of outs[o].imports) if (i.kind === 'import-statement' && outs[i.path]) st.push(i.path) }
let tot = 0; const by = new Map()
for (const o of seen) { tot += outs[o].bytes; for (const [k, v] of Object.entries(outs[o].inputs)) { const g = k.startsWith('node_modules/') ? k.split('/').slice(0, k.split('/')[1].startsWith('@') ? 3 : 2).join('/') : k.split('/').slice(0, 4).join('/'); by.set(g, (by.get(g) ?? 0) + v.bytesInOutput) } }
console.log('entry static closure', tot, 'bytes in', seen.size, 'files')
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[2] ?? 40))) console.log(String(v).padStart(8), k)
if (process.argv[3]) { const o = Object.keys(outs).find((k) => k.includes(process.argv[3])); if (o) for (const [k, v] of Object.entries(outs[o].inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 25)) console.log('  ', v.bytesInOutput, k) }
for (const o of seen) { console.log('==', o.split('/').pop(), outs[o].bytes); for (const [k, v] of Object.entries(outs[o].inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 8)) console.log('    ', v.bytesInOutput, k) }
