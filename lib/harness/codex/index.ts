/**
 * Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/` (plain or
 * `.jsonl.zst`) and `archived_sessions/`. See docs/formats/codex.md.
 */
import { resolve } from 'node:path'
import { defineHarness } from '../types.js'
import { discover, resolve as resolveRef } from './discover.js'
import { readRollout } from './source.js'
import { codexSink } from './sink.js'
import { tools } from './tools.js'

import type { StoreContext } from '../../context.js'

const root = (ctx: StoreContext): string => ctx.roots.codex ?? ctx.env.CODEX_HOME ?? resolve(ctx.home, '.codex')

export const codex = defineHarness({
  id: 'codex',
  name: 'Codex CLI',
  kind: 'store',
  store: {
    envVars: ['CODEX_HOME'],
    flag: { name: 'codex-home', describe: 'Codex home (default $CODEX_HOME, else ~/.codex)' },
    root,
  },
  resumeHint: 'codex resume <id>',
  writeFlags: {
    provider: {
      type: 'string',
      describe: 'model provider id to record (must be the one your Codex uses; default: model_provider from config.toml, else "openai")',
      aliases: ['provider'],
    },
    model: {
      type: 'string',
      describe: 'model to record in turn_context (default: model from config.toml, else the source model for Codex sources, else gpt-5.5)',
      aliases: ['model'],
    },
  },
  discover: (ctx, opts) => discover(root(ctx), opts),
  resolve: (ctx, ref) => resolveRef(ctx, root(ctx), ref),
  read: (ctx, session, opts) => readRollout(ctx, session, opts),
  sink: (ctx, opts) => codexSink(ctx, root(ctx), opts),
  tools,
})
