/**
 * Transforms on the command line, from the registry in transforms/index.ts:
 * each one is a filter command (`ferry redact`, stdin → stdout) and a flag of
 * `cat` / `convert` (`--redact`, `--truncate '--tool-output 4000'`), applied in
 * the order the flags were given.
 */
import type { Transform } from 'node:stream'
import yargs from 'yargs'
import { UsageError } from '../errors.js'
import { registry, type TransformEntry } from '../../transforms/index.js'

export type TransformSpec = TransformEntry

export async function loadTransforms(): Promise<TransformSpec[]> {
  return registry
}

/** Whether `word` (the next argument) is the option string of `spec`'s flag. */
function isOptionString(spec: TransformSpec, word: string | undefined): word is string {
  return word !== undefined && word.startsWith('--') && (word.includes(' ') || spec.options.some((o) => word === `--${o.name}` || word.startsWith(`--${o.name}=`)))
}

/**
 * Rewrites every transform flag as `--name=OPTIONS`: `--truncate '--tool-output 4000'`
 * and `--truncate --tool-output` become one word, and a bare `--redact` becomes
 * `--redact=`, so yargs never takes a transform's options (or the next REF) for
 * something else. After this, `transformUses` only has one form to read.
 */
export function joinTransformValues(rawArgs: string[], specs: TransformSpec[]): string[] {
  const byName = new Map(specs.map((s) => [s.name, s]))
  const out: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!
    if (a === '--') {
      out.push(...rawArgs.slice(i))
      break
    }
    const spec = a.startsWith('--') && !a.includes('=') ? byName.get(a.slice(2)) : undefined
    if (!spec) out.push(a)
    else if (isOptionString(spec, rawArgs[i + 1])) out.push(`${a}=${rawArgs[++i]}`)
    else out.push(`${a}=`)
  }
  return out
}

export interface TransformUse {
  spec: TransformSpec
  /** The option string given to the flag (`--tool-output 4000`), '' for a bare flag. */
  args: string
}

/** The transform flags of already-joined argv (see joinTransformValues), in order. */
export function transformUses(joinedArgs: string[], specs: TransformSpec[]): TransformUse[] {
  const byName = new Map(specs.map((s) => [s.name, s]))
  const uses: TransformUse[] = []
  for (const a of joinedArgs) {
    if (a === '--') break
    const eq = a.indexOf('=')
    const spec = a.startsWith('--') && eq > 2 ? byName.get(a.slice(2, eq)) : undefined
    if (spec) uses.push({ spec, args: a.slice(eq + 1) })
  }
  return uses
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

export async function buildTransforms(joinedArgs: string[]): Promise<Transform[]> {
  const out: Transform[] = []
  for (const use of transformUses(joinedArgs, registry)) out.push(use.spec.create(await parseTransformArgs(use.spec, use.args)))
  return out
}
