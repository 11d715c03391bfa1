/**
 * Streaming the sessions in: every listable store's discovery (the same
 * `discover` that `ferry ls` runs, so the discovery cache makes a second
 * start cheap) and the archive's listing when an archive exists, all at
 * once, handed over in batches so the first rows are on screen long before
 * the last store is read.
 */
import { existsSync } from 'node:fs'
import type { StoreContext } from '../context.js'
import { harnesses } from '../harness/registry.js'
import type { Harness } from '../harness/types.js'
import { rowOf, type Row } from './rows.js'

export interface LoadOptions {
  /** Called with each batch of new rows (at most every `everyMs`, and once at the end). */
  onRows: (rows: Row[]) => void
  /** Default: 40 ms for the first thousand rows, then 250 ms. */
  everyMs?: number
  signal?: AbortSignal
}

/** The stores the picker lists: every listable one that is not a copy (as `ls`). */
export function liveStores(): Harness[] {
  return harnesses.filter((h) => h.discover && !h.holdsCopies)
}

/** The store that holds copies of the others (the archive), if one is registered. */
export function archiveStore(): Harness | undefined {
  return harnesses.find((h) => h.holdsCopies && h.discover)
}

/** Reads every store; resolves when all are listed. A store that fails is reported through ctx.diagnostics by its discovery. */
export async function loadSessions(ctx: StoreContext, opts: LoadOptions): Promise<void> {
  let pending: Row[] = []
  let last = 0
  let sent = 0
  const push = (r: Row) => {
    pending.push(r)
    const now = Date.now()
    // The first row goes out alone: it is what the person waits for. Later batches come less often as the
    // list grows, since each one re-sorts and redraws it.
    const every = opts.everyMs ?? (sent < 1000 ? 40 : 250)
    if (last === 0 || now - last >= every) {
      sent += pending.length
      last = now
      const batch = pending
      pending = []
      opts.onRows(batch)
    }
  }
  const list = async (h: Harness, archiveId?: string) => {
    try {
      for await (const s of h.discover!(ctx, { all: false })) {
        if (opts.signal?.aborted) return
        if (s.archived || s.parent) continue
        push(rowOf(s, archiveId))
      }
    } catch (err) {
      ctx.diagnostics.error('discover-failed', (err as Error).message, undefined, h.id)
    }
  }
  const archive = archiveStore()
  const jobs = liveStores().map((h) => list(h))
  if (archive && existsSync(archive.root(ctx))) jobs.push(list(archive, archive.id))
  await Promise.all(jobs)
  if (pending.length) opts.onRows(pending)
}
