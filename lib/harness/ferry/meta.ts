/**
 * ferry interchange stream: the facts option parsing, `--help`, `ferry search` and `ferry ls --archive`
 * need, from files that load none of its code (lib/harness/README.md, manifest.ts).
 */
import { defineMeta } from '../types.js'
import { store } from './paths.js'
import { readFlags, writeFlags } from './flags.js'
import { tools } from './tools.js'

export const meta = defineMeta({
  id: 'ferry',
  name: 'ferry interchange stream',
  kind: 'stream',
  store, readFlags, writeFlags, tools,
  // One file per session, each written under a temp name and linked into place (sink.ts).
  independentSessions: true,
  parts: ['read', 'sink'],
})
