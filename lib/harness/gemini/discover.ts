/**
 * Finding Gemini CLI sessions: every project dir `<root>/tmp/<short id>/`
 * (its root from `.project_root`, else `projects.json`), its main sessions
 * `chats/session-*.jsonl` and its sub-agents `chats/<parent id>/<id>.jsonl`
 * (listed as archived, with their parent). Metadata comes from the first
 * line (`sessionId`, `startTime`, `lastUpdated`, `kind`), the first typed
 * prompt in the head, and the last `$set` in the tail.
 */
import { lstat, readFile } from 'node:fs/promises'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { isObj, sessionKey, type JsonObject } from '../../model.js'
import { mapAhead } from '../../io/ahead.js'
import { parseJsonLine, readEnds } from '../../io/line-file.js'
import type { DiscoverOptions, SessionInfo } from '../types.js'
import { isSessionFileName, store } from './paths.js'
import { isTypedPrompt, textOf } from './records.js'
import { isoTime as iso, listDir as entries, stripBom, wholeObject } from '../family/gemini-lines.js'

const HEAD_BYTES = 256 * 1024
const TAIL_BYTES = 64 * 1024


/** project short id → root, from `projects.json` (read once per listing). */
async function registry(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  try {
    const v = JSON.parse(await readFile(join(root, 'projects.json'), 'utf8'))
    if (isObj(v) && isObj(v.projects)) for (const [path, slug] of Object.entries(v.projects)) if (typeof slug === 'string') out.set(slug, path)
  } catch {
    /* absent or unreadable: .project_root files still say */
  }
  return out
}

/** The project root a `tmp/<short id>` dir stands for. */
export async function projectRoot(projectDir: string, reg?: Map<string, string>): Promise<string | undefined> {
  try {
    const t = (await readFile(join(projectDir, '.project_root'), 'utf8')).trim()
    if (t) return t
  } catch {
    /* no marker */
  }
  return (reg ?? (await registry(dirname(dirname(projectDir))))).get(basename(projectDir))
}

/**
 * The id of a recording whose metadata line is unreadable: a sub-agent's file stem, else the
 * full id a folder of the session names (`chats/<id>/`, `tool-outputs/session-<id>/`) matching
 * the 8 characters of the file name, else the file stem.
 */
async function idFromFolders(path: string, parent?: string): Promise<string> {
  const stem = basename(path, '.jsonl')
  if (parent) return stem
  const short = /-([0-9a-f]{8})$/.exec(stem)?.[1]
  if (short) {
    const chats = dirname(path)
    const named = [...(await entries(chats)).filter((e) => e.dir).map((e) => e.name), ...(await entries(join(dirname(chats), 'tool-outputs'))).map((e) => e.name.replace(/^session-/, ''))]
    const hit = named.find((n) => n.startsWith(short) && n.length > short.length)
    if (hit) return hit
  }
  return stem
}

/** Everything `ls` shows about one session file; null when it is not a Gemini chat recording. */
export async function sessionInfo(ctx: StoreContext, path: string, cwd: string | undefined, parent?: string): Promise<SessionInfo | null> {
  let ends
  try {
    ends = await readEnds(path, { maxLines: 64, maxBytes: Math.min(HEAD_BYTES, ctx.maxLineBytes) }, TAIL_BYTES)
  } catch {
    return null
  }
  const parsed = ends.head.lines[0] ? parseJsonLine(stripBom(ends.head.lines[0])) : undefined
  let meta: JsonObject = isObj(parsed) && typeof parsed.sessionId === 'string' && parsed.sessionId && !('id' in parsed) && !('type' in parsed) ? parsed : {}
  let id: string | undefined = meta.sessionId
  if (!id) {
    // A damaged metadata line: still a recording when its other lines are, under the id its folders name.
    const isRecording = ends.head.lines.slice(1).some((b) => {
      const v = parseJsonLine(b)
      return isObj(v) && ((typeof v.id === 'string' && typeof v.type === 'string') || isObj(v.$set))
    })
    if (!isRecording) {
      // Nothing in it is a whole record (emptied, or cut inside its first line): still the session its
      // folders or name give, so reading it reports the damage at its place instead of "no session" (only a file named
      // and placed as a recording: any other file that is not one stays not one).
      const damaged = !parent && isSessionFileName(basename(path)) && basename(dirname(path)) === 'chats' && ends.head.lines.every((b) => !wholeObject(b))
      if (!damaged) return null
      const id = await idFromFolders(path, parent)
      return { harness: 'gemini', id, sid: sessionKey('gemini', id), path, locator: { path }, ...(cwd ? { cwd } : {}), bytes: ends.size }
    }
    id = await idFromFolders(path, parent)
    meta = {}
  }
  const info: SessionInfo = { harness: 'gemini', id, sid: sessionKey('gemini', id), path, locator: { path } }
  if (cwd) info.cwd = cwd
  const created = iso(meta.startTime)
  if (created) info.created_at = created
  let updated = iso(meta.lastUpdated)
  // A sub-agent's summary is its result object, not a title.
  const sub = meta.kind === 'subagent'
  let summary = typeof meta.summary === 'string' && !sub ? meta.summary : undefined
  for (const buf of ends.tail ?? []) {
    const v = parseJsonLine(buf)
    if (!isObj(v)) continue
    const set: JsonObject | undefined = isObj(v.$set) ? v.$set : undefined
    if (set && iso(set.lastUpdated)) updated = iso(set.lastUpdated)
    if (set && typeof set.summary === 'string' && !sub) summary = set.summary
    if (!set && typeof v.timestamp === 'string' && iso(v.timestamp) && (!updated || iso(v.timestamp)! > updated)) updated = iso(v.timestamp)
  }
  if (updated) info.updated_at = updated
  if (summary?.trim()) {
    info.title = summary.trim().split('\n')[0]!.slice(0, 200)
    info.title_source = 'summary'
  } else {
    for (const buf of ends.head.lines.slice(1)) {
      const v = parseJsonLine(buf)
      if (!isObj(v) || v.type !== 'user') continue
      const text = textOf(v.content).trim()
      if (text && isTypedPrompt(text)) {
        info.title = text.split('\n')[0]!.slice(0, 200)
        info.title_source = 'first_prompt'
        break
      }
    }
  }
  if (typeof meta.model === 'string') info.model = meta.model
  info.bytes = ends.size
  if (parent) {
    info.parent = parent
    info.archived = true
  } else if (meta.kind === 'subagent') info.archived = true
  return info
}

