import { resolve } from 'node:path'
import type { Harness } from '../types.js'

/** Not implemented yet: no issue covers ZCode. Known so that `--to zcode` says so clearly. */
export const zcode: Harness = {
  id: 'zcode',
  name: 'ZCode',
  envVars: [],
  root: (ctx) => ctx.roots.zcode ?? resolve(ctx.home, '.zcode'),
}
