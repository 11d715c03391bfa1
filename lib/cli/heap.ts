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
