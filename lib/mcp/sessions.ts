/**
 * What the tools do, on a store context: list sessions (the archive and the
 * agents' own stores, one row per session key), search the archive, and
 * read one session as a redacted Markdown page. Plain data in and out; the
 * server (server.ts) turns them into MCP results.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { Writable } from 'node:stream'
import type { StoreContext } from '../context.js'
import { FerryError, UsageError } from '../errors.js'
import { pipeline } from '../io/pipeline.js'
import { cwdMatcher, parseTime, sessionTime } from '../query/select.js'
import { ftsQuery } from '../query/fts.js'
import { openArchive } from '../archive/store/db.js'
import { MARK_CLOSE, MARK_OPEN, search, SearchSyntaxError, type SearchHit } from '../archive/search.js'
import { getHarness, harnesses } from '../harness/registry.js'
import { resolveRef } from '../harness/refs.js'
import type { Harness, SessionInfo } from '../harness/types.js'
import { Redactor } from '../../transforms/index.js'
import { parseRange, renderStages } from '../render/index.js'

export interface Served {
  ctx: StoreContext
  /** Redact what the tools return (credentials, home paths, e-mail addresses), as `render` does; on unless the server was told otherwise. */
  redact: boolean
}

/** The store that holds copies of the others (the archive), from the registry. */
function archiveStore(): Harness {
  const h = harnesses.find((x) => x.holdsCopies)
  if (!h) throw new FerryError('no archive store is registered', { code: 'internal' })
  return h
}

/** The share redaction `render` applies, as a text function (a fresh label numbering per call). */
function redactor(on: boolean): ((text: string) => string) | undefined {
  if (!on) return undefined
  const r = new Redactor({ paths: true, emails: true })
  return (text) => r.redact(text)
}

export interface SessionRow {
  ref: string
  harness: string
  id: string
  title: string | null
  cwd: string | null
  created_at: string | null
  updated_at: string | null
  message_count: number | null
  archived: boolean
  gone_from_source: boolean
}

export interface ListArgs {
  harness?: string[]
  cwd?: string
  since?: string
  until?: string
  limit?: number
}

function harnessIds(names: string[] | undefined): string[] {
  return (names ?? []).map((n) => getHarness(n.trim()).id)
}

/** Every session of the archive and the live stores, one row per session key (the live row wins: it is current), newest first. */
export async function listSessions(s: Served, args: ListArgs): Promise<{ sessions: SessionRow[]; warnings: string[] }> {
  const only = harnessIds(args.harness)
  const since = args.since === undefined ? -Infinity : parseTime(args.since, Date.now(), 'since')
  const until = args.until === undefined ? Infinity : parseTime(args.until, Date.now(), 'until')
  const inCwd = args.cwd === undefined ? () => true : cwdMatcher(args.cwd)
  const limit = args.limit ?? 20
  const rows = new Map<string, SessionRow>()
  const warnings: string[] = []
  const title = redactor(s.redact)
  const add = (info: SessionInfo & { gone_from_source?: string }, archived: boolean) => {
    if (only.length && !only.includes(info.harness ?? '')) return
    if (!inCwd(info.cwd)) return
    const t = sessionTime(info.updated_at, info.created_at)
    if (t < since || t > until) return
    const was = rows.get(info.sid)
    rows.set(info.sid, {
      ref: info.sid,
      harness: info.harness ?? info.sid.slice(0, info.sid.indexOf(':')),
      id: info.id,
      title: info.title ? (title ? title(info.title) : info.title) : (was?.title ?? null),
      cwd: info.cwd ?? was?.cwd ?? null,
      created_at: info.created_at ?? was?.created_at ?? null,
      updated_at: info.updated_at ?? was?.updated_at ?? null,
      message_count: info.message_count ?? was?.message_count ?? null,
      archived: archived || Boolean(was?.archived),
      gone_from_source: archived ? Boolean(info.gone_from_source) : false,
    })
  }
  const archive = archiveStore()
  for (const h of [archive, ...harnesses.filter((x) => x.kind === 'store' && !x.holdsCopies && x.discover)]) {
    if (h !== archive && only.length && !only.includes(h.id)) continue
    try {
      for await (const info of h.discover!(s.ctx, {})) add(info, h === archive)
    } catch (err) {
      warnings.push(`${h.id}: ${(err as Error).message}`)
    }
  }
  const sorted = [...rows.values()].sort((a, b) => sessionTime(b.updated_at ?? undefined, b.created_at ?? undefined) - sessionTime(a.updated_at ?? undefined, a.created_at ?? undefined))
  return { sessions: sorted.slice(0, limit), warnings }
}

export interface SearchArgs {
  query: string
  fts?: boolean
  harness?: string[]
  cwd?: string
  since?: string
  role?: string
  tool?: string
  limit?: number
}

export interface Hit {
  ref: string
  session: string
  harness: string
  title: string | null
  time: string | null
  record_id: string
  kind: string
  role: string | null
  tools: string | null
  message: number | null
  snippet: string
  gone_from_source: boolean
}

