/**
 * Copilot CLI: the facts option parsing, `--help`, `ferry search` and `ferry ls --archive`
 * need, from files that load none of its code (lib/harness/README.md, manifest.ts).
 */
import { defineMeta } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { tools } from './tools.js'

export const meta = defineMeta({
  id: 'copilot',
  name: 'Copilot CLI',
  kind: 'store',
  resumeHint: 'copilot --resume=<id>',
  store, readFlags, writeFlags, tools,
  parts: ['discover', 'read', 'sink'],
})
