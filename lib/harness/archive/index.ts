/**
 * The ferry archive as a store (kind `store`): an SQLite database holding
 * copies of every other harness's sessions (`ferry archive` fills it). It
 * lists, resolves and reads archived sessions like any store, and is a sink
 * (`convert --to archive`). Because it holds copies, it is left out where
 * "every store" is meant (plain `ls`, bare-id refs, `ferry archive` itself)
 * and used where asked for by name or with `--archive`. See README,
 * "Archive and search", and docs/formats/archive.md.
 */
import { EMPTY_VOCABULARY } from '../../vocabulary/types.js'
import { ARCHIVE_ENV } from '../../archive/store/db.js'
import { defineHarness } from '../types.js'
import { archiveRoot, discoverArchived, readArchived, resolveArchived } from './source.js'
import { archiveSink } from './sink.js'

export const archive = defineHarness({
  id: 'archive',
  name: 'ferry archive',
  kind: 'store',
  holdsCopies: true,
  store: {
    envVars: [ARCHIVE_ENV],
    flag: { name: 'db', describe: `The archive database (default $${ARCHIVE_ENV}, else $XDG_DATA_HOME/ferry/archive.db)` },
    root: archiveRoot,
  },
  discover: discoverArchived,
  resolve: resolveArchived,
  read: readArchived,
  sink: archiveSink,
  // Archived records keep what their own harness wrote, native included: any harness may restore them.
  ownsNative: () => false,
  tools: EMPTY_VOCABULARY,
})
