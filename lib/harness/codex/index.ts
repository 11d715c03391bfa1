import { resolve } from 'node:path'
import type { Harness } from '../types.js'

export const codex: Harness = {
  id: 'codex',
  name: 'Codex CLI',
  envVars: ['CODEX_HOME'],
  rootFlag: { name: 'codex-home', describe: 'Codex home (default $CODEX_HOME, else ~/.codex)' },
  root: (ctx) => ctx.roots.codex ?? ctx.env.CODEX_HOME ?? resolve(ctx.home, '.codex'),
}
