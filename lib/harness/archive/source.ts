/** Reading an archived session (lib/archive/ does the storage). */
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { openArchive } from '../../archive/store/db.js'
import { archivedRecords } from '../../archive/store/store.js'
import type { ArchiveDb } from '../../archive/store/db.js'
import { readableOf } from '../../io/drain.js'
import type { FerryRecord, NativePass } from '../../model.js'
import type { SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { store } from './paths.js'
import { asDiagnostic } from '../../diagnostics.js'

export function read(ctx: StoreContext, session: SessionInfo, opts: ReadOpts = {}): Readable {
  const path = session.locator.db ?? store.root(ctx)
  const db = openArchive(path, { readonly: true })
  const onBadRow = (e: unknown) => ctx.diagnostics.report({ ...asDiagnostic(e), source: 'archive' })
  const r = readableOf(withForkHistory(db, archivedRecords(db, session.sid, { native: opts.native === true, onBadRow }), opts.native === true, onBadRow))
  r.once('close', () => db.close())
  return r
}

/** How deep a chain of forks is followed. */
const MAX_FORKS = 32

/**
 * A fork's inherited history, from the archive: a fork's records are archived without the ones it
 * inherited (they keep the parent's ids and are the parent's rows), so after a fork's header come
 * the parent's archived records up to the one it branched off at (`parent.at`), then its own. The
 * parent's rows stay in the archive when its source is gone, so the fork reads whole.
 */
async function* withForkHistory(db: ArchiveDb, recs: AsyncIterable<FerryRecord>, native: boolean, onBadRow: (e: unknown) => void, depth = 0): AsyncGenerator<FerryRecord> {
  for await (const rec of recs) {
    yield rec
    if (rec.kind !== 'session') continue
    const link = rec.parent
    if (!link || link.kind !== 'fork' || !link.at || depth >= MAX_FORKS) continue
    for await (const p of withForkHistory(db, archivedRecords(db, link.sid, { native, children: false, onBadRow }), native, onBadRow, depth + 1)) {
      if (p.kind === 'session' || p.kind === 'end' || p.kind === 'stream') continue
      yield { ...p, sid: rec.sid }
      if (p.id === link.at) break
    }
  }
}

/** Archived records keep what their own harness wrote, native included: any harness may restore them. */
export function ownsNative(_native: NativePass): boolean {
  return false
}
