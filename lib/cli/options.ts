/**
 * Options shared by several commands: where the stores are (`--home`, the
 * per-harness root flags), harness-specific read/write flags, and turning
 * parsed argv into a StoreContext. Harness flags follow one naming rule,
 * `--<harness id>-<option>` (`--codex-provider`), with the harness's older
 * names kept as aliases (`--provider`).
 */
import { statSync } from 'node:fs'
import type { Argv } from 'yargs'
import { createContext, type StoreContext } from '../context.js'
import { Diagnostics } from '../diagnostics.js'
import { UsageError } from '../errors.js'
import { manifest, storeEnvVars, type HarnessEntry } from '../harness/manifest.js'
import { flagName, type Flag } from '../harness/types.js'

export type Args = Record<string, unknown>

export function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
}

/** Global options that take a value (so the word after them is not the command). */
export function globalValueFlags(): Set<string> {
  return new Set(['home', 'max-line-bytes', ...manifest.flatMap((h) => (h.store.flag ? [h.store.flag.name] : []))])
}

/** The heading of the options every command takes: listed last in `--help`, after the command's own (as gh does). */
export const GLOBAL = 'Global options:'

export function storeOptions<T>(y: Argv<T>): Argv<T> {
  const envs = storeEnvVars()
  let out = y.option('home', {
    type: 'string',
    describe: `Act as if HOME were DIR for every harness (ignores ${[...envs, 'XDG_*'].join(', ')})`,
    global: true,
    group: GLOBAL,
  }) as Argv<T>
  out = out.option('max-line-bytes', {
    type: 'number',
    describe: 'Longest input line kept (default 256 MiB); longer lines are reported with their position and skipped',
    global: true,
    group: GLOBAL,
  }) as Argv<T>
  out = out.option('quiet', { type: 'boolean', alias: 'q', describe: 'No progress display on stderr (it is shown only when stderr is a terminal)', global: true, group: GLOBAL }) as Argv<T>
  for (const h of manifest) {
    const f = h.store.flag
    if (f) out = out.option(f.name, { type: 'string', describe: f.describe, global: true, group: GLOBAL }) as Argv<T>
  }
  return out
}

interface NamedFlag {
  harness: HarnessEntry
  key: string
  name: string
  flag: Flag
}

function named(kind: 'readFlags' | 'writeFlags'): NamedFlag[] {
  return manifest.flatMap((h) => Object.entries(h[kind]).map(([key, flag]) => ({ harness: h, key, name: flagName(h.id, key), flag })))
}

function addFlags<T>(y: Argv<T>, flags: NamedFlag[], group: string): Argv<T> {
  let out = y
  for (const f of flags) {
    const aliases = (f.flag.aliases ?? []).filter((a) => a !== f.name)
    out = out.option(f.name, {
      type: f.flag.type,
      describe: `${f.harness.name}: ${f.flag.describe}`,
      group,
      ...(aliases.length ? { alias: aliases } : {}),
      ...(f.flag.choices ? { choices: [...f.flag.choices] } : {}),
      ...(f.flag.default === undefined ? {} : { default: f.flag.default }),
    }) as Argv<T>
  }
  return out
}

export function readFlagOptions<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, named('readFlags'), 'Reading:')
}

export function writeFlagOptions<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, named('writeFlags'), 'Writing:')
}

/** The options of one harness from argv, under the keys its flags declare. */
function pick(argv: Args, flags: NamedFlag[], harnessId: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of flags) {
    if (f.harness.id !== harnessId) continue
    const v = argv[f.name]
    if (v !== undefined) out[f.key] = v
  }
  return out
}

export function readOptsFor(argv: Args, harnessId: string): Record<string, unknown> {
  return pick(argv, named('readFlags'), harnessId)
}

export function writeOptsFor(argv: Args, harnessId: string): Record<string, unknown> {
  return pick(argv, named('writeFlags'), harnessId)
}

/** Commands that only read take `--home` as a place that must be there: "no sessions found" would hide the typo. */
export function requireHome(argv: Args): void {
  const home = argv.home
  if (typeof home !== 'string' || !home) return
  let dir = false
  try {
    dir = statSync(home).isDirectory()
  } catch {
    // Missing: reported below.
  }
  if (!dir) throw new UsageError(`--home ${home}: no such directory`)
}

export function contextFrom(argv: Args, diagnostics?: Diagnostics): StoreContext {
  const roots: Record<string, string> = {}
  for (const h of manifest) {
    const v = h.store.flag ? argv[h.store.flag.name] : undefined
    if (typeof v === 'string' && v) roots[h.id] = v
  }
  const mlb = argv['max-line-bytes']
  if (mlb !== undefined && (typeof mlb !== 'number' || !Number.isInteger(mlb) || mlb <= 0)) throw new UsageError(`--max-line-bytes: not a positive whole number of bytes: ${String(mlb)}`)
  return createContext({
    ...(typeof argv.home === 'string' && argv.home ? { home: argv.home } : {}),
    roots,
    storeEnvVars: storeEnvVars(),
    diagnostics: diagnostics ?? new Diagnostics({ json: argv.json === true }),
    ...(typeof mlb === 'number' ? { maxLineBytes: mlb } : {}),
  })
}

/**
 * A single-value option given twice is a usage error, never "the last one wins" or (what yargs
 * does) an array that the command then ignores: `--home A --home B` fell back to the real HOME.
 */
export function rejectRepeated(opts: { array: string[]; string: string[]; number: string[]; alias?: Record<string, string[]> }, argv: Args): void {
  const arrays = new Set(opts.array)
  const seen = new Set<string>()
  for (const key of [...opts.string, ...opts.number]) {
    if (arrays.has(key) || seen.has(key) || !Array.isArray(argv[key])) continue
    for (const a of opts.alias?.[key] ?? []) seen.add(a)
    const values = argv[key] as unknown[]
    throw new UsageError(`--${key} takes one value, got ${values.length} (${values.map(String).join(', ')}); give it once`)
  }
}
