/**
 * How far V8 lets the heap grow past what its last full collection kept.
 * By default up to four times, chosen for speed; ferry's live set is small
 * and steady (records stream through, indexes live off the heap), so that
 * factor, not what is live, decided its peak RSS: a 1 GiB
 * `convert --redact` kept 15–31 MB live yet grew the heap to 140 MB. At
 * 1.5 times its peak RSS went from 225 to 171 MiB in the bench (issue #20),
 * at the same speed. The flag is read at each collection, so setting it at
 * startup works; it is the process's, so the threads started later (zstd
 * decoder, archive readers) follow it too. The CLI's only: a library user
 * owns their process's flags. A `--heap-growing-percent` given on Node's
 * command line wins (Node refuses it in NODE_OPTIONS).
 */
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

const HEAP_GROWING_PERCENT = 50

export function tuneHeap(): void {
  if (!flagGiven('heap-growing-percent')) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  capYoungGeneration()
}

function flagGiven(name: string): boolean {
  const re = new RegExp(`^--(no[-_])?${name.replace(/-/g, '[-_]')}\\b`)
  return process.execArgv.some((a) => re.test(a))
}

/**
 * The young generation (two semi-spaces) is capped at 16 MB. V8 doubles it
 * up to 32 MB while a stream keeps many objects alive across scavenges,
 * and never gives it back; capped, the bench's 1 GiB Codex → Claude Code
 * conversion ran at the same speed with peak RSS 136 → 115 MiB, and with
 * `--redact` 166 → 148 MiB (by hand, two runs each; issue #20).
 * `--max-semi-space-size` would say it, but V8 reads it only when a heap is
 * set up; what it reads at each scavenge is the growth factor. So the
 * factor is V8's 2 until the young generation reaches the cap, then 1,
 * checked after each collection (a `gc` performance entry). V8 raises a
 * factor under 2 back to 2 whenever it sets up a heap, and the flag is the
 * process's: a thread's start resets it, so the check sets it again
 * (`reassertYoungGeneration` right after a thread starts). Either flag on
 * Node's command line wins.
 */
const YOUNG_CAP_BYTES = 16 * 1024 * 1024
const GROWTH_DEFAULT = 2

/** What the young generation may grow to: 0 holds it where it is. */
let youngCap = YOUNG_CAP_BYTES
let watcher: PerformanceObserver | null = null
let factorSet = GROWTH_DEFAULT

function youngSize(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
}

/** Sets the growth factor the cap calls for now; `force` when something else may have reset it. */
function applyYoungCap(force = false): void {
  const want = youngSize() >= youngCap ? 1 : GROWTH_DEFAULT
  if (want === factorSet && !(force || want === 1)) return
  factorSet = want
  setFlagsFromString(`--semi-space-growth-factor=${want}`)
}

function capYoungGeneration(): void {
  if (watcher || flagGiven('semi-space-growth-factor') || flagGiven('max-semi-space-size')) return
  watcher = new PerformanceObserver(() => applyYoungCap())
  watcher.observe({ entryTypes: ['gc'] })
}

/**
 * `ferry archive`'s main thread, while reader threads parse and hand it
 * rows as bytes, only writes: it allocates little, and little of it lives.
 * Yet discovering 10,000 sessions before that made V8 grow its young
 * generation, which it never gives back. Held at its size when the command
 * starts (2 MB), the writer writes at the same speed, and the run's peak
 * RSS fell by about 25 MiB (bench, issue #16). A thread that parses
 * sessions itself needs the room (one 1 GiB rollout took 35 s instead of
 * 27), so the archive lets it grow to the cap again as soon as it reads a
 * session in this thread.
 */
export function holdYoungGeneration(): void {
  youngCap = 0
  if (watcher) applyYoungCap(true)
}

export function releaseYoungGeneration(): void {
  youngCap = YOUNG_CAP_BYTES
  if (watcher) applyYoungCap(true)
}

/** Call once a thread started since the CLI did is running: its heap's setup reset the growth factor. */
export function reassertYoungGeneration(): void {
  if (watcher) applyYoungCap(true)
}

/**
 * Threads started after this call optimize their hot functions on their
 * own thread, not on V8's shared background threads. Those threads each
 * kept a malloc arena of about 9 MB (compiler zones, freed but not given
 * back); with `ferry archive`'s reader threads compiling for themselves
 * the bench's first archive peaked about 17 MiB lower at the same speed
 * (medians of three, issue #16). The flag is read when a thread's heap is
 * set up, so the main thread keeps compiling in the background; a
 * `--concurrent-recompilation` given on Node's command line wins.
 */
export function compileInNewThreads(): void {
  if (!flagGiven('concurrent-recompilation')) setFlagsFromString('--no-concurrent-recompilation')
}

/**
 * Threads started after this call begin with semi-spaces of `mb` MB (V8
 * lowers it to a thread's own cap): what they would grow to if the growth
 * factor, the process's, were not held for the main thread. A
 * `--min-semi-space-size` given on Node's command line wins.
 */
export function startThreadsYoung(mb: number): void {
  if (!flagGiven('min-semi-space-size')) setFlagsFromString(`--min-semi-space-size=${mb}`)
}
