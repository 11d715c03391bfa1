/**
 * Options shared by several commands: where the stores are (`--home`, the
 * per-harness root flags), harness-specific read/write flags, and turning
 * parsed argv into a StoreContext.
 */
import type { Argv } from 'yargs'
import { createContext, type StoreContext } from '../context.js'
import { Diagnostics } from '../diagnostics.js'
import { harnesses, storeEnvVars } from '../harness/registry.js'
import type { CliFlag } from '../harness/types.js'
import type { HarnessId } from '../model.js'

export type Args = Record<string, unknown>

export function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
}

export function storeOptions<T>(y: Argv<T>): Argv<T> {
  let out = y.option('home', {
    type: 'string',
    describe: 'Act as if HOME were DIR for every harness (ignores CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_*, …)',
    global: true,
  }) as Argv<T>
  out = out.option('max-line-bytes', {
    type: 'number',
    describe: 'Longest input line kept (default 256 MiB); longer lines are reported with their position and skipped',
    global: true,
  }) as Argv<T>
  for (const h of harnesses) {
    if (h.rootFlag) out = out.option(h.rootFlag.name, { type: 'string', describe: h.rootFlag.describe, global: true }) as Argv<T>
  }
  return out
}

function addFlags<T>(y: Argv<T>, flags: CliFlag[], group: string): Argv<T> {
  const seen = new Set<string>()
  let out = y
  for (const f of flags) {
    if (seen.has(f.name)) continue
    seen.add(f.name)
    out = out.option(f.name, { type: f.type, describe: f.describe, group, ...(f.default === undefined ? {} : { default: f.default }) }) as Argv<T>
  }
  return out
}

export function readFlagOptions<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, harnesses.flatMap((h) => h.readFlags ?? []), 'Reading:')
}

export function writeFlagOptions<T>(y: Argv<T>): Argv<T> {
  return addFlags(y, harnesses.flatMap((h) => h.writeFlags ?? []), 'Writing:')
}

function pick(argv: Args, flags: CliFlag[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of flags) {
    const v = argv[f.name]
    if (v !== undefined) out[camel(f.name)] = v
  }
  return out
}

export function readOptsFrom(argv: Args): Record<string, unknown> {
  return pick(argv, harnesses.flatMap((h) => h.readFlags ?? []))
}

export function writeOptsFrom(argv: Args): Record<string, unknown> {
  return pick(argv, harnesses.flatMap((h) => h.writeFlags ?? []))
}

export function contextFrom(argv: Args, diagnostics?: Diagnostics): StoreContext {
  const roots: Partial<Record<HarnessId, string>> = {}
  for (const h of harnesses) {
    const v = h.rootFlag ? argv[h.rootFlag.name] : undefined
    if (typeof v === 'string' && v) roots[h.id] = v
  }
  return createContext({
    ...(typeof argv.home === 'string' && argv.home ? { home: argv.home } : {}),
    roots,
    storeEnvVars: storeEnvVars(),
    diagnostics: diagnostics ?? new Diagnostics(),
    ...(typeof argv['max-line-bytes'] === 'number' && argv['max-line-bytes'] > 0 ? { maxLineBytes: argv['max-line-bytes'] } : {}),
  })
}
