/** Cursor: known so that `--to cursor` says clearly that it is not implemented yet. */
import { resolve } from 'node:path'
import { defineHarness } from '../types.js'
import { tools } from './tools.js'

export const cursor = defineHarness({
  id: 'cursor',
  name: 'Cursor',
  kind: 'store',
  store: { envVars: [], root: (ctx) => ctx.roots.cursor ?? resolve(ctx.home, '.cursor') },
  tools,
})
