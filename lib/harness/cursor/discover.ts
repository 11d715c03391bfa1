/**
 * One list of sessions from the three stores. A session in two stores (the
 * same uuid as a transcript and a store.db, or a transcript whose id is a
 * `composerData:` key) is listed once, read from the richest store (IDE,
 * then chat store, then transcript), with `stores` naming every store that
 * holds it.
 */
import { readdirSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { readAgentMeta, readMetaJson } from './chatstore.js'
import { cursorDirs, nestedDir, slugFor, transcriptId } from './paths.js'
import { parseUserText, workspacePath } from './text.js'
import { composerHeads, workspaceHeads, type ComposerHead } from './vscdb.js'
import { readHead } from '../../io/line-file.js'
import { reason } from '../../errors.js'

export type StoreKind = 'transcript' | 'chat' | 'ide'

export interface Entry {
  id: string
  transcript?: string
  chat?: string
  ide?: ComposerHead
}

/** The scanned entry behind an info, so reading it needs no second scan (and reports a busy DB once). */
export const ENTRY = Symbol('cursor.entry')

export type CursorInfo = SessionInfo & { stores: StoreKind[]; [ENTRY]?: Entry }

function ls(dir: string): import('node:fs').Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/** Every session, keyed by id (no file contents read but headers). */
export function scan(ctx: StoreContext): Map<string, Entry> {
  const dirs = cursorDirs(ctx)
  const map = new Map<string, Entry>()
  const entry = (id: string) => {
    let e = map.get(id)
    if (!e) map.set(id, (e = { id }))
    return e
  }
  for (const base of dirs.transcripts) {
    for (const p of ls(join(base, 'projects'))) {
      if (!p.isDirectory()) continue
      const at = join(base, 'projects', p.name, 'agent-transcripts')
      for (const f of ls(at)) {
        if (f.isFile() && /\.(jsonl|txt)$/.test(f.name)) {
          const e = entry(transcriptId(f.name))
          // A JSONL beats a legacy .txt of the same id.
          if (!e.transcript || e.transcript.endsWith('.txt')) e.transcript = join(at, f.name)
        } else if (f.isDirectory()) {
          const file = join(at, f.name, `${f.name}.jsonl`)
          try {
            if (statSync(file).isFile()) entry(f.name).transcript = file
          } catch {
            /* not a session dir */
          }
        }
      }
    }
  }
  for (const base of dirs.chats) {
    for (const b of ls(join(base, 'chats'))) {
      if (!b.isDirectory()) continue
      for (const s of ls(join(base, 'chats', b.name))) {
        const db = join(base, 'chats', b.name, s.name, 'store.db')
        try {
          if (s.isDirectory() && statSync(db).isFile()) entry(s.name).chat ??= db
        } catch {
          /* no store.db */
        }
      }
    }
  }
  for (const user of dirs.users) {
    const g = join(user, 'globalStorage', 'state.vscdb')
    let global = false
    try {
      global = statSync(g).isFile()
    } catch {
      /* no editor store */
    }
    if (!global) continue
    let n = 0
    for (const h of composerHeads(ctx, g)) {
      n++
      entry(h.composerId).ide = h
    }
    if (!n) for (const h of workspaceHeads(ctx, user, g)) entry(h.composerId).ide ??= h
  }
  return map
}

/** What ls shows, from the cheap parts of each store. */
export async function infoOf(ctx: StoreContext, e: Entry): Promise<CursorInfo | null> {
  const stores: StoreKind[] = []
  if (e.ide) stores.push('ide')
  if (e.chat) stores.push('chat')
  if (e.transcript) stores.push('transcript')
  const info: Record<string | symbol, any> = { harness: 'cursor', id: e.id, sid: `cursor:${e.id}`, stores, [ENTRY]: e }
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '' && info[k] === undefined) info[k] = v
  }
  if (e.ide) {
    info.path = e.ide.db
    info.locator = { path: e.ide.db, db: e.ide.db, table: 'cursorDiskKV', pk: `composerData:${e.id}` }
    set('cwd', e.ide.cwd)
    if (e.ide.name) {
      set('title', e.ide.name)
      set('title_source', 'ai')
    }
    set('created_at', e.ide.createdAt)
    set('updated_at', e.ide.updatedAt)
    if (e.ide.archived) info.archived = true
  }
  if (e.chat) {
    const dir = dirname(e.chat)
    const mj = readMetaJson(dir)
    let am = null
    try {
      am = readAgentMeta(e.chat)
    } catch (err) {
      ctx.diagnostics.warn('bad-meta', (err as Error).message, { file: e.chat }, 'cursor')
    }
    if (!info.path) {
      info.path = e.chat
      info.locator = { path: dir, db: e.chat, table: 'blobs' }
    }
    set('cwd', mj?.cwd ?? am?.workspacePath)
    const title = mj?.title ?? am?.name
    if (typeof title === 'string' && title) {
      set('title', title)
      set('title_source', 'ai')
    }
    set('model', am?.lastUsedModel !== 'default' ? am?.lastUsedModel : undefined)
    const c = mj?.createdAtMs ?? am?.createdAt
    // Out-of-range times (past ±8.64e15 ms) would throw in toISOString and hide every other session.
    const inRange = (v: unknown): v is number => typeof v === 'number' && Math.abs(v) <= 8.64e15
    if (inRange(c)) set('created_at', new Date(c).toISOString())
    if (inRange(mj?.updatedAtMs)) set('updated_at', new Date(mj.updatedAtMs).toISOString())
  }
  if (e.transcript) {
    if (!info.path) {
      info.path = e.transcript
      info.locator = { path: e.transcript }
    }
    try {
      const st = statSync(e.transcript)
      if (stores.length === 1) info.bytes = st.size
      if (!info.title || !info.created_at || !info.cwd) {
        let titled = false
        const head = e.transcript.endsWith('.txt') ? null : await readHead(e.transcript, { maxLines: 8, maxBytes: 256 * 1024 }).catch((err: NodeJS.ErrnoException) => {
          if (err?.code === 'ENOENT') throw err
          // Listed from what the stat gave, as every store lists a session it cannot read; reading it then fails with this code.
          ctx.diagnostics.warn('unreadable', `cannot read session metadata: ${reason(err)}`, { file: e.transcript }, 'cursor')
          return null
        })
        for (const l of head?.lines ?? []) {
          let v: any
          try {
            v = JSON.parse(l.toString('utf8'))
          } catch {
            continue
          }
          if (!info.cwd) {
            const seen = cwdFromLine(v, slugOf(e.transcript))
            if (seen) info.cwd = seen
          }
          const part = Array.isArray(v?.message?.content) ? v.message.content.find((p: any) => p?.type === 'text') : undefined
          if (v?.role !== 'user' || typeof part?.text !== 'string') continue
          const u = parseUserText(part.text)
          if (!u.query || titled) continue
          titled = true
          if (!info.title) {
            info.title = u.text.split('\n')[0]!.trim().slice(0, 120)
            info.title_source = 'first_prompt'
          }
          set('created_at', u.ts)
          if (info.cwd) break
        }
      }
      set('updated_at', st.mtime.toISOString())
      if (!info.cwd) {
        const found = directoryForSlug(slugOf(e.transcript))
        if (found) info.cwd = found
      }
    } catch {
      return null
    }
  }
  if (!info.path) return null
  return info as CursorInfo
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const map = scan(ctx)
  const subs = new Set<string>()
  for (const e of map.values()) if (e.ide?.subagent) subs.add(e.id)
  for (const e of map.values()) {
    if (subs.has(e.id) || e.id.startsWith('task-')) continue
    const info = await infoOf(ctx, e)
    if (!info) continue
    if (info.archived && !opts.all) continue
    yield info
  }
}

