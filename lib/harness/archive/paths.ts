/** Where the archive is: one SQLite file (lib/archive/ does the storage). */
import { ARCHIVE_ENV, defaultArchivePath } from '../../archive/store/db.js'
import type { StoreSpec } from '../types.js'

export const HARNESS = 'archive'

/** The archive file: `--db`, else `$FERRY_ARCHIVE`, else `$XDG_DATA_HOME/ferry/archive.db`. */
export const store: StoreSpec = {
  envVars: [ARCHIVE_ENV],
  flag: { name: 'db', describe: `The archive database (default $${ARCHIVE_ENV}, else $XDG_DATA_HOME/ferry/archive.db)` },
  root: (ctx) => ctx.roots[HARNESS] ?? defaultArchivePath(ctx),
}
