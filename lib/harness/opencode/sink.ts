/**
 * Writing sessions for OpenCode: the family's export-document sink
 * (`family/opencode-export.ts`) with OpenCode's database, client, default
 * agent `build` and the version ferry was verified against. The database is
 * never written by ferry; `opencode import` does that.
 */
import { documentSink, type DocumentTarget } from '../family/opencode-export.js'
import { dataDir, layout, primaryDb } from './paths.js'

export const target: DocumentTarget = { layout, name: 'OpenCode', bin: 'opencode', agent: 'build', version: '1.18.33', dataDir, primaryDb }

export const sink = documentSink(target)