/** By id, unique prefix, or a path of one of its files. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (ref.includes('/')) {
    const found = await resolveIn(ctx, ref)
    if (found) return found
    // A session file outside the configured store (written with --out): its own store is the
    // directory above `projects/` or `chats/` in its path.
    const m = /^(.*)\/(?:projects\/[^/]+\/agent-transcripts|chats\/[^/]+)\/.+$/.exec(resolvePath(ref))
    if (m && m[1] && resolvePath(m[1]) !== ctx.roots.cursor) return resolveIn({ ...ctx, roots: { ...ctx.roots, cursor: m[1] } }, ref)
    return null
  }
  return resolveIn(ctx, ref)
}

/** `resolve` within the stores `ctx` names. */
async function resolveIn(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  const map = scan(ctx)
  let id: string | undefined
  if (ref.includes('/')) {
    const p = resolvePath(ref)
    for (const e of map.values()) {
      const paths = [e.transcript, e.chat, e.chat ? dirname(e.chat) : undefined, e.transcript ? nestedDir(e.transcript) ?? undefined : undefined]
      if (paths.includes(p)) id = e.id
    }
    if (!id) return null
  } else if (map.has(ref)) id = ref
  else {
    const hits = [...map.keys()].filter((k) => k.startsWith(ref) && ref.length >= 4)
    if (hits.length > 1) {
      const { AmbiguousError } = await import('../../errors.js')
      throw new AmbiguousError(`cursor:${ref} matches ${hits.length} sessions: ${hits.slice(0, 5).join(', ')}`)
    }
    id = hits[0]
  }
  if (!id) return null
  return infoOf(ctx, map.get(id)!)
}

