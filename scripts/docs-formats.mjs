// npm run docs:formats: rewrites the compatibility table of docs/formats/README.md from lib/harness/*/doctor.ts (built into dist/).
import { readFileSync, writeFileSync } from 'node:fs'
import { compatTable, splicedCompat } from '../dist/lib/doctor/compat-table.js'

const doc = new URL('../docs/formats/README.md', import.meta.url)
writeFileSync(doc, splicedCompat(readFileSync(doc, 'utf8'), compatTable()))
process.stdout.write('docs/formats/README.md updated\n')
