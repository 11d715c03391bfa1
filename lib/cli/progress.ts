/**
 * Progress for long work, on stderr and only when stderr is a terminal (never
 * on stdout, never in a pipe or a CI log), silenced by `--quiet`. Built on
 * cli-progress; every long-running command uses this one bar so they look
 * and behave alike: sessions done/total, bytes, rate, ETA.
 */
import cliProgress from 'cli-progress'

export interface ProgressOptions {
  /** Total sessions, when known up front. */
  total?: number
  /** Total bytes, when known (drives rate and ETA). */
  totalBytes?: number
  /** What is being done, e.g. "archive". */
  label: string
  quiet?: boolean
  /** Where to draw; default process.stderr. Must be a TTY for anything to show. */
  stream?: NodeJS.WriteStream
}

export interface Progress {
  /** One more session done, with the bytes it took. */
  tick(bytes?: number, what?: string): void
  /** Bytes read so far within the current session (for one big session). */
  bytes(n: number): void
  /** More records passed (shown while one big session is read). */
  records(n: number): void
  stop(): void
  /** Whether anything is displayed (a terminal, not --quiet): counting for it is worth the work. */
  shown: boolean
}

const NONE: Progress = { tick() {}, bytes() {}, records() {}, stop() {}, shown: false }

function human(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}

export function progress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr
  if (opts.quiet || !stream.isTTY) return NONE
  const started = Date.now()
  let done = 0
  let bytes = 0
  let current = ''
  let records = 0
  const byBytes = opts.totalBytes !== undefined && opts.totalBytes > 0
  // Bytes read: the source text of the records that passed (see `wantsSourceBytes`), at most the total.
  const readBytes = () => (byBytes ? Math.min(bytes, opts.totalBytes!) : bytes)
  const bar = new cliProgress.SingleBar(
    {
      stream,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      fps: 8,
      format: (_o, params) => {
        const secs = Math.max((Date.now() - started) / 1000, 0.001)
        const got = readBytes()
        const perSec = got / secs
        const rate = `${human(perSec)}/s`
        const sessions = opts.total !== undefined ? `${done}/${opts.total} sessions` : `${done} sessions`
        // By bytes: the share of the input read, and the time the rest takes at the rate so far.
        const share = byBytes ? got / opts.totalBytes! : params.progress
        const etaSecs = byBytes ? (perSec > 0 ? (opts.totalBytes! - got) / perSec : NaN) : params.eta
        const eta = etaSecs > 0 && Number.isFinite(etaSecs) ? ` ETA ${Math.ceil(etaSecs)}s` : ''
        const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 70))
        const filled = Math.round(Math.min(1, share) * width)
        const gauge = byBytes || opts.total !== undefined ? `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` : ''
        const recs = records ? ` ${records} records` : ''
        const amount = byBytes ? `${human(got)} of ${human(opts.totalBytes!)} ${Math.floor(share * 100)}%` : human(got)
        return `${opts.label} ${gauge}${sessions}${recs} ${amount} ${rate}${eta} ${current}`.slice(0, (stream.columns ?? 80) - 1)
      },
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(byBytes ? opts.totalBytes! : (opts.total ?? 0), 0)
  const update = () => bar.update(byBytes ? bytes : done)
  return {
    tick(n = 0, what = '') {
      done++
      bytes += n
      current = what
      update()
    },
    bytes(n) {
      bytes += n
      update()
    },
    records(n) {
      records += n
    },
    stop() {
      bar.stop()
    },
    shown: true,
  }
}

/**
 * Whether a run should read the source text of each record (`native`) only to count the bytes
 * read for the display: a conversion to another format keeps none, so one big session showed
 * `0 B 0 B/s` and no ETA. Only when the display is drawn (a terminal, not --quiet).
 */
export function wantsSourceBytes(quiet: boolean, stream: NodeJS.WriteStream = process.stderr): boolean {
  return !quiet && Boolean(stream.isTTY)
}
