/**
 * Reading for `stats`: each listed session through its reader (a live store's, or the archive's),
 * one record at a time into the counter. A session a parent's read already carried (sub-agents)
 * is not read again; a session that cannot be read is one located error, and the others count.
 */
import type { StoreContext } from '../context.js'
import { asFerryError } from '../errors.js'
import type { FerryRecord } from '../model.js'
import type { Harness, SessionInfo } from '../harness/types.js'
import { harnesses } from '../harness/registry.js'
import { sessionTime } from '../query/select.js'
import type { NativeRec } from '../model.js'
import type { UsageCounter } from './count.js'

export interface StatsSource {
  /** The harness that reads it: the session's own, or the archive's. */
  reader: Harness
  session: SessionInfo
}

/**
 * Reads the sessions oldest first (then by key), whichever store lists them in whatever order: a
 * response copied into a later session (a resume, a fork) is then counted in the session that
 * made it, and the live stores and the archive attribute every response alike.
 */
export async function countSessions(ctx: StoreContext, sources: AsyncIterable<StatsSource>, counter: UsageCounter): Promise<number> {
  const list: Array<StatsSource & { at: number }> = []
  for await (const s of sources) list.push({ ...s, at: sessionTime(s.session.created_at, s.session.updated_at) })
  list.sort((a, b) => (a.at || 0) - (b.at || 0) || (a.session.sid < b.session.sid ? -1 : a.session.sid > b.session.sid ? 1 : 0))
  let n = 0
  for (const { reader, session } of list) {
    if (counter.has(session.sid)) continue
    n++
    // Native records only where they may carry a billed response: an agent that says so, and the archive (any agent's).
    const native = reader.holdsCopies === true || reader.nativeUsage !== undefined
    try {
      for await (const rec of reader.read!(ctx, session, { native }) as AsyncIterable<FerryRecord>) counter.add(rec, session.harness)
    } catch (err) {
      const e = asFerryError(err, 'unreadable')
      ctx.diagnostics.error(e.code, `not counted: ${e.message}`, e.position ?? { file: session.path }, reader.id)
    }
  }
  return n
}

/** `CountOptions.nativeUsage` from the registry: each agent's own reading of its native records. */
export function nativeUsageOf(agent: string, rec: NativeRec): ReturnType<NonNullable<Harness['nativeUsage']>> {
  return harnesses.find((h) => h.id === agent)?.nativeUsage?.(rec)
}
