/**
 * A transform is a stage plus a spec: a factory of an object-mode Transform
 * and one schema of its options. The schema is the only description of the
 * options: the options type is inferred from it, the CLI builds its flags
 * from it (lib/cli/transforms.ts), and the docs tables are rendered from it
 * (a test fails when docs/transforms.md disagrees).
 */
import type { Transform } from 'node:stream'
import { didYouMean, UsageError } from '../lib/errors.js'

interface OptionBase {
  describe: string
  /** The CLI flag when it is not the kebab-case key (`rulesFile` is `--rules`). */
  flag?: string
}

/** Allowed values; a function when they come from a registry, read when used. */
export type Choices = readonly string[] | (() => readonly string[])

export type Option =
  | (OptionBase & { type: 'boolean'; default?: boolean })
  | (OptionBase & { type: 'number'; default?: number; min?: number; integer?: boolean })
  | (OptionBase & { type: 'string'; default?: string; choices?: Choices })
  /** Several strings: an array in the library, a comma list (or a repeated flag) on the CLI. */
  | (OptionBase & { type: 'list'; choices?: Choices })

export type OptionSchema = Record<string, Option>

type Choice<O> = O extends { choices: readonly (infer C)[] } ? C : string

type ValueOf<O extends Option> = O extends { type: 'boolean' }
  ? boolean
  : O extends { type: 'number' }
    ? number
    : O extends { type: 'list' }
      ? Choice<O>[]
      : Choice<O>

/** The library options a schema declares (every one optional). */
export type OptionsOf<S extends OptionSchema> = { -readonly [K in keyof S]?: ValueOf<S[K]> }

type DefaultedKeys<S extends OptionSchema> = { [K in keyof S]: S[K] extends { default: unknown } ? K : never }[keyof S]

/** Options after `resolveOptions`: those with a default are always set. */
export type ResolvedOptions<S extends OptionSchema> = OptionsOf<S> & { -readonly [K in DefaultedKeys<S>]-?: ValueOf<S[K]> }

export function defineOptions<const S extends OptionSchema>(schema: S): S {
  return schema
}

export function choicesOf(o: Option): readonly string[] | undefined {
  if (o.type !== 'string' && o.type !== 'list') return undefined
  return typeof o.choices === 'function' ? o.choices() : o.choices
}

/** The CLI name of an option: its `flag`, else the kebab-case key. */
export function flagOf(key: string, o: Option): string {
  return o.flag ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

/**
 * Checks library options against the schema (types, choices, number bounds)
 * and fills in defaults. Keys the schema does not declare pass through
 * unchecked (library-only extras such as a shared engine).
 */
export function resolveOptions<S extends OptionSchema, X extends object = {}>(transform: string, schema: S, opts: OptionsOf<S> & X): ResolvedOptions<S> & X {
  const out: Record<string, unknown> = { ...opts }
  for (const [key, o] of Object.entries(schema)) {
    const v = out[key]
    if (v === undefined) {
      if ('default' in o && o.default !== undefined) out[key] = o.default
      continue
    }
    const bad = (what: string): never => {
      throw new UsageError(`${transform}: ${key} ${what} (got ${JSON.stringify(v)})`)
    }
    switch (o.type) {
      case 'boolean':
        if (typeof v !== 'boolean') bad('must be true or false')
        break
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) bad('must be a number')
        if (o.integer && !Number.isInteger(v)) bad('must be a whole number')
        if (o.min !== undefined && (v as number) < o.min) bad(`must be at least ${o.min}`)
        break
      case 'string': {
        if (typeof v !== 'string') bad('must be a string')
        const c = choicesOf(o)
        if (c && !c.includes(v as string)) bad(`must be one of ${c.join(', ')}${didYouMean(String(v), c)}`)
        break
      }
      case 'list': {
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) bad('must be an array of strings')
        const c = choicesOf(o)
        if (c && (v as string[]).some((x) => !c.includes(x))) bad(`values must be among ${c.join(', ')}`)
        break
      }
    }
  }
  return out as ResolvedOptions<S> & X
}

/** A transform: its name (the CLI command and flag), what it does, its options, and its factory. */
export interface TransformSpec<S extends OptionSchema = OptionSchema, T extends Transform = Transform> {
  name: string
  describe: string
  options: S
  create(opts?: OptionsOf<S>): T
}

export function defineTransform<const S extends OptionSchema, T extends Transform>(spec: TransformSpec<S, T>): TransformSpec<S, T> {
  return spec
}
