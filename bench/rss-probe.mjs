// Preloaded into measured processes (node --import): on exit, appends one line
// to $FERRY_BENCH_RSS_FILE with the process's peak RSS (KiB), CPU time (µs, user
// + system), and the largest young generation and V8 heap (KiB) its main thread
// had after a collection. A command ferry runs in a second Node process
// (lib/cli/relaunch.ts) passes this preload on, so there are two lines: the
// launcher's and the command's. Worker threads load it too; only the main
// thread writes (RSS and CPU time are the process's).
import { appendFileSync } from 'node:fs'
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import { isMainThread } from 'node:worker_threads'

const file = process.env.FERRY_BENCH_RSS_FILE
if (file && isMainThread) {
  let young = 0
  let heap = 0
  const sample = () => {
    young = Math.max(young, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0)
    heap = Math.max(heap, getHeapStatistics().total_heap_size)
  }
  const gcs = new PerformanceObserver(sample)
  gcs.observe({ entryTypes: ['gc'] })
  process.on('exit', () => {
    sample()
    gcs.disconnect()
    const u = process.resourceUsage()
    appendFileSync(file, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime} ${Math.round(young / 1024)} ${Math.round(heap / 1024)}\n`)
  })
}
