/**
 * `ferry/transforms`: the transforms as library calls, and `registry`, the
 * list of their specs (name, describe, option schema, factory) from which
 * lib/cli builds the filter commands (`ferry redact`) and the flags of
 * cat/convert (`--redact`, `--truncate '--tool-output 4000'`). Nothing here
 * prints or sets an exit code: reports are events and properties of the
 * returned streams.
 */
import { filter, filterOptions } from './filter.js'
import { normalizeTools, normalizeToolsOptions } from './normalize-tools.js'
import { redact, redactOptions } from './redact.js'
import { defineTransform, type TransformSpec } from './spec.js'
import { truncate, truncateOptions } from './truncate.js'

export { filter, filterOptions, type FilterOptions, type FilterCount, type FilterStream } from './filter.js'
export { truncate, truncateOptions, type TruncateOptions } from './truncate.js'
export { normalizeTools, normalizeToolsOptions, type NormalizeToolsOptions } from './normalize-tools.js'
export { redact, redactOptions, type RedactTransformOptions, type RedactFinding, type RedactReport, type RedactStream } from './redact.js'
export { Redactor, redactText, type RedactOptions } from '../lib/redact/engine.js'
export { defineTransform, defineOptions, resolveOptions, type TransformSpec, type Option, type OptionSchema, type OptionsOf } from './spec.js'

export const registry: TransformSpec[] = [
  defineTransform({
    name: 'filter',
    describe: 'Select sessions and the records within them (tool pairs stay paired)',
    options: filterOptions,
    create: filter,
  }),
  defineTransform({
    name: 'truncate',
    describe: 'Cap text by block kind (UTF-8 safe, visible cut); strip or extract images',
    options: truncateOptions,
    create: truncate,
  }),
  defineTransform({
    name: 'normalize-tools',
    describe: 'Map tool calls to canonical names and arguments (Claude Code vocabulary), or to one harness with --style',
    options: normalizeToolsOptions,
    create: normalizeTools,
  }),
  defineTransform({
    name: 'redact',
    describe: 'Remove secrets (and optionally home paths, user names, e-mails) everywhere in a session',
    options: redactOptions,
    create: redact,
  }),
]
