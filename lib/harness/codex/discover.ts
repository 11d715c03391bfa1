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
import { UsageError } from '../../errors.js'
import { openBytes } from '../../io/bytes.js'
import { LineSplitter } from '../../io/lines.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { userContextKind } from './context.js'
import { readHead } from './head.js'
import { ARCHIVED_DIR, SESSIONS_DIR, isUuid, parseRolloutName, type RolloutName } from './paths.js'
import { readTail as tailLines } from '../../io/line-file.js'

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

/** `session_index.jsonl`: newest `thread_name` per id. */
async function threadNames(root: string): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  let stream
  try {
    stream = (await openBytes(join(root, 'session_index.jsonl'), { compressed: false })).stream
  } catch {
    return names
  }
  const splitter = new LineSplitter({
    maxLineBytes: 1024 * 1024,
    onLine: (buf) => {
      try {
        const o = JSON.parse(buf.toString('utf8'))
        if (typeof o?.id === 'string' && typeof o.thread_name === 'string') names.set(o.id, o.thread_name)
      } catch {
        /* an index line we cannot read only costs a title */
      }
    },
  })
  try {
    for await (const chunk of stream) splitter.push(chunk as Buffer)
    splitter.end()
  } catch {
    /* missing or unreadable index */
  }
  return names
}

const HEAD_LINES = 64
const HEAD_BYTES = 2 * 1024 * 1024

export async function describe(path: string, opts: { archived?: boolean; names?: Map<string, string> } = {}): Promise<SessionInfo | null> {
  const name = parseRolloutName(basename(path))
  let st
  try {
    st = await stat(path)
  } catch {
    return null
  }
  let head
  try {
    head = await readHead(path, { maxLines: HEAD_LINES, maxBytes: HEAD_BYTES })
  } catch {
    head = { lines: [], compressed: name?.compressed ?? false }
  }
  let meta: any
  try {
    const first = JSON.parse(head.lines[0] ?? '')
    if (first?.type === 'session_meta') meta = first.payload
  } catch {
    /* no metadata: the file name still gives the id */
  }
  const id = typeof meta?.id === 'string' && isUuid(meta.id) ? meta.id : name?.id
  if (!id) return null
  let model: string | undefined
  let prompt: string | undefined
  for (const l of head.lines.slice(1)) {
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
    }
  }
  const custom = opts.names?.get(id)
  const title = custom ?? (prompt ? oneLine(prompt) : undefined)
  const info: SessionInfo = {
    harness: 'codex',
    id,
    sid: `codex:${id}`,
    path,
    locator: { path, ...(head.compressed ? { compressed: true } : {}) },
    bytes: st.size,
    updated_at: (head.compressed ? undefined : await lastTimestamp(path, st.size)) ?? st.mtime.toISOString(),
  }
  if (typeof meta?.cwd === 'string') info.cwd = meta.cwd
  if (title) info.title = title
  if (model) info.model = model
  if (typeof meta?.cli_version === 'string') info.agent_version = meta.cli_version
  if (typeof meta?.git?.branch === 'string') info.git_branch = meta.git.branch
  if (typeof meta?.timestamp === 'string') info.created_at = meta.timestamp
  if (typeof meta?.forked_from_id === 'string') info.parent = `codex:${meta.forked_from_id}`
  if (opts.archived) info.archived = true
  return info
}

/** The `timestamp` of the last complete line, from the file's last 64 KiB (plain files only). */
async function lastTimestamp(path: string, size: number): Promise<string | undefined> {
  try {
    const lines = await tailLines(path, size, TAIL_BYTES)
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\{"timestamp":"([^"]{10,40})"/.exec(lines[i]!.subarray(0, 80).toString('latin1'))
      if (m && !Number.isNaN(Date.parse(m[1]!))) return m[1]
    }
  } catch {
    /* unreadable tail: fall back to the mtime */
  }
  return undefined
}

const TAIL_BYTES = 64 * 1024

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > 120 ? `${t.slice(0, 119)}…` : t
}

export async function* discover(root: string, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const names = await threadNames(root)
  for await (const f of allFiles(root, opts.all ?? false)) {
    const info = await describe(f.path, { archived: f.archived, names })
    if (info) yield info
  }
}

/** A native id, a unique id prefix, or a path to a rollout file. */
export async function resolve(_ctx: StoreContext, root: string, ref: string): Promise<SessionInfo | null> {
  if (ref.includes('/') || ref.endsWith('.jsonl') || ref.endsWith('.zst')) {
    const path = resolvePath(ref)
    const info = await describe(path, { archived: path.includes(`/${ARCHIVED_DIR}/`), names: await threadNames(root) })
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
  if (ids.size > 1) throw new UsageError(`codex: "${ref}" matches ${ids.size} sessions (${[...ids].slice(0, 5).join(', ')}…); give more of the id`)
  const m = matches[0]!
  return describe(m.path, { archived: m.archived, names: await threadNames(root) })
}
