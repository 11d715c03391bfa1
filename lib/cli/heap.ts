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
import { setFlagsFromString } from 'node:v8'

const HEAP_GROWING_PERCENT = 50

export function tuneHeap(): void {
  if (process.execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}

/**
 * `ferry archive`'s main thread, while reader threads parse and hand it
 * rows as bytes, only writes: it allocates little, and little of it lives.
 * Yet discovering 10,000 sessions before that made V8 double its young
 * generation up to 32 MB (two 16 MB semi-spaces), which it never gives
 * back. Held at its size when the command starts (2 MB), the writer writes
 * at the same speed, and the run's peak RSS fell by about 25 MiB (bench,
 * issue #16). A thread that parses sessions itself needs the room (one
 * 1 GiB rollout took 35 s instead of 27), so the archive lets it grow
 * again as soon as it reads a session in this thread. The growth factor is
 * read at each scavenge; a `--semi-space-growth-factor` given on Node's
 * command line wins.
 */
const SEMI_SPACE_GROWTH_DEFAULT = 2

function semiSpaceFlagGiven(): boolean {
  return process.execArgv.some((a) => /^--semi[-_]space[-_]growth[-_]factor\b/.test(a))
}

export function holdYoungGeneration(): void {
  if (!semiSpaceFlagGiven()) setFlagsFromString('--semi-space-growth-factor=1')
}

export function releaseYoungGeneration(): void {
  if (!semiSpaceFlagGiven()) setFlagsFromString(`--semi-space-growth-factor=${SEMI_SPACE_GROWTH_DEFAULT}`)
}
