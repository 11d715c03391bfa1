/**
 * `convert --to archive`: records into the archive database. Ids are the
 * stable record ids, so writing a session the archive already holds merges
 * it (new records added, changed ones updated, nothing duplicated) rather
 * than conflicting; each session is one transaction.
 */
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Writable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { openArchive, type ArchiveDb } from '../../archive/store/db.js'
import { ArchiveWriter } from '../../archive/store/store.js'
import type { EndRec, FerryRecord, SessionRec } from '../../model.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WriteOpts } from './flags.js'
import { HARNESS, store } from './paths.js'

function target(ctx: StoreContext, out?: string): string {
  if (!out) return store.root(ctx)
  const p = resolve(out)
  return existsSync(p) && statSync(p).isDirectory() ? join(p, 'archive.db') : p
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): Writable {
  const path = target(ctx, opts.out)
  let db: ArchiveDb | null = null
  let writer: ArchiveWriter | null = null
  const get = () => {
    if (!writer) {
      db = openArchive(path)
      writer = new ArchiveWriter(db, path)
    }
    return writer
  }
  const close = async () => {
    db?.close()
    db = null
  }
  return new SessionSink(
    ctx,
    HARNESS,
    async (header: SessionRec): Promise<SessionWriter> => {
      const w = get()
      w.begin()
      w.openSession(header)
      return {
        write: (rec: FerryRecord) => w.write(rec),
        finish: async (end?: EndRec) => {
          w.finishSession(end, { complete: false })
          w.commit()
          return { harness: HARNESS, id: header.native_id, path, from: header.sid, ...(header.title ? { title: header.title } : {}) }
        },
        abort: async () => w.rollback(),
      }
    },
    { close, destroy: close, verbatim: true },
  )
}
