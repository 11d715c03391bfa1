/** ZCode: known so that `--to zcode` says clearly that it is not implemented yet. */
import { resolve } from 'node:path'
import { defineHarness } from '../types.js'
import { tools } from './tools.js'

export const zcode = defineHarness({
  id: 'zcode',
  name: 'ZCode',
  kind: 'store',
  store: { envVars: [], root: (ctx) => ctx.roots.zcode ?? resolve(ctx.home, '.zcode') },
  tools,
})
