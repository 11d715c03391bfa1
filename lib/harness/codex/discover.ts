/**
 * Finding rollouts cheaply: walk `sessions/` (and `archived_sessions/`),
 * list a plain and a `.zst` copy of one rollout once (the plain file wins,
 * as in Codex), and read only the head of each file: line 1 for the
 * metadata, a bounded number of lines after it for the model and the first
 * prompt.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AmbiguousError, reason } from '../../errors.js'
import { readEnds, readLines, type Ends } from '../../io/line-file.js'
import { mapAhead } from '../../io/ahead.js'
import { openDiscoveryCache } from '../discovery-cache.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { userContextKind } from './context.js'
import { isUuid } from './ids.js'
import { ARCHIVED_DIR, SESSIONS_DIR, parseRolloutName, store, type RolloutName } from './paths.js'

interface Found {
  path: string
  name: RolloutName
  archived: boolean
}

/** Rollout files under one directory (depth-limited), plain preferred over `.zst`. */
async function* walk(dir: string, archived: boolean, depth = 0): AsyncGenerator<Found> {
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const plain = new Set<string>()
  for (const e of entries) if (e.isFile() && e.name.endsWith('.jsonl')) plain.add(e.name)
  for (const e of entries) {
    if (e.isDirectory() && depth < 3) {
      yield* walk(join(dir, e.name), archived, depth + 1)
      continue
    }
    if (!e.isFile()) continue
    const name = parseRolloutName(e.name)
    if (!name) continue
    if (name.compressed && plain.has(name.plainName)) continue
    yield { path: join(dir, e.name), name, archived }
  }
}

async function* allFiles(root: string, all: boolean): AsyncGenerator<Found> {
  const seen = new Set<string>()
  for (const [dir, archived] of [[join(root, SESSIONS_DIR), false], [join(root, ARCHIVED_DIR), true]] as const) {
    if (archived && !all) continue
    for await (const f of walk(dir, archived)) {
      if (seen.has(f.name.id)) continue
      seen.add(f.name.id)
      yield f
    }
  }
}

/**
 * `session_index.jsonl`: the names the user gave threads (`/rename`), one
 * `{id, thread_name, updated_at}` per line, appended; the last line for an
 * id wins, as in Codex. Codex may be appending while we read, so a bad line
 * is a warning (it costs one title), not an error.
 */
async function threadNames(ctx: StoreContext, root: string): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const file = join(root, 'session_index.jsonl')
  try {
    for await (const line of readLines(ctx, file, { source: 'codex' })) {
      const text = line.buf.toString('utf8')
      if (text.trim() === '') continue
      let o: any
      try {
        o = JSON.parse(text)
      } catch {
        const torn = line.unterminated === true
        ctx.diagnostics.warn(torn ? 'torn-line' : 'bad-line', `${torn ? 'last line has no newline and does not parse (being written?)' : 'not a JSON line'}; its thread name is not used`, { file, line: line.no + 1 }, 'codex')
        continue
      }
      if (typeof o?.id === 'string' && typeof o.thread_name === 'string' && o.thread_name.trim()) names.set(o.id.toLowerCase(), o.thread_name)
    }
  } catch (err) {
    // No index is the normal case for a store whose threads were never renamed.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') ctx.diagnostics.warn('unreadable', `thread names not read: ${reason(err)}`, { file }, 'codex')
  }
  return names
}

const HEAD_LINES = 64
const HEAD_BYTES = 2 * 1024 * 1024

