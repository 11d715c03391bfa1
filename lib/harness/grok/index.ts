import { resolve } from 'node:path'
import type { Harness } from '../types.js'

export const grok: Harness = {
  id: 'grok',
  name: 'Grok Build',
  envVars: ['GROK_HOME'],
  rootFlag: { name: 'grok-home', describe: 'Grok home (default $GROK_HOME, else ~/.grok)' },
  root: (ctx) => ctx.roots.grok ?? ctx.env.GROK_HOME ?? resolve(ctx.home, '.grok'),
}
