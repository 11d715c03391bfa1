/**
 * ZCode: one SQLite database for every session (read strictly read-only),
 * written only into a database ZCode created (or a standalone `--out FILE`).
 * See docs/formats/zcode.md and README.md beside this file.
 */
import { defineHarness, type Flags } from '../types.js'
import { ENV_VARS, userRoot } from './paths.js'
import { discover, resolveSession } from './discover.js'
import { readSession } from './source.js'
import { zcodeSink } from './sink.js'
import { tools } from './tools.js'

/** Declared apart from the call so source.ts can type its options from them. */
export const readFlags = {
  inlineArtifacts: { type: 'boolean', describe: 'read images and attachments named zcode-artifact:// from cli/artifacts/, as ZCode does on resume (--no-zcode-inline-artifacts keeps the references)', default: true },
} satisfies Flags

export const zcode = defineHarness({
  id: 'zcode',
  name: 'ZCode',
  kind: 'store',
  store: {
    envVars: ENV_VARS,
    flag: {
      name: 'zcode-home',
      describe: 'ZCode user root (default $ZCODE_DATA_BASE_DIR/.zcode, else $ZCODE_DESKTOP_HOME_DIR/.zcode, else ~/.zcode), or its db.sqlite file',
    },
    root: (ctx) => userRoot(ctx),
  },
  resumeHint: 'zcode --resume <id>',
  readFlags,
  writeFlags: {
    provider: { type: 'string', describe: 'providerId for written sessions (must exist in ZCode\'s config; default: guessed from the model name)' },
    model: { type: 'string', describe: 'modelId for written sessions (default: the source model)' },
  },
  discover,
  resolve: resolveSession,
  read: readSession,
  sink: zcodeSink,
  tools,
})
