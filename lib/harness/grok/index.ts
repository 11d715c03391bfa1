/**
 * Grok Build (`grok`, xAI's terminal coding agent): sessions are directories
 * `$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/` (see docs/formats/grok.md).
 */
import { resolve } from 'node:path'
import { defineHarness } from '../types.js'
import { discoverSessions, resolveSession } from './discover.js'
import { grokSink } from './sink.js'
import { readSession } from './source.js'
import { tools } from './tools.js'

import type { StoreContext } from '../../context.js'

// Grok uses GROK_HOME only when it is set and non-empty (xai-grok-home/src/lib.rs).
const root = (ctx: StoreContext): string => ctx.roots.grok ?? (ctx.env.GROK_HOME || resolve(ctx.home, '.grok'))

export const grok = defineHarness({
  id: 'grok',
  name: 'Grok Build',
  kind: 'store',
  store: {
    envVars: ['GROK_HOME'],
    flag: { name: 'grok-home', describe: 'Grok home (default $GROK_HOME, else ~/.grok)' },
    root,
  },
  resumeHint: 'grok --resume <id>',
  discover: (ctx, opts) => discoverSessions(ctx, root(ctx), opts),
  resolve: (ctx, ref) => resolveSession(ctx, root(ctx), ref),
  read: (ctx, info, opts) => readSession(ctx, info, opts),
  sink: (ctx, opts) => grokSink(ctx, opts, root(ctx)),
  tools,
})