function slugOf(transcript: string): string {
  return basename(dirname(dirname(nestedDir(transcript) ?? transcript)))
}

/**
 * A transcript names no cwd; its project slug is lossy (`a-b` may be `a/b`,
 * `a-b` or `a.b`). Evidence that round-trips through the slug is kept: a
 * `Workspace Path:` line, or an absolute path in a tool input that has an
 * ancestor whose slug is this one.
 */
function cwdFromLine(v: any, slug: string): string | undefined {
  const content = Array.isArray(v?.message?.content) ? v.message.content : []
  for (const part of content) {
    if (part?.type === 'text' && typeof part.text === 'string') {
      const w = workspacePath(part.text)
      if (w && slugFor(w) === slug) return w
    }
    if ((part?.type === 'tool_call' || part?.type === 'tool_use') && part.input && typeof part.input === 'object') {
      for (const value of Object.values(part.input)) {
        if (typeof value !== 'string') continue
        for (const m of value.matchAll(/(?:^|[\s'"=])(\/[^\s'"]+)/g)) {
          const a = ancestorWithSlug(m[1]!, slug)
          if (a) return a
        }
      }
    }
  }
  return undefined
}

function ancestorWithSlug(path: string, slug: string): string | undefined {
  for (let p = path; p !== '/' && p !== '.'; p = dirname(p)) if (slugFor(p) === slug) return p
  return undefined
}

/** The existing directory whose slug this is: each dash was `/` or a run of other characters, pruned by what the directories hold. */
function directoryForSlug(slug: string): string | undefined {
  if (!slug || slug.length > 4096) return undefined
  const walk = (dir: string, rest: string, depth: number): string | undefined => {
    if (depth > 64) return undefined
    for (const d of ls(dir)) {
      if (!d.isDirectory() && !d.isSymbolicLink()) continue
      const s = slugFor(d.name)
      if (!s) continue
      const p = join(dir, d.name)
      if (s === rest) {
        try {
          if (statSync(p).isDirectory()) return resolvePath(p)
        } catch {
          continue
        }
      }
      if (rest.startsWith(s + '-')) {
        const r = walk(p, rest.slice(s.length + 1), depth + 1)
        if (r) return r
      }
    }
    return undefined
  }
  return walk('/', slug, 0)
}
