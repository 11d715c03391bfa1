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
import type { NativeRec } from '../model.js'
import type { UsageCounter } from './count.js'

export interface StatsSource {
  /** The harness that reads it: the session's own, or the archive's. */
  reader: Harness
  session: SessionInfo
}

export async function countSessions(ctx: StoreContext, sources: AsyncIterable<StatsSource>, counter: UsageCounter): Promise<number> {
  let n = 0
  for await (const { reader, session } of sources) {
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
