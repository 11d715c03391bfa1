/**
 * OpenCode: one SQLite database for every session (read-only here), written
 * back through `opencode import` of an export document. See
 * docs/formats/opencode.md.
 */
import { defineHarness } from '../types.js'
import { dataDir } from './paths.js'
import { discover, resolveSession } from './discover.js'
import { readSession } from './source.js'
import { openCodeSink } from './sink.js'
import { tools } from './tools.js'

export const opencode = defineHarness({
  id: 'opencode',
  name: 'OpenCode',
  kind: 'store',
  store: {
    envVars: ['OPENCODE_DB'],
    flag: {
      name: 'opencode-dir',
      describe: 'OpenCode data dir, or its .db file (default $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode)',
    },
    root: (ctx) => dataDir(ctx),
  },
  resumeHint: 'opencode --session <id>',
  // `--out FILE` is one `opencode export` document.
  oneSessionPerFile: true,
  writeFlags: {
    provider: { type: 'string', describe: 'providerID for written messages (default: guessed from the model name)' },
    model: { type: 'string', describe: 'modelID for written messages (default: the source model)' },
    import: { type: 'boolean', default: true, describe: 'run `opencode import` after writing into the store (when opencode is on PATH)' },
  },
  discover,
  resolve: resolveSession,
  read: readSession,
  sink: openCodeSink,
  tools,
})
