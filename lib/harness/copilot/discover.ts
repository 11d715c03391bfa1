/**
 * Finding Copilot CLI sessions cheaply: one directory per session under
 * `<root>/session-state/`, whose `events.jsonl` head gives the start record
 * (id, cwd, model, version, start time) and the first prompt, its tail the
 * last event's time; `workspace.yaml` gives a name the user chose. Sessions
 * without an event log (Copilot's legacy single-file sessions live elsewhere)
 * are not listed.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { AmbiguousError } from '../../errors.js'
import { mapAhead } from '../../io/ahead.js'
import { readEnds, type Ends } from '../../io/line-file.js'
import { isObj } from '../../model.js'
import { openDiscoveryCache } from '../discovery-cache.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { EVENTS_FILE, HARNESS, SESSIONS_DIR, WORKSPACE_FILE, isUuid, store } from './paths.js'
import { readWorkspace } from './workspace.js'

const HEAD_LINES = 64
const HEAD_BYTES = 2 * 1024 * 1024
const TAIL_BYTES = 64 * 1024

export function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > 120 ? `${t.slice(0, 119)}…` : t
}

/** The `timestamp` of the last complete line of the tail (the envelope ends `"timestamp":…,"parentId":…`). */
function lastTimestamp(lines: Buffer[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const b = lines[i]!
    const tail = b.subarray(Math.max(0, b.length - 400)).toString('latin1')
    const all = [...tail.matchAll(/"timestamp":"([^"]{10,40})"/g)]
    const m = all.at(-1)
    if (m && !Number.isNaN(Date.parse(m[1]!))) return m[1]
  }
  return undefined
}

/** What the event log says about a session (cached per file); the workspace name is applied after. */
export async function describe(events: string): Promise<SessionInfo | null> {
  const dirId = basename(dirname(events))
  let ends: Ends
  try {
    ends = await readEnds(events, { maxLines: HEAD_LINES, maxBytes: HEAD_BYTES }, TAIL_BYTES)
  } catch {
    return null
  }
  let start: any
  let prompt: string | undefined
  for (const [i, b] of ends.head.lines.entries()) {
    if (i > 0 && (prompt !== undefined || !b.includes('"user.message"'))) continue
    let o: any
    try {
      o = JSON.parse(b.toString('utf8'))
    } catch {
      continue
    }
    if (!isObj(o) || !isObj(o.data)) continue
    if (i === 0 && o.type === 'session.start') start = o.data
    else if (o.type === 'user.message' && !o.agentId && typeof o.data.content === 'string' && o.data.content.trim()) prompt = o.data.content
  }
  const id = typeof start?.sessionId === 'string' && isUuid(start.sessionId) ? start.sessionId.toLowerCase() : isUuid(dirId) ? dirId.toLowerCase() : undefined
  if (!id) return null
  const info: SessionInfo = {
    harness: HARNESS,
    id,
    sid: `${HARNESS}:${id}`,
    path: events,
    locator: { path: events },
    bytes: ends.size,
    updated_at: (ends.tail && lastTimestamp(ends.tail)) ?? ends.mtime.toISOString(),
  }
  const cwd = start?.context?.cwd
  if (typeof cwd === 'string' && cwd) info.cwd = cwd
  if (prompt) {
    info.title = oneLine(prompt)
    info.title_source = 'first_prompt'
  }
  if (typeof start?.selectedModel === 'string') info.model = start.selectedModel
  if (typeof start?.copilotVersion === 'string') info.agent_version = start.copilotVersion
  if (typeof start?.startTime === 'string') info.created_at = start.startTime
  return info
}

/** The name the user gave the session (`/rename`: `user_named: true`) over the title the log gave. */
async function withWorkspace(info: SessionInfo): Promise<SessionInfo> {
  const w = await readWorkspace(join(dirname(info.path), WORKSPACE_FILE))
  if (!w) return info
  const out = { ...info }
  if (w.user_named === true && typeof w.name === 'string' && w.name.trim()) {
    out.title = oneLine(w.name)
    out.title_source = 'custom'
  }
  if (!out.cwd && typeof w.cwd === 'string' && w.cwd) out.cwd = w.cwd
  if (!out.created_at && typeof w.created_at === 'string') out.created_at = w.created_at
  return out
}

/** Session directories (names that are UUIDs) holding an event log, in name order. */
async function* sessionLogs(root: string): AsyncGenerator<string> {
  let names: string[]
  try {
    names = (await readdir(join(root, SESSIONS_DIR), { withFileTypes: true })).filter((e) => e.isDirectory() && isUuid(e.name)).map((e) => e.name)
  } catch {
    return
  }
  names.sort()
  for (const n of names) yield join(root, SESSIONS_DIR, n, EVENTS_FILE)
}

async function present(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}

export async function* discover(ctx: StoreContext, _opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  const root = store.root(ctx)
  const cache = openDiscoveryCache<SessionInfo | null>(ctx, HARNESS, root)
  let complete = false
  try {
    const described = mapAhead(sessionLogs(root), async (events) => ((await present(events)) ? cache.get(events, () => describe(events)) : null))
    for await (const info of described) if (info) yield await withWorkspace(info)
    complete = true
  } finally {
    await cache.save(complete)
  }
}

/** A session id, a unique id prefix (as `copilot --resume` takes one), or a path to a session directory or its event log. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  const root = store.root(ctx)
  if (ref.includes('/') || ref.endsWith('.jsonl')) {
    let path = resolvePath(ref)
    try {
      if ((await stat(path)).isDirectory()) path = join(path, EVENTS_FILE)
    } catch {
      return null
    }
    if (basename(path) !== EVENTS_FILE || !(await present(path))) return null
    const info = await describe(path)
    return info ? withWorkspace(info) : null
  }
  const want = ref.toLowerCase()
  if (!/^[0-9a-f-]{4,36}$/.test(want)) return null
  const matches: string[] = []
  for await (const events of sessionLogs(root)) {
    const id = basename(dirname(events))
    if (id.startsWith(want) && (await present(events))) matches.push(events)
  }
  if (matches.length === 0) return null
  if (matches.length > 1) throw new AmbiguousError(`copilot: "${ref}" matches ${matches.length} sessions (${matches.slice(0, 5).map((p) => basename(dirname(p))).join(', ')}…); give more of the id`)
  const info = await describe(matches[0]!)
  return info ? withWorkspace(info) : null
}
