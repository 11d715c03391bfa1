/**
 * A forked rollout's inherited history. A fork (`codex exec fork ID`, `/fork`)
 * holds only its own turns; its session_meta names the parent
 * (`forked_from_id`) and where the fork starts (`history_base`: the parent's
 * rollout id and `end_ordinal_exclusive`). Codex replays the parent's records
 * before that ordinal first, and so does ferry: right after the fork's header
 * come the parent's records (a fork of a fork: the grandparent's first),
 * keeping the parent's record ids, then the fork's own. A parent that is not in
 * the store is a located warning; the fork's own records still come.
 */
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { readLines } from '../../io/line-file.js'
import { Diagnostics } from '../../diagnostics.js'
import { isObj, type FerryRecord, type SessionRec } from '../../model.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import { resolve } from './discover.js'

/** How deep a chain of forks is followed (a cycle in hostile data stops here too). */
const MAX_DEPTH = 32

export interface HistoryBase {
  thread_id: string
  end_ordinal_exclusive: number
}

/** The `history_base` of a rollout's session_meta (its first line), or null. */
export async function historyBase(ctx: StoreContext, file: string): Promise<HistoryBase | null> {
  const quiet = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes }
  for await (const line of readLines(quiet, file, { source: 'codex' })) {
    // The first line only: session_meta is small, but a huge first line is not parsed.
    if (line.buf.length > 1 << 20) return null
    let obj: unknown
    try {
      obj = JSON.parse(line.buf.toString('utf8'))
    } catch {
      return null
    }
    const b = isObj(obj) && obj.type === 'session_meta' && isObj(obj.payload) ? obj.payload.history_base : undefined
    if (!isObj(b) || typeof b.thread_id !== 'string') return null
    const end = Number(b.end_ordinal_exclusive)
    return Number.isSafeInteger(end) && end >= 0 ? { thread_id: b.thread_id, end_ordinal_exclusive: end } : null
  }
  return null
}

/** The record's ordinal (or line) in its own rollout, from its id's locator (`o12`, `l12`); undefined for `i<item id>`. */
function position(id: string, sid: string): number | undefined {
  if (!id.startsWith(`${sid}:`)) return undefined
  const m = /^[ol](\d+)(?:#|$)/.exec(id.slice(sid.length + 1))
  return m ? Number(m[1]) : undefined
}

/** The session_meta line without `history_base`: what ferry writes holds the inherited records itself. */
function selfContained(header: SessionRec): SessionRec {
  const raw = header.native?.raw
  if (typeof raw !== 'string') return header
  try {
    const obj = JSON.parse(raw)
    delete obj.payload.history_base
    return { ...header, native: { ...header.native!, raw: JSON.stringify(obj) } }
  } catch {
    const { native: _drop, ...rest } = header
    return rest as SessionRec
  }
}

type Own = (info: SessionInfo) => Readable

/**
 * The fork's records with its parent's before them. `own` reads one rollout by itself
 * (the mapper); `depth` and `seen` guard the chain.
 */
export async function* withInherited(ctx: StoreContext, info: SessionInfo, opts: ReadOptions, own: Own, depth = 0, seen = new Set<string>()): AsyncGenerator<FerryRecord> {
  const base = info.fork_of && depth < MAX_DEPTH ? await historyBase(ctx, info.path) : null
  seen.add(info.id.toLowerCase())
  for await (const rec of own(info) as AsyncIterable<FerryRecord>) {
    if (rec.kind !== 'session' || !base) {
      yield rec
      continue
    }
    // Where it branched off: the parent's last record before the fork point (what the archive reads up to).
    const at = base.end_ordinal_exclusive > 0 && rec.parent ? { parent: { ...rec.parent, at: `codex:${base.thread_id}:o${base.end_ordinal_exclusive - 1}` } } : {}
    yield { ...selfContained(rec), ...at }
    yield* inherited(ctx, info, rec.sid, base, opts, own, depth, seen)
  }
}

async function* inherited(ctx: StoreContext, info: SessionInfo, sid: string, base: HistoryBase, opts: ReadOptions, own: Own, depth: number, seen: Set<string>): AsyncGenerator<FerryRecord> {
  const at = { file: info.path, line: 1 }
  if (seen.has(base.thread_id.toLowerCase())) {
    ctx.diagnostics.warn('missing-parent', `codex: fork ${info.id} names ${base.thread_id} as its history base, which is already in its chain of forks; the inherited history stops there`, at, 'codex')
    return
  }
  let parent: SessionInfo | null = null
  try {
    parent = await resolve(ctx, base.thread_id)
  } catch {
    parent = null
  }
  if (!parent) {
    ctx.diagnostics.warn('missing-parent', `codex: fork ${info.id} starts from ${base.thread_id}, whose rollout is not in the store; only the fork's own turns are read`, at, 'codex')
    return
  }
  const parentSid = `codex:${parent.id}`
  for await (const rec of withInherited(ctx, parent, opts, own, depth + 1, seen)) {
    if (rec.kind === 'session' || rec.kind === 'end' || rec.kind === 'stream') continue
    const n = position(rec.id, parentSid)
    if (n !== undefined && n >= base.end_ordinal_exclusive) break
    // The parent's record, in this session: its id stays the parent's (stable ids).
    yield { ...rec, sid }
  }
}
