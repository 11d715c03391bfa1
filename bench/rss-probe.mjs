// Preloaded into measured processes (node --import): on exit, writes the
// process's peak RSS (KiB) to $FERRY_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs'

const file = process.env.FERRY_BENCH_RSS_FILE
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)))
