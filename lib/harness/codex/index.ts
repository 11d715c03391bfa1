/**
 * Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/` (plain or
 * `.jsonl.zst`) and `archived_sessions/`. See docs/formats/codex.md.
 */
import { resolve } from 'node:path'
import type { CliFlag, Harness } from '../types.js'
import { discover, resolve as resolveRef } from './discover.js'
import { readRollout } from './source.js'
import { codexSink } from './sink.js'

export const writeFlags: CliFlag[] = [
  {
    name: 'provider',
    type: 'string',
    describe: 'Codex model provider id to record (must be the one your Codex uses; default: model_provider from config.toml, else "openai")',
  },
  {
    name: 'model',
    type: 'string',
    describe: 'model to record in turn_context (default: model from config.toml, else the source model for Codex sources, else gpt-5.5)',
  },
]

export const codex: Harness = {
  id: 'codex',
  name: 'Codex CLI',
  envVars: ['CODEX_HOME'],
  rootFlag: { name: 'codex-home', describe: 'Codex home (default $CODEX_HOME, else ~/.codex)' },
  root: (ctx) => ctx.roots.codex ?? ctx.env.CODEX_HOME ?? resolve(ctx.home, '.codex'),
  writeFlags,
  discover(ctx, opts) {
    return discover(codex.root(ctx), opts)
  },
  resolve(ctx, ref) {
    return resolveRef(ctx, codex.root(ctx), ref)
  },
  read(ctx, session, opts) {
    return readRollout(ctx, session, opts)
  },
  sink(ctx, opts) {
    return codexSink(ctx, codex.root(ctx), opts)
  },
}
