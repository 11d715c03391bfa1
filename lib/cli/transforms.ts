/**
 * Transforms on the command line. Each spec of the registry in
 * transforms/index.ts, with its CLI adapter (lib/cli/transform-adapters.ts),
 * is a filter command (`ferry redact`, stdin → stdout) and a flag of `cat` /
 * `convert` (`--redact`, `--truncate '--tool-output 4000'`), applied in the
 * order the flags were given. The flags come from the spec's option schema.
 */
import type { Transform } from 'node:stream'
import yargs, { type Argv, type Options as YargsOption } from 'yargs'
import { UsageError } from '../errors.js'
import { registry } from '../../transforms/index.js'
import { choicesOf, flagOf, type Option, type OptionSchema, type OptionsOf, type TransformSpec } from '../../transforms/spec.js'
import { adapters, type TransformAdapter } from './transform-adapters.js'
import type { Args } from './options.js'
import { stageNames } from './salvage.js'

/** A transform as the CLI sees it: the library spec and its adapter. */
export interface CliTransform extends TransformAdapter {
  name: string
  describe: string
  spec: TransformSpec
}

const all: CliTransform[] = registry.map((spec) => ({ name: spec.name, describe: spec.describe, spec, ...(adapters[spec.name] ?? { options: {} }) }))

/** Every registered transform with its adapter, in registry order. */
export function cliTransforms(): CliTransform[] {
  return all
}

/** Every flag of the transform flag (`--redact=…`): the spec's options and the adapter's. */
function flagSchema(t: CliTransform): OptionSchema {
  return { ...t.spec.options, ...t.options }
}

/** Every flag of the filter command (`ferry redact …`): also the command-only ones. */
export function commandSchema(t: CliTransform): OptionSchema {
  return { ...flagSchema(t), ...(t.commandOptions ?? {}) }
}

function lastOf(v: unknown): unknown {
  return Array.isArray(v) ? v[v.length - 1] : v
}

/** The yargs declaration of one schema option; numbers are checked here so `--tool-output abc` is a usage error. */
function yargsOption(key: string, o: Option): YargsOption {
  const flag = flagOf(key, o)
  const describe = o.describe.replace(/`([^`]*)`/g, '$1')
  switch (o.type) {
    case 'boolean':
      return { type: 'boolean', describe, ...(o.default === undefined ? {} : { default: o.default }) }
    case 'number':
      return {
        type: 'number',
        describe,
        requiresArg: true,
        ...(o.default === undefined ? {} : { default: o.default }),
        coerce: (v: unknown) => {
          const n = lastOf(v)
          if (n === undefined) return n
          if (typeof n !== 'number' || !Number.isFinite(n)) throw new UsageError(`--${flag}: expected a number`)
          if (o.integer && !Number.isInteger(n)) throw new UsageError(`--${flag}: expected a whole number, got ${n}`)
          if (o.min !== undefined && n < o.min) throw new UsageError(`--${flag}: must be at least ${o.min}, got ${n}`)
          return n
        },
      }
    case 'string': {
      const choices = choicesOf(o)
      return { type: 'string', describe, requiresArg: true, ...(choices ? { choices: [...choices] } : {}), ...(o.default === undefined ? {} : { default: o.default }) }
    }
    case 'list':
      return { type: 'string', describe: choicesOf(o) ? `${describe} (${choicesOf(o)!.join(',')})` : describe, requiresArg: true }
  }
}

export function addSchemaOptions<T>(y: Argv<T>, schema: OptionSchema): Argv<T> {
  let out = y
  for (const [key, o] of Object.entries(schema)) out = out.option(flagOf(key, o), yargsOption(key, o)) as Argv<T>
  return out
}

/** Splits a comma list option (`a,b` or repeated flags). */
function list(flag: string, o: Option, v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const out = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean)
  const choices = choicesOf(o)
  const bad = choices && out.find((x) => !choices.includes(x))
  if (bad) throw new UsageError(`--${flag}: unknown value "${bad}" (known: ${choices!.join(', ')})`)
  return out.length ? out : undefined
}

/** The options of `schema` from parsed argv, under the schema's keys and types. */
export function optionsFrom(schema: OptionSchema, argv: Args): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, o] of Object.entries(schema)) {
    const flag = flagOf(key, o)
    const raw = argv[flag]
    let v: unknown
    switch (o.type) {
      case 'boolean':
        v = typeof lastOf(raw) === 'boolean' ? lastOf(raw) : undefined
        break
      case 'number':
        v = lastOf(raw)
        break
      case 'string': {
        const s = lastOf(raw)
        v = s === undefined || s === '' ? undefined : String(s)
        break
      }
      case 'list':
        v = list(flag, o, raw)
        break
    }
    if (v !== undefined) out[key] = v
  }
  return out
}

/** Creates the stage for parsed argv, with the adapter's reporting attached. */
export function createStage(t: CliTransform, argv: Args): Transform {
  const cli = optionsFrom(commandSchema(t), argv)
  const opts = optionsFrom(t.spec.options, argv)
  let stream: Transform
  try {
    stream = t.spec.create((t.adjust ? t.adjust(opts, cli) : opts) as OptionsOf<OptionSchema>)
  } catch (err) {
    throw err instanceof UsageError ? new UsageError(inFlags(t, err.message)) : err
  }
  t.attach?.(stream, cli)
  stageNames.set(stream, t.name)
  return stream
}

/**
 * A transform names its library options (`images "extract" needs imagesDir`);
 * on the command line the same message names the flags people type
 * (`--images "extract" needs --images-dir`).
 */
export function inFlags(t: CliTransform, message: string): string {
  let out = message
  for (const [key, o] of Object.entries(t.spec.options)) {
    out = out.replace(new RegExp(`(?<![-\\w])${key}(?![\\w-])`, 'g'), `--${flagOf(key, o as Option)}`)
  }
  return out
}

/** Whether `word` (the next argument) is the option string of `t`'s flag. */
function isOptionString(t: CliTransform, word: string | undefined): word is string {
  if (word === undefined || !word.startsWith('--')) return false
  if (word.includes(' ')) return true
  const flags = Object.entries(flagSchema(t)).flatMap(([k, o]) => [flagOf(k, o), `no-${flagOf(k, o)}`])
  return flags.some((f) => word === `--${f}` || word.startsWith(`--${f}=`))
}

/** Whether `--flag` of `t` takes a value (anything but a boolean). */
function takesValue(t: CliTransform, word: string): boolean {
  const name = word.replace(/^--/, '')
  return Object.entries(flagSchema(t)).some(([k, o]) => flagOf(k, o) === name && o.type !== 'boolean')
}

/** Quotes a word for splitWords when it has spaces. */
function quoteWord(w: string): string {
  return /\s/.test(w) ? `'${w.replace(/'/g, '')}'` : w
}