interface Candidate {
  path: string
  cwd: string | undefined
  parent?: string
}

async function* candidates(ctx: StoreContext): AsyncGenerator<Candidate> {
  const root = store.root(ctx)
  const reg = await registry(root)
  for (const project of await entries(join(root, 'tmp'))) {
    if (!project.dir) continue
    const dir = join(root, 'tmp', project.name)
    const chats = await entries(join(dir, 'chats'))
    if (!chats.length) continue
    const cwd = await projectRoot(dir, reg)
    for (const e of chats) {
      if (!e.dir && isSessionFileName(e.name)) yield { path: join(dir, 'chats', e.name), cwd }
      else if (e.dir) {
        for (const sub of await entries(join(dir, 'chats', e.name))) {
          if (!sub.dir && sub.name.endsWith('.jsonl')) yield { path: join(dir, 'chats', e.name, sub.name), cwd, parent: sessionKey('gemini', e.name) }
        }
      }
    }
  }
}

export async function* discover(ctx: StoreContext, opts: DiscoverOptions = {}): AsyncGenerator<SessionInfo> {
  for await (const info of mapAhead(candidates(ctx), (c) => sessionInfo(ctx, c.path, c.cwd, c.parent))) {
    if (info && (opts.all || !info.archived)) yield info
  }
}

/** A path to a session file, or a session id / unique prefix. */
export async function resolve(ctx: StoreContext, ref: string): Promise<SessionInfo | null> {
  if (ref.includes('/') || ref.startsWith('.')) {
    const p = resolvePath(ref)
    try {
      if (!(await lstat(p)).isFile()) return null
    } catch {
      return null
    }
    // chats/<file> or chats/<parent id>/<file>: the project dir is above `chats`.
    const inSub = basename(dirname(dirname(p))) === 'chats'
    const projectDir = inSub ? dirname(dirname(dirname(p))) : dirname(dirname(p))
    const cwd = basename(dirname(p)) === 'chats' || inSub ? await projectRoot(projectDir) : undefined
    return sessionInfo(ctx, p, cwd, inSub ? sessionKey('gemini', basename(dirname(p))) : undefined)
  }
  const matches: SessionInfo[] = []
  // A damaged recording without its metadata line is listed under its file stem: the one file whose name
  // carries the id's first eight characters is the session asked for (gathered in the same pass).
  const short = /^[0-9a-f]{8}/i.test(ref) ? `-${ref.slice(0, 8).toLowerCase()}` : null
  const named: SessionInfo[] = []
  for await (const info of discover(ctx, { all: true })) {
    if (info.id === ref) return info
    if (info.id.startsWith(ref)) matches.push(info)
    else if (short && !info.parent && info.id.endsWith(short) && info.id === basename(info.path ?? '', '.jsonl')) named.push(info)
  }
  if (matches.length === 0 && named.length === 1) return named[0]!
  return matches.length === 1 ? matches[0]! : null
}
