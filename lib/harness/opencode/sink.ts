/**
 * Writing sessions for OpenCode: into a database with OpenCode 2's tables,
 * rows in `session_v2`/`session_message` (family/opencode-v2-write.ts); into
 * a 1.x database, the family's export-document sink (family/opencode-export.ts)
 * handed to `opencode import`, which writes the rows. `--opencode-schema v2`
 * with `--out` writes a `SessionTransfer` document for `opencode2 import`.
 * What is OpenCode's: its database, client, default agent `build` and the
 * versions ferry was verified against.
 */
import { schemaSink, type SchemaTarget } from '../family/opencode-v2-write.js'
import { dataDir, layout, primaryDb } from './paths.js'

export const target: SchemaTarget = { layout, name: 'OpenCode', bin: 'opencode', agent: 'build', version: '1.18.33', v2Version: '2.0.4', dataDir, primaryDb }

export const sink = schemaSink(target)
