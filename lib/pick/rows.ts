/**
 * The picker's rows: one per session (live stores and the archive) or per
 * full-text hit, and the list that holds them newest first as discovery
 * streams them in. A session that is both live and archived is one row, the
 * live one: the archive's copy is shown only for what the stores no longer
 * list (or have not listed yet).
 */
import type { SessionInfo } from '../harness/types.js'

export interface Row {
  /** What `show`, `continue` and `render` take: `harness:id`, or the archive's `<archive id>:<sid>`. */
  ref: string
  /** `harness:id` of the session, the same for its live and archived copies. */
  sid: string
  agent: string
  id: string
  title: string
  cwd: string
  /** ISO time, newest first; '' when unknown. */
  when: string
  /** Listed from the archive (not from the agent's store). */
  archived: boolean
  /** The archive says the agent's store no longer holds it. */
  gone: boolean
  /** A full-text hit's excerpt (matches between MARK_OPEN and MARK_CLOSE). */
  snippet?: string
}

/** A row for a session listed by its agent's store, or (with `archiveId`) by the archive. */
export function rowOf(s: SessionInfo, archiveId?: string): Row {
  return {
    ref: archiveId ? `${archiveId}:${s.sid}` : s.sid,
    sid: s.sid,
    agent: s.harness,
    id: s.id,
    title: (s.title ?? '').replace(/\s+/g, ' ').trim(),
    cwd: s.cwd ?? '',
    when: s.updated_at ?? s.created_at ?? '',
    archived: Boolean(archiveId),
    gone: Boolean((s as { gone_from_source?: string }).gone_from_source),
  }
}

const newestFirst = (a: Row, b: Row): number => (a.when < b.when ? 1 : a.when > b.when ? -1 : a.sid < b.sid ? -1 : 1)

/** Every session row, newest first; `version` changes whenever the list does (the filter's cache key). */
export class SessionRows {
  private bySid = new Map<string, Row>()
  private sorted: Row[] = []
  private dirty = false
  version = 0

  /** Adds a batch; a live row replaces the archive's copy of the same session, never the other way round. */
  add(rows: readonly Row[]): void {
    for (const r of rows) {
      const had = this.bySid.get(r.sid)
      if (had && (r.archived || !had.archived)) continue
      this.bySid.set(r.sid, r)
      this.dirty = true
    }
    if (this.dirty) this.version++
  }

  get size(): number {
    return this.bySid.size
  }

  /** The live row of a session, when its store lists it. */
  live(sid: string): Row | undefined {
    const r = this.bySid.get(sid)
    return r && !r.archived ? r : undefined
  }

  all(): Row[] {
    if (this.dirty) {
      this.sorted = [...this.bySid.values()].sort(newestFirst)
      this.dirty = false
    }
    return this.sorted
  }
}
