/** Reading an archived session (lib/archive/ does the storage). */
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { openArchive } from '../../archive/store/db.js'
import { archivedStream } from '../../archive/store/store.js'
import type { NativePass } from '../../model.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { store } from './paths.js'
import { asDiagnostic } from '../../diagnostics.js'

export function read(ctx: StoreContext, session: SessionInfo, opts: ReadOpts = {}): Readable {
  const path = session.locator.db ?? store.root(ctx)
  const db = openArchive(path, { readonly: true })
  return archivedStream(db, session.sid, { native: opts.native === true, onBadRow: (e) => ctx.diagnostics.report({ ...asDiagnostic(e), source: 'archive' }) }, () => db.close())
}

/** Archived records keep what their own harness wrote, native included: any harness may restore them. */
export function ownsNative(_native: NativePass): boolean {
  return false
}
