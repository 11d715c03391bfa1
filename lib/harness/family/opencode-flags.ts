/**
 * The provider and model a written session names: the `provider` and `model`
 * write flags every format of the family takes, and their defaults (the
 * source's, else a provider guessed from the model name).
 */
import type { SessionRec } from '../../model.js'
import type { Flags, OptionsOf, WriteOptions } from '../types.js'

/** How a format words the two flags: its field names and what it writes them on. */
export interface ModelFlagWords {
  /** The provider field as the format spells it (`providerID`, `providerId`). */
  provider: string
  /** The model field as the format spells it (`modelID`, `modelId`). */
  model: string
  /** What carries them: `messages`, `sessions`. */
  on: string
  /** What a provider must be, said before its default. */
  providerNote?: string
}

/** The `provider` and `model` write flags. */
export function modelFlags(w: ModelFlagWords) {
  return {
    provider: { type: 'string', describe: `${w.provider} for written ${w.on} (${w.providerNote ? `${w.providerNote}; ` : ''}default: guessed from the model name)` },
    model: { type: 'string', describe: `${w.model} for written ${w.on} (default: the source model)` },
  } satisfies Flags
}

/** A model name's provider beyond the common ones, as `[pattern, provider]`. */
export type ProviderRule = readonly [RegExp, string]

/** Best guess of the provider from a model name, for sessions from other harnesses; `more` rules are tried after the common ones. */
export function guessProvider(model: string | undefined, more: readonly ProviderRule[] = []): string {
  const m = (model ?? '').toLowerCase()
  if (/claude|opus|sonnet|haiku/.test(m)) return 'anthropic'
  if (/^(gpt|o\d|codex|chatgpt)/.test(m)) return 'openai'
  if (m.startsWith('grok')) return 'xai'
  if (m.startsWith('gemini')) return 'google'
  for (const [re, provider] of more) if (re.test(m)) return provider
  return 'unknown'
}

/** The model and provider written: the flags', else the source session's, else the model's guessed provider. */
export function targetModel(opts: { model?: string; provider?: string }, header: SessionRec, more: readonly ProviderRule[] = []): { model: string; provider: string } {
  const model = opts.model ?? header.model ?? 'unknown'
  return { model, provider: opts.provider ?? header.provider ?? guessProvider(model, more) }
}

/**
 * The write flags of a member written as export documents: provider and model
 * on messages, and whether to hand each document to `<bin> import`.
 */
export function documentFlags(bin: string) {
  return {
    ...modelFlags({ provider: 'providerID', model: 'modelID', on: 'messages' }),
    import: { type: 'boolean', default: true, describe: `run \`${bin} import\` after writing into the store (when ${bin} is on PATH)` },
  } satisfies Flags
}

/** The options of a document sink. */
export type DocumentWriteOpts = WriteOptions & OptionsOf<ReturnType<typeof documentFlags>>
