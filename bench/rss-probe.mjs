// Preloaded into measured processes (node --import): on exit, writes the
// process's peak RSS (KiB) and CPU time (µs, user + system) to $FERRY_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs'

const file = process.env.FERRY_BENCH_RSS_FILE
if (file)
  process.on('exit', () => {
    const u = process.resourceUsage()
    writeFileSync(file, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}`)
  })
