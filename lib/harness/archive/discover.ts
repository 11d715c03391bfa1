/** Listing and resolving archived sessions: each under its own harness and key. */
import { existsSync, statSync } from 'node:fs'
import { resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AmbiguousError } from '../../errors.js'
import { isArchiveFile, openArchive } from '../../archive/store/db.js'
import { findArchived, iterateArchived, listArchived, type ArchivedSession } from '../../archive/store/store.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { store } from './paths.js'

/** An archived session as discovery reports it: under its own harness and key, plus where it is kept and whether its source is gone. */
export interface ArchivedInfo extends SessionInfo {
  /** When its agent's store stopped holding it (ISO); absent while the source still has it. */
  gone_from_source?: string
  /** Where it was last read from. */
  source_path?: string
}

export function toInfo(s: ArchivedSession, db: string): ArchivedInfo {
  const info: ArchivedInfo = {
    harness: s.harness,
    id: s.native_id,
    sid: s.sid,
    path: db,
    locator: { db, table: 'sessions', pk: s.sid },
  }
  // MSGS means what the live listing means: the agent's own count, where its store keeps one (issue 46).
  if (typeof s.agent_message_count === 'number') info.message_count = s.agent_message_count
  if (s.cwd) info.cwd = s.cwd
  if (s.title) info.title = s.title
  if (s.title_source) info.title_source = s.title_source
  if (s.model) info.model = s.model
  if (s.agent_version) info.agent_version = s.agent_version
  if (s.git_branch) info.git_branch = s.git_branch
  if (s.created_at) info.created_at = s.created_at
  if (s.updated_at) info.updated_at = s.updated_at
  if (s.parent) info.parent = s.parent
  if (s.src_path) info.source_path = s.src_path
  if (s.gone_at) info.gone_from_source = s.gone_at
  return info
}

export async function* discover(ctx: StoreContext, _opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const path = store.root(ctx)
  if (!existsSync(path)) return
  const db = openArchive(path, { readonly: true })
  try {
    for (const s of iterateArchived(db)) yield toInfo(s, path)
  } finally {
    db.close()
  }
}

export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  // A path to an archive file: the one session it holds (a copy made by `convert --to archive --out`).
  if (ref.includes('/') || ref.endsWith('.db')) {
    const path = resolvePath(ref)
    if (!existsSync(path) || !statSync(path).isFile() || !isArchiveFile(path)) return null
    const db = openArchive(path, { readonly: true })
    try {
      const tops = listArchived(db).filter((s) => !s.parent)
      if (tops.length === 1) return toInfo(tops[0]!, path)
      if (tops.length === 0) return null
      throw new AmbiguousError(`${path} is an archive of ${tops.length} sessions: name one (ferry cat <harness:id> --archive --db ${path})`)
    } finally {
      db.close()
    }
  }
  const path = store.root(ctx)
  if (!existsSync(path)) return null
  const db = openArchive(path, { readonly: true })
  try {
    const found = findArchived(db, ref)
    if (!found) return null
    if ('ambiguous' in found) throw new AmbiguousError(`"${ref}" is ambiguous in the archive: ${found.ambiguous.join(', ')}`)
    return toInfo(found, path)
  } finally {
    db.close()
  }
}
