/**
 * Writing sessions for Kilo: the family's export-document sink
 * (`family/opencode-export.ts`) handed to `kilo import`, which is OpenCode's
 * import kept by the fork (docs/formats/kilo.md §Writing says why not rows).
 * What is Kilo's: its database and client, the default agent `code`
 * (OpenCode's `build`), and the version ferry was verified against.
 */
import { documentSink, type DocumentTarget } from '../family/opencode-export.js'
import { dataDir, layout, primaryDb } from './paths.js'

export const target: DocumentTarget = { layout, name: 'Kilo', bin: 'kilo', agent: 'code', version: '7.7.7', dataDir, primaryDb }

export const sink = documentSink(target)
