/**
 * Transforms on the command line, from the registry in transforms/index.ts:
 * each one is a filter command (`ferry redact`, stdin → stdout) and a flag of
 * `cat` / `convert` (`--redact`, `--truncate '--tool-output 4000'`), applied in
 * the order the flags were given.
 */
import type { Transform } from 'node:stream'
import yargs from 'yargs'
import { UsageError } from '../errors.js'
import type { CliFlag } from '../harness/types.js'
import type { StoreContext } from '../context.js'

export interface TransformSpec {
  name: string
  describe: string
  options: CliFlag[]
  /** Builds the stream from parsed options (camelCase and dashed keys both present). */
  create(argv: Record<string, unknown>, ctx?: StoreContext): Transform
  /** Extra examples for the command's --help. */
  examples?: Array<[string, string]>
  /** Handles the whole command itself when it returns true (e.g. `redact --text`). */
  command?(argv: Record<string, unknown>, ctx: StoreContext): Promise<boolean>
}

let cache: TransformSpec[] | null = null

/** The registry, loaded at run time so the CLI works while transforms are optional. */
export async function loadTransforms(): Promise<TransformSpec[]> {
  if (cache) return cache
  try {
    const mod = (await import(new URL('../../transforms/index.js', import.meta.url).href)) as { registry?: TransformSpec[] }
    cache = mod.registry ?? []
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err
    cache = []
  }
  return cache
}

/** Flag name on cat/convert for a transform. */
export function flagName(spec: TransformSpec): string {
  return spec.name
}

export interface TransformUse {
  spec: TransformSpec
  /** The option string given to the flag (`--tool-output 4000`), '' for a bare flag. */
  args: string
}

/**
 * Finds transform flags in raw argv, in order. `--truncate '--tool-output 4000'`,
 * `--truncate=--tool-output=4000` and a bare `--redact` are all accepted.
 */
export function transformUses(rawArgs: string[], specs: TransformSpec[]): TransformUse[] {
  const byName = new Map(specs.map((s) => [flagName(s), s]))
  const uses: TransformUse[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!
    if (a === '--') break
    if (!a.startsWith('--')) continue
    const eq = a.indexOf('=')
    const name = a.slice(2, eq < 0 ? undefined : eq)
    const spec = byName.get(name)
    if (!spec) continue
    if (eq >= 0) uses.push({ spec, args: a.slice(eq + 1) })
    else {
      const next = rawArgs[i + 1]
      // The value is the next word when it starts with "--" and contains a space or is one of this transform's options.
      if (next !== undefined && next.startsWith('--') && (next.includes(' ') || spec.options.some((o) => next === `--${o.name}` || next.startsWith(`--${o.name}=`)))) {
        uses.push({ spec, args: next })
        i++
      } else uses.push({ spec, args: '' })
    }
  }
  return uses
}

/**
 * Rewrites `--truncate '--tool-output 4000'` as `--truncate=--tool-output 4000`
 * so that yargs takes the quoted options as the flag's value instead of
 * parsing them as options of the command itself.
 */
export function joinTransformValues(rawArgs: string[], specs: TransformSpec[]): string[] {
  const out: string[] = []
  const uses = new Set(specs.map(flagName))
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!
    if (a === '--') {
      out.push(...rawArgs.slice(i))
      break
    }
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : ''
    const spec = uses.has(name) ? specs.find((s) => flagName(s) === name)! : undefined
    const next = rawArgs[i + 1]
    if (spec && next !== undefined && next.startsWith('--') && (next.includes(' ') || spec.options.some((o) => next === `--${o.name}` || next.startsWith(`--${o.name}=`)))) {
      out.push(`${a}=${next}`)
      i++
    } else if (spec) out.push(`${a}=`) // a bare flag: never let yargs take the next word (a REF) as its value
    else out.push(a)
  }
  return out
}

/** Parses a transform's own option string with its option table. */
export async function parseTransformArgs(spec: TransformSpec, args: string | string[]): Promise<Record<string, unknown>> {
  let y = yargs(Array.isArray(args) ? args : splitWords(args)).exitProcess(false).strict().help(false).version(false)
  for (const o of spec.options) y = y.option(o.name, { type: o.type, describe: o.describe, ...(o.default === undefined ? {} : { default: o.default }) })
  y = y.fail((msg, err) => {
    throw err ?? new UsageError(`--${spec.name}: ${msg}`)
  })
  return (await y.parseAsync()) as Record<string, unknown>
}

/** Shell-like word splitting for a flag's option string (quotes respected). */
export function splitWords(s: string): string[] {
  const out: string[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g
  let m: RegExpExecArray | null
  while ((m = re.exec(s))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!))
  return out
}

export async function buildTransforms(rawArgs: string[], ctx: StoreContext): Promise<Transform[]> {
  const specs = await loadTransforms()
  const out: Transform[] = []
  for (const use of transformUses(rawArgs, specs)) out.push(use.spec.create(await parseTransformArgs(use.spec, use.args), ctx))
  return out
}
