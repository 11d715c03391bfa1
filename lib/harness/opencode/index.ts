/**
 * OpenCode: one SQLite database for every session (read-only here), written
 * back through `opencode import` of an export document. See
 * docs/formats/opencode.md.
 */
import type { CliFlag, Harness } from '../types.js'
import { dataDir } from './paths.js'
import { discover, resolveSession } from './discover.js'
import { readSession } from './source.js'
import { openCodeSink } from './sink.js'

export const opencode: Harness = {
  id: 'opencode',
  name: 'OpenCode',
  envVars: ['OPENCODE_DB'],
  rootFlag: {
    name: 'opencode-dir',
    describe: 'OpenCode data dir, or its .db file (default $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode)',
  },
  root: (ctx) => dataDir(ctx),
  discover,
  resolve: resolveSession,
  read: readSession,
  sink: openCodeSink,
}

export const writeFlags: CliFlag[] = [
  { name: 'opencode-provider', type: 'string', describe: 'providerID for written messages (default: guessed from the model name)' },
  { name: 'opencode-model', type: 'string', describe: 'modelID for written messages (default: the source model)' },
  { name: 'opencode-import', type: 'boolean', default: true, describe: 'run `opencode import` after writing into the store (when opencode is on PATH)' },
]