/** `ferry search`, with the same query rule and filters; snippets marked in **bold** and redacted as the session would be. */
export function searchSessions(s: Served, args: SearchArgs): Hit[] {
  const query = ftsQuery(args.query, { fts: args.fts === true })
  const path = archiveStore().root(s.ctx)
  if (!existsSync(path)) throw new FerryError('no archive here (run `ferry archive` first, or give --db FILE)', { code: 'db-error', position: { file: path } })
  const harnesses = harnessIds(args.harness)
  const filter = redactor(s.redact)
  const db = openArchive(path, { readonly: true })
  let hits: SearchHit[]
  try {
    hits = search(db, query, {
      ...(harnesses.length ? { harnesses } : {}),
      ...(args.cwd !== undefined ? { cwd: resolve(args.cwd) } : {}),
      ...(args.since !== undefined ? { since: new Date(parseTime(args.since, Date.now(), 'since')).toISOString() } : {}),
      ...(args.role !== undefined ? { role: args.role } : {}),
      ...(args.tool !== undefined ? { tool: args.tool } : {}),
      ...(filter ? { textFilter: filter } : {}),
      limit: args.limit ?? 20,
    })
  } catch (err) {
    if (err instanceof SearchSyntaxError) throw new UsageError(`search: not a valid FTS5 query: ${JSON.stringify(args.query.trim().slice(0, 80))} (without fts the words are searched as written)`)
    throw err
  } finally {
    db.close()
  }
  return hits.map((h) => ({
    ref: h.ref,
    session: h.sid,
    harness: h.harness,
    title: h.title !== null && filter ? filter(h.title) : h.title,
    time: h.time,
    record_id: h.record_id,
    kind: h.kind,
    role: h.role,
    tools: h.tools,
    message: h.message,
    snippet: h.snippet.replace(/\s+/g, ' ').trim().replaceAll(MARK_OPEN, '**').replaceAll(MARK_CLOSE, '**'),
    gone_from_source: h.gone_from_source,
  }))
}

export interface ReadArgs {
  ref: string
  range?: string
  tools?: 'brief' | 'full' | 'none'
  thinking?: boolean
  offset?: number
  max_chars?: number
}

export interface Page {
  session: string
  from: 'archived' | 'live'
  range: string | null
  redacted: boolean
  offset: number
  next_offset: number | null
  text: string
}

/** The archived copy when there is one (what search numbered), else the agent's own store. */
async function open(s: Served, ref: string): Promise<{ harness: Harness; session: SessionInfo; from: 'archived' | 'live' }> {
  const archive = archiveStore()
  const archived = existsSync(archive.root(s.ctx)) && !ref.includes('/') ? await archive.resolve!(s.ctx, ref) : null
  if (archived) return { harness: archive, session: archived, from: 'archived' }
  const { harness, session } = await resolveRef(s.ctx, ref)
  if (harness.kind !== 'store') throw new UsageError(`"${ref}": give a session ref (harness:id) from list_sessions or search_sessions`)
  return { harness, session, from: 'live' }
}

/**
 * One page of the session as Markdown: rendered from the start (the walk is
 * one record at a time), the characters before `offset` dropped, and the
 * walk stopped one character past the page, so a page never holds more than
 * `max_chars` whatever the session's size.
 */
export async function readSession(s: Served, args: ReadArgs): Promise<Page> {
  let ref = args.ref.trim()
  let rangeText: string | null = null
  const m = /^(.*)#(\d+(?:-\d*)?)$/.exec(ref)
  if (m && m[1]) {
    ref = m[1]
    rangeText = m[2]!
  }
  if (args.range !== undefined) rangeText = args.range.replace(/^#/, '')
  let range: [number, number] | null = null
  if (rangeText !== null) {
    try {
      range = parseRange(rangeText)
    } catch (err) {
      throw new UsageError((err as Error).message)
    }
    // `#N` from a search hit: that message and what follows it, so the answer to it is on the page.
    if (m && args.range === undefined && !rangeText.includes('-')) range = [range[0], Number.MAX_SAFE_INTEGER]
  }
  const offset = args.offset ?? 0
  const max = args.max_chars ?? 20_000
  const { harness, session, from } = await open(s, ref)
  const source = harness.read!(s.ctx, session, { native: false })
  let seen = 0
  let page = ''
  let more = false
  const stop = new AbortController()
  const sink = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8')
      const start = seen
      seen += text.length
      if (seen > offset && page.length < max) page += text.slice(Math.max(0, offset - start), Math.max(0, offset - start) + (max - page.length))
      if (seen > offset + max) {
        more = true
        stop.abort()
      }
      cb()
    },
  })
  const stages = renderStages({
    format: 'md',
    redact: s.redact,
    range,
    tools: args.tools ?? 'brief',
    thinking: args.thinking === true,
    images: 'strip',
  })
  try {
    await pipeline(source, ...stages, sink, { signal: stop.signal })
  } catch (err) {
    if (!stop.signal.aborted) throw err
  }
  if (offset > 0 && seen <= offset) throw new UsageError(`offset ${offset} is past the end of ${session.sid} (${seen} characters)`)
  return {
    session: session.sid,
    from,
    range: range ? `${range[0]}-${range[1] === Number.MAX_SAFE_INTEGER ? '' : range[1]}` : null,
    redacted: s.redact,
    offset,
    next_offset: more ? offset + page.length : null,
    text: page,
  }
}
