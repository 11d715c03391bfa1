/**
 * Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/` (plain or
 * `.jsonl.zst`) and `archived_sessions/`. See docs/formats/codex.md.
 */
import { resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import { defineHarness } from '../types.js'
import { discover, resolve as resolveRef } from './discover.js'
import { codexSink, writeFlags } from './sink.js'
import { readRollout } from './source.js'
import { tools } from './tools.js'

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
  writeFlags,
  discover: (ctx, opts) => discover(ctx, root(ctx), opts),
  resolve: (ctx, ref) => resolveRef(ctx, root(ctx), ref),
  read: (ctx, session, opts) => readRollout(ctx, session, opts),
  sink: (ctx, opts) => codexSink(ctx, root(ctx), opts),
  tools,
})
