/**
 * One `ferry archive` run: the database opened (and held) for that run only, the given stores or
 * sessions synced into it, closed again. The command, the watch loop and the agents' hooks run it.
 */
import type { StoreContext } from '../context.js'
import { lockError, openArchive } from '../archive/store/db.js'
import { syncArchive, type SyncFilter, type SyncHooks, type SyncSource, type SyncSummary, type ReadAheadFactory } from '../archive/sync.js'
import type { Harness } from '../harness/types.js'

export interface PassOptions {
  /** The archive database. */
  path: string
  sources: Harness[]
  filter?: SyncFilter
  waitMs: number
  readers?: ReadAheadFactory
  hooks?: SyncHooks
}

export async function archivePass(ctx: StoreContext, o: PassOptions): Promise<SyncSummary> {
  const db = openArchive(o.path, { waitMs: o.waitMs })
  try {
    return await syncArchive(ctx, db, o.path, o.sources as unknown as SyncSource[], o.filter ?? {}, o.hooks ?? {}, o.waitMs, o.readers).catch((err: unknown) => {
      throw lockError(o.path, err, o.waitMs) ?? err
    })
  } finally {
    db.close()
  }
}

/** The one-line account of a run, as `ferry archive` prints it. */
export function passLine(path: string, sum: SyncSummary): string {
  const s = sum.sessions
  return `ferry: archive ${path}: ${s.added} added, ${s.updated} updated, ${s.unchanged} unchanged, ${s.gone} gone from source, ${s.failed} failed; ${sum.records.added} records added${sum.records.changed ? `, ${sum.records.changed} changed` : ''}; ${mib(sum.bytes)} read`
}

function mib(n: number): string {
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`
}
