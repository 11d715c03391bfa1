import { resolve } from 'node:path'
import { xdgDir } from '../../context.js'
import type { Harness } from '../types.js'

export const opencode: Harness = {
  id: 'opencode',
  name: 'OpenCode',
  envVars: ['OPENCODE_DB'],
  rootFlag: { name: 'opencode-dir', describe: 'OpenCode data dir (default $XDG_DATA_HOME/opencode, else ~/.local/share/opencode)' },
  root: (ctx) => ctx.roots.opencode ?? resolve(xdgDir(ctx, 'data'), 'opencode'),
}
