import type { Harness } from '../types.js'

export const ferry: Harness = {
  id: 'ferry',
  name: 'ferry interchange stream',
  envVars: [],
  root: (ctx) => ctx.home,
}
