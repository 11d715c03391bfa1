/**
 * Grok Build (`grok`, xAI's terminal coding agent): sessions are directories
 * `$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/` (see docs/formats/grok.md).
 */
import { resolve } from 'node:path'
import type { Harness } from '../types.js'
import { discoverSessions, resolveSession } from './discover.js'
import { grokSink } from './sink.js'
import { readSession } from './source.js'

// Grok uses GROK_HOME only when it is set and non-empty (xai-grok-home/src/lib.rs).
const root: Harness['root'] = (ctx) => ctx.roots.grok ?? (ctx.env.GROK_HOME || resolve(ctx.home, '.grok'))

export const grok: Harness = {
  id: 'grok',
  name: 'Grok Build',
  envVars: ['GROK_HOME'],
  rootFlag: { name: 'grok-home', describe: 'Grok home (default $GROK_HOME, else ~/.grok)' },
  root,
  discover: (ctx, opts) => discoverSessions(ctx, root(ctx), opts),
  resolve: (ctx, ref) => resolveSession(ctx, root(ctx), ref),
  read: (ctx, info, opts) => readSession(ctx, info, opts),
  sink: (ctx, opts = {}) => grokSink(ctx, opts, root(ctx)),
}
