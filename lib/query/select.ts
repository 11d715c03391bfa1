/**
 * Selecting sessions by time and working directory, the same way wherever a
 * command takes `--since`/`--until`/`--cwd` (`ls`, `cat --from`, `filter`):
 * one date-or-span parser and one cwd rule.
 */
import { resolve, sep } from 'node:path'
// English only (what --since documents): the package's root builds every locale's parsers at load, 4 MB more heap in every process and thread.
import * as chrono from 'chrono-node/en'
import picomatch from 'picomatch'
import { UsageError } from '../errors.js'

const SPAN_MS = { m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 } as const
// `7d`, and `-7d` (the same span, written as an offset).
const SPAN = /^-?(\d+)\s*([mhdw])$/
// ISO 8601 date or date-time (`T` or a space between), optional seconds, fraction and zone.
const ISO = /^\d{4}-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?$/i

/**
 * A point in time in epoch ms: an ISO date or date-time, a span back from
 * `now` (`30m`, `12h`, `7d`, `2w`, also `-7d`), or a natural date in English
 * (`yesterday`, `3 days ago`, `last monday`, `nov 20 10:00`; chrono-node).
 * A natural date without a time of day is the start of that day for
 * `--since` and its end for `--until`, so `--since yesterday --until
 * yesterday` is all of yesterday. Anything else is a UsageError naming the flag.
 */
export function parseTime(value: string, now: number = Date.now(), flag = 'since'): number {
  const v = value.trim()
  const span = SPAN.exec(v)
  if (span) return now - Number(span[1]) * SPAN_MS[span[2] as keyof typeof SPAN_MS]
  if (ISO.test(v)) {
    const t = Date.parse(v)
    if (!Number.isNaN(t)) return t
  } else {
    const t = naturalTime(v, now, flag === 'until')
    if (t !== undefined) return t
  }
  throw new UsageError(`--${flag}: not a date: ${JSON.stringify(value)} (give an ISO date, a span like 7d, 12h, 30m, 2w, or words like yesterday, 3 days ago)`)
}

function naturalTime(v: string, now: number, end: boolean): number | undefined {
  // The whole value must be the date: `yesterday-ish` is a mistake, not yesterday.
  const [r] = chrono.parse(v, new Date(now), { forwardDate: false })
  if (!r || r.index !== 0 || r.text.length !== v.length) return undefined
  const d = r.start.date()
  if (!r.start.isCertain('hour')) {
    if (end) d.setHours(23, 59, 59, 999)
    else d.setHours(0, 0, 0, 0)
  }
  const t = d.getTime()
  return Number.isNaN(t) ? undefined : t
}

/**
 * The cwd rule. A value with glob characters (`*`, `?`, `[…]`, `{a,b}`) is
 * a glob on the whole path (`**` crosses directories); any other value is a
 * directory (relative to `base`), and matches it and everything below it.
 * A session without a cwd matches neither.
 */
export function cwdMatcher(value: string, base: string = process.cwd()): (cwd: string | undefined) => boolean {
  if (picomatch.scan(value).isGlob) {
    const glob = picomatch(value, { dot: true })
    return (cwd) => cwd !== undefined && cwd !== '' && glob(cwd)
  }
  const dir = resolve(base, value)
  const below = dir.endsWith(sep) ? dir : dir + sep
  return (cwd) => cwd !== undefined && (cwd === dir || cwd.startsWith(below))
}

/** When a session happened, for time selection: the first of the given timestamps that parses. */
export function sessionTime(...stamps: Array<string | undefined>): number {
  for (const s of stamps) {
    const t = s === undefined ? Number.NaN : Date.parse(s)
    if (!Number.isNaN(t)) return t
  }
  return Number.NaN
}