export async function describe(path: string, opts: { archived?: boolean; names?: Map<string, string> } = {}): Promise<SessionInfo | null> {
  const name = parseRolloutName(basename(path))
  let ends: Ends
  try {
    ends = await readEnds(path, { maxLines: HEAD_LINES, maxBytes: HEAD_BYTES }, TAIL_BYTES)
  } catch {
    // Unreadable but there: the file name still gives the id.
    try {
      const st = await stat(path)
      ends = { size: st.size, mtime: st.mtime, head: { lines: [], compressed: name?.compressed ?? false, whole: false }, tail: undefined }
    } catch {
      return null
    }
  }
  const head = ends.head
  const lines = head.lines.map((b) => b.toString('utf8'))
  let meta: any
  try {
    const first = JSON.parse(lines[0] ?? '')
    if (first?.type === 'session_meta') meta = first.payload
  } catch {
    /* no metadata: the file name still gives the id */
  }
  const id = typeof meta?.id === 'string' && isUuid(meta.id) ? meta.id : name?.id
  if (!id) return null
  let model: string | undefined
  let prompt: string | undefined
  for (const l of lines.slice(1)) {
    if (model && prompt) break
    // Cheap prefilter: only parse the lines that can hold what we look for.
    if (!model && l.includes('"turn_context"')) {
      try {
        const o = JSON.parse(l)
        if (o.type === 'turn_context' && typeof o.payload?.model === 'string') model = o.payload.model
      } catch {
        /* skip */
      }
    } else if (!prompt && l.includes('"role":"user"')) {
      try {
        const o = JSON.parse(l)
        const p = o.payload
        if (o.type === 'response_item' && p?.type === 'message' && p.role === 'user' && Array.isArray(p.content)) {
          const text = p.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('')
          if (text.trim() && !userContextKind(p, text)) prompt = text
        }
      } catch {
        /* skip */
      }
    } else if (!prompt && l.includes('"UserMessage"')) {
      // Paginated history: a migrated thread may hold the prompt only as its turn item.
      try {
        const o = JSON.parse(l)
        const it = o.payload?.item
        if (o.type === 'event_msg' && o.payload.type === 'item_completed' && it?.type === 'UserMessage' && Array.isArray(it.content)) {
          const text = it.content.map((c: any) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('')
          if (text.trim()) prompt = text
        }
      } catch {
        /* skip */
      }
    }
  }
  const custom = opts.names?.get(id.toLowerCase())
  const title = custom ?? (prompt ? oneLine(prompt) : undefined)
  const info: SessionInfo = {
    harness: 'codex',
    id,
    sid: `codex:${id}`,
    path,
    locator: { path, ...(head.compressed ? { compressed: true } : {}) },
    bytes: ends.size,
    updated_at: (ends.tail && lastTimestamp(ends.tail)) ?? ends.mtime.toISOString(),
  }
  if (typeof meta?.cwd === 'string') info.cwd = meta.cwd
  if (title) {
    info.title = title
    info.title_source = custom !== undefined ? 'custom' : 'first_prompt'
  }
  if (model) info.model = model
  if (typeof meta?.cli_version === 'string') info.agent_version = meta.cli_version
  if (typeof meta?.git?.branch === 'string') info.git_branch = meta.git.branch
  if (typeof meta?.timestamp === 'string') info.created_at = meta.timestamp
  // A fork is a session of its own (its read brings the inherited history, fork.ts), not a sub-agent its parent's read carries.
  if (typeof meta?.forked_from_id === 'string') info.fork_of = `codex:${meta.forked_from_id}`
  if (opts.archived) info.archived = true
  return info
}

/** The `timestamp` of the last complete line, from the file's last 64 KiB (plain files only). */
function lastTimestamp(lines: Buffer[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^\{"timestamp":"([^"]{10,40})"/.exec(lines[i]!.subarray(0, 80).toString('latin1'))
    if (m && !Number.isNaN(Date.parse(m[1]!))) return m[1]
  }
  return undefined
}

const TAIL_BYTES = 64 * 1024

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > 120 ? `${t.slice(0, 119)}…` : t
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const root = store.root(ctx)
  const names = await threadNames(ctx, root)
  // Heads and tails read a few files at a time, in order, lazily. What a file says is cached (see discovery-cache);
  // thread names live in another file, so they are applied after, never cached.
  const cache = openDiscoveryCache<SessionInfo | null>(ctx, 'codex', root)
  let complete = false
  try {
    for await (const info of mapAhead(allFiles(root, opts.all ?? false), (f) => cache.get(f.path, () => describe(f.path, { archived: f.archived })))) {
      if (info) yield withName(info, names)
    }
    complete = true
  } finally {
    await cache.save(complete)
  }
}

/** A thread's name from the session index, over the title its file gave. */
function withName(info: SessionInfo, names: Map<string, string>): SessionInfo {
  const custom = names.get(info.id.toLowerCase())
  return custom === undefined ? info : { ...info, title: custom, title_source: 'custom' }
}

/** A native id, a unique id prefix, or a path to a rollout file. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  const root = store.root(ctx)
  if (ref.includes('/') || ref.endsWith('.jsonl') || ref.endsWith('.zst')) {
    const path = resolvePath(ref)
    const info = await describe(path, { archived: path.includes(`/${ARCHIVED_DIR}/`), names: await threadNames(ctx, root) })
    if (!info) return null
    // A path is ours only when it looks like a rollout (name or first line).
    if (!parseRolloutName(basename(path)) && !info.cwd && !info.agent_version) return null
    return info
  }
  const want = ref.toLowerCase()
  if (!/^[0-9a-f-]{4,36}$/.test(want)) return null
  const matches: Found[] = []
  for await (const f of allFiles(root, true)) if (f.name.id.startsWith(want)) matches.push(f)
  if (matches.length === 0) return null
  const ids = new Set(matches.map((m) => m.name.id))
  if (ids.size > 1) throw new AmbiguousError(`codex: "${ref}" matches ${ids.size} sessions (${[...ids].slice(0, 5).join(', ')}…); give more of the id`)
  const m = matches[0]!
  return describe(m.path, { archived: m.archived, names: await threadNames(ctx, root) })
}