/**
 * Rewrites every transform flag as `--name=OPTIONS`: `--truncate '--tool-output 4000'`
 * and `--truncate --tool-output` become one word, and a bare `--redact` becomes
 * `--redact=`, so yargs never takes a transform's options (or the next REF) for
 * something else. After this, `transformUses` only has one form to read.
 */
export function joinTransformValues(rawArgs: string[], transforms: CliTransform[]): string[] {
  const byName = new Map(transforms.map((s) => [s.name, s]))
  const out: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!
    if (a === '--') {
      out.push(...rawArgs.slice(i))
      break
    }
    const t = a.startsWith('--') && !a.includes('=') ? byName.get(a.slice(2)) : undefined
    if (!t) out.push(a)
    else if (rawArgs[i + 1]?.includes(' ') && isOptionString(t, rawArgs[i + 1])) out.push(`${a}=${rawArgs[++i]}`)
    else {
      // Unquoted (`--truncate --tool-output 5 --images strip`): take the transform's own
      // flags and the values of those that take one, up to the first word that is neither.
      const words: string[] = []
      while (isOptionString(t, rawArgs[i + 1])) {
        const w = rawArgs[++i]!
        words.push(w)
        if (!w.includes('=') && takesValue(t, w) && rawArgs[i + 1] !== undefined && !rawArgs[i + 1]!.startsWith('--')) words.push(rawArgs[++i]!)
      }
      out.push(`${a}=${words.map(quoteWord).join(' ')}`)
    }
  }
  return out
}

interface TransformUse {
  transform: CliTransform
  /** The option string given to the flag (`--tool-output 4000`), '' for a bare flag. */
  args: string
}

/** The transform flags of already-joined argv (see joinTransformValues), in order. */
function transformUses(joinedArgs: string[]): TransformUse[] {
  const byName = new Map(all.map((s) => [s.name, s]))
  const uses: TransformUse[] = []
  for (const a of joinedArgs) {
    if (a === '--') break
    const eq = a.indexOf('=')
    const t = a.startsWith('--') && eq > 2 ? byName.get(a.slice(2, eq)) : undefined
    if (t) uses.push({ transform: t, args: a.slice(eq + 1) })
  }
  return uses
}

/** Parses a transform flag's own option string with its schema. */
async function parseTransformArgs(t: CliTransform, args: string): Promise<Args> {
  const y = addSchemaOptions(yargs(splitWords(args)).exitProcess(false).strict().help(false).version(false), flagSchema(t)).fail((msg, err) => {
    throw new UsageError(`--${t.name}: ${err?.message ?? msg}`)
  })
  return (await y.parseAsync()) as Args
}

/** Shell-like word splitting for a flag's option string (quotes respected). */
function splitWords(s: string): string[] {
  const out: string[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g
  let m: RegExpExecArray | null
  while ((m = re.exec(s))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!))
  return out
}

/** The stages of every transform flag in joined argv, in the order given. */
export async function buildTransforms(joinedArgs: string[]): Promise<Transform[]> {
  const out: Transform[] = []
  for (const use of transformUses(joinedArgs)) out.push(createStage(use.transform, await parseTransformArgs(use.transform, use.args)))
  return out
}

/**
 * Whether the transform flags of joined argv work session by session (none reports on the whole
 * run), so sessions may pass through separate copies of the stages (`convert --jobs`).
 */
export async function transformsPerSession(joinedArgs: string[]): Promise<boolean> {
  for (const use of transformUses(joinedArgs)) {
    const t = use.transform
    if (t.runWide?.(optionsFrom(commandSchema(t), await parseTransformArgs(t, use.args)))) return false
  }
  return true
}
