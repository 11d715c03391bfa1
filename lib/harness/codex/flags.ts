/** Codex's own options: what a written rollout records as its provider and model. */
import type { Flags, OptionsOf, ReadOptions, WriteOptions } from '../types.js'

export const DEFAULT_PROVIDER = 'openai'
export const DEFAULT_MODEL = 'gpt-5.5'

export const readFlags = {} satisfies Flags

/** On the CLI `--codex-provider` / `--codex-model` (older names `--provider` / `--model`); `opts.provider` / `opts.model` in the library. */
export const writeFlags = {
  provider: {
    type: 'string',
    describe: 'model provider id to record (must be the one your Codex uses; default: model_provider from config.toml, else "openai")',
    aliases: ['provider'],
  },
  model: {
    type: 'string',
    describe: `model to record in turn_context (default: the source model for Codex sources, else model from config.toml, else ${DEFAULT_MODEL})`,
    aliases: ['model'],
  },
} as const satisfies Flags

export type ReadOpts = ReadOptions & OptionsOf<typeof readFlags>
export type WriteOpts = WriteOptions & OptionsOf<typeof writeFlags>
