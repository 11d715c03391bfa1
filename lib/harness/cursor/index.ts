import { resolve } from 'node:path'
import type { Harness } from '../types.js'

/** Not implemented yet: no issue covers Cursor. Known so that `--to cursor` says so clearly. */
export const cursor: Harness = {
  id: 'cursor',
  name: 'Cursor',
  envVars: [],
  root: (ctx) => ctx.roots.cursor ?? resolve(ctx.home, '.cursor'),
}
