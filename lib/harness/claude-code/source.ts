/**
 * Reading one Claude Code session into the common record stream.
 *
 * Two passes over the file: the first (chain.ts) keeps only the uuid graph
 * and finds the active branch; the second streams the lines again and emits
 * records for entries on that branch plus every non-chain line (as `native`).
 * Off-branch entries are counted and, with `native: true`, kept as `native`
 * records so a same-harness write reproduces the file. Split assistant lines
 * (one line per content block, same `message.id`, chained) become one message.
 * Sub-agent transcripts under `<id>/subagents/` follow as linked sessions.
 */
import { Readable } from 'node:stream'
import { statSync } from 'node:fs'
import type { Dirent } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { Code } from '../../codes.js'
import type { StoreContext } from '../../context.js'
import { FerryError, reason } from '../../errors.js'
import { cappedSplitter, LineReporter, readLines } from '../../io/line-file.js'
import { readSmallPlainFile, returnSmallFile } from '../../io/bytes.js'
import {
  isObj, recordId, sessionKey, sessionRecord,
  type BoundaryRec, type ContextKind, type EndRec, type FerryRecord, type MessageRec, type NativePass, type NativeRec,
  type JsonObject, type SessionLink, type ToolResultBlock, type Warning,
} from '../../model.js'
import type { SessionInfo } from '../types.js'
import { type ActiveChain, CHAIN_TYPES, buildIndex, ChainIndex } from './chain.js'
import { HARNESS, sideDir } from './paths.js'
import { readMeta, type SessionMeta } from './session-meta.js'
import { lineStart } from '../../io/json-bytes.js'
import { blocksFromContent, stopFromNative, usageFromNative } from './blocks.js'
import { isCaveat, isReminder, parseCommand, parseCommandOutput, plainText } from './text.js'
import type { ReadOpts } from './flags.js'
import { readableOf } from '../../io/drain.js'

/** Side files larger than this are not inlined or passed through. */
const SIDE_FILE_CAP = 64 * 1024 * 1024
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}$/

interface Target {
  path: string
  nativeId: string
  sid: string
  parent?: SessionLink
  subagent?: { meta?: JsonObject; metaRaw?: string; agentId: string; side: string }
  /** What discovery already read from the file's head and tail (the main session): not read a second time. */
  known?: SessionInfo
}

/** State shared between the main session and its sub-agents. */
interface Shared {
  /** agentId → the parent's tool_use id, from the parent's `toolUseResult.agentId`. */
  agentCalls: Map<string, string>
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  return readableOf(readAll(ctx, info, opts))
}

async function* readAll(ctx: StoreContext, info: SessionInfo, opts: ReadOpts): AsyncGenerator<FerryRecord> {
  const shared: Shared = { agentCalls: new Map() }
  yield* readOne(ctx, { path: info.path, nativeId: info.id, sid: info.sid, known: info }, opts, shared)
  // Most sessions have no side folder: one stat says so, instead of a failing readdir (an error built, a thread-pool trip).
  if (!isDirSync(sideDir(info.path))) return
  const dir = join(sideDir(info.path), 'subagents')
  // One transcript per agent id (the first found): an id names one session.
  const ids = new Set<string>()
  const agents = (await subagentFiles(dir)).filter((a) => !ids.has(a.agentId) && ids.add(a.agentId))
  for (const a of agents) {
    const { stem, agentId } = a
    let meta: JsonObject | undefined
    let metaRaw: string | undefined
    try {
      metaRaw = await readFile(join(a.dir, `${stem}.meta.json`), 'utf8')
      const m: unknown = JSON.parse(metaRaw)
      if (isObj(m)) meta = m
    } catch (err) {
      // A sub-agent without its meta file is normal (older clients); a broken one is worth a word.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        ctx.diagnostics.warn('bad-meta', `unreadable sub-agent meta: ${reason(err)}`, { file: join(a.dir, `${stem}.meta.json`) }, HARNESS)
      }
    }
    a.meta = meta
    a.metaRaw = metaRaw
  }
  // A sub-agent a sub-agent spawned names it (`parentAgentId`; `spawnDepth` counts from 1): parents are read first.
  const depth = (a: AgentFile) => (typeof a.meta?.spawnDepth === 'number' ? a.meta.spawnDepth : 1)
  agents.sort((x, y) => depth(x) - depth(y) || (x.rel < y.rel ? -1 : x.rel > y.rel ? 1 : 0))
  for (const a of agents) {
    const { stem, agentId, meta, metaRaw } = a
    const toolUseId = typeof meta?.toolUseId === 'string' ? meta.toolUseId : shared.agentCalls.get(agentId)
    const up = typeof meta?.parentAgentId === 'string' && meta.parentAgentId !== agentId && ids.has(meta.parentAgentId) ? sessionKey(HARNESS, `agent-${meta.parentAgentId}`) : info.sid
    const parent: SessionLink = { sid: up, kind: 'subagent', agent_id: agentId, ...(toolUseId ? { tool_use_id: toolUseId } : {}) }
    const sub: NonNullable<Target['subagent']> = { agentId, side: sideDir(info.path), ...(meta ? { meta } : {}), ...(metaRaw !== undefined ? { metaRaw } : {}) }
    yield* readOne(ctx, { path: join(a.dir, `${stem}.jsonl`), nativeId: stem, sid: sessionKey(HARNESS, stem), parent, subagent: sub }, opts, shared)
  }
}

interface AgentFile {
  dir: string
  /** The path under `subagents/`, for a stable order. */
  rel: string
  stem: string
  agentId: string
  meta?: JsonObject | undefined
  metaRaw?: string | undefined
}

/** Levels of folders under `subagents/` a transcript may sit in (the client accepts a relative path of a few segments). */
const MAX_AGENT_DIRS = 5

/** Every `agent-<id>.jsonl` under `subagents/`, in it or in folders below it (symlinks not followed). */
async function subagentFiles(dir: string, rel = '', level = 0): Promise<AgentFile[]> {
  let entries: Dirent[] = []
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
  const out: AgentFile[] = []
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.isFile() && /^agent-[A-Za-z0-9_-]+\.jsonl$/.test(e.name)) {
      const stem = basename(e.name, '.jsonl')
      out.push({ dir, rel: rel + e.name, stem, agentId: stem.slice('agent-'.length) })
    } else if (e.isDirectory() && level < MAX_AGENT_DIRS && /^[A-Za-z0-9_.-]+$/.test(e.name) && e.name !== '..' && e.name !== '.') {
      out.push(...(await subagentFiles(join(dir, e.name), `${rel}${e.name}/`, level + 1)))
    }
  }
  return out
}

function isDirSync(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false
}

function contextKindOfAttachment(type: string): ContextKind {
  if (type === 'environment' || type === 'date' || type === 'model' || type === 'session_context') return 'environment'
  if (type === 'skill_listing' || type === 'invoked_skills') return 'skill'
  if (type === 'deferred_tools_delta' || type === 'agent_listing_delta' || type === 'nested_memory' || type === 'claude_md') return 'instructions'
  return 'attachment'
}

class Emitter {
  seq = 0
  readonly counts = { messages: 0, tool_uses: 0, native: 0, boundaries: 0, skipped_lines: 0, inactive: 0 }
  readonly warnings: Warning[] = []
  errors = 0
  pending: { rec: MessageRec; lastUuid: string } | null = null
  pendingCmd: string | null = null
  lastUsageApiId: string | undefined
  constructor(
    readonly ctx: StoreContext,
    readonly t: Target,
    readonly format: string,
    readonly native: boolean,
  ) {}

  warn(code: Code, detail: string, line?: number): void {
    this.ctx.diagnostics.warn(code, detail, { file: this.t.path, ...(line === undefined ? {} : { line: line + 1 }) }, HARNESS)
    this.note(code, detail, line)
  }

  /** A line that could not be read (already reported): counted, and the session is incomplete. */
  skipped(code: Code, detail: string, line: number): void {
    this.errors++
    this.counts.skipped_lines++
    this.note(code, detail, line)
  }

  /** Kept in the `end` record, bounded. */
  private note(code: Code, detail: string, line?: number): void {
    if (this.warnings.length < 100) this.warnings.push({ code, detail, at: line === undefined ? this.t.path : `${this.t.path}:${line + 1}` })
  }

  nat(no: number, raw: string | undefined): NativePass | undefined {
    return this.native ? { format: this.format, line: no, ...(raw === undefined ? {} : { raw }) } : undefined
  }

  count(rec: FerryRecord): FerryRecord {
    if (rec.kind === 'message') {
      this.counts.messages++
      for (const b of rec.blocks) if (b.type === 'tool_use') this.counts.tool_uses++
    } else if (rec.kind === 'native') this.counts.native++
    else if (rec.kind === 'boundary') this.counts.boundaries++
    return rec
  }

  flush(): FerryRecord[] {
    if (!this.pending) return []
    const rec = this.pending.rec
    this.pending = null
    return [this.count(rec)]
  }

  id(locator: string): string {
    return recordId(this.t.sid, locator)
  }

  nativeRec(no: number, type: string, obj: JsonObject | null, raw: string | undefined, extra?: JsonObject): NativeRec {
    const rec: NativeRec = { kind: 'native', sid: this.t.sid, id: this.id(typeof obj?.uuid === 'string' && !extra?.dup ? `u${obj.uuid}` : `l${no}`), seq: this.seq++, native_type: `${HARNESS}/${type}` }
    if (typeof obj?.timestamp === 'string') rec.ts = obj.timestamp
    const n = this.nat(no, raw)
    if (n) rec.native = n
    if (extra && Object.keys(extra).length) rec.x = Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'dup').map(([k, v]) => [`${HARNESS}.${k}`, v]))
    if (rec.x && !Object.keys(rec.x).length) delete rec.x
    return rec
  }
}

interface HeldLine {
  no: number
  buf: Buffer
  unterminated?: boolean
}

/**
 * The chain index and the lines of a small file from one split of its bytes
 * (what buildIndex and readLines do over two reads). Over-long lines are
 * noted in the index and reported by `reportOverlong`, when the records are
 * read, as readLines would.
 */
function indexWhole(ctx: StoreContext, path: string, data: Buffer, allowSidechain: boolean): { idx: ActiveChain; lines: HeldLine[]; reportOverlong: () => void } {
  const idx = new ChainIndex()
  const lines: HeldLine[] = []
  const overlong: Array<[number, number]> = []
  const reporter = new LineReporter(ctx, HARNESS, path)
  const noter = Object.assign(Object.create(reporter) as LineReporter, { overlong: (no: number, bytes: number) => overlong.push([no, bytes]) })
  const splitter = cappedSplitter(ctx, noter, (buf, no) => {
    lines.push({ no, buf })
    if (buf.length) idx.add(buf, no, allowSidechain)
  })
  if (data.length) splitter.push(data)
  const before = lines.length
  if (splitter.end() && lines.length > before) lines[lines.length - 1]!.unterminated = true
  for (const [no] of overlong) idx.info.overlong.push(no)
  idx.info.bytes = splitter.bytes
  idx.info.lines = splitter.lineNo
  return { idx: idx.finish(), lines, reportOverlong: () => overlong.forEach(([no, bytes]) => reporter.overlong(no, bytes)) }
}

/** The metadata discovery found (a SessionInfo it made has `bytes`), in readMeta's shape; else read now. */
async function metaOf(ctx: StoreContext, t: Target): Promise<Pick<SessionMeta, 'version' | 'title' | 'titleSource' | 'model' | 'cwd' | 'gitBranch'> & { mtimeIso?: string } | undefined> {
  const k = t.known
  if (k && typeof k.bytes === 'number') {
    return {
      ...(k.agent_version ? { version: k.agent_version } : {}),
      ...(k.title ? { title: k.title } : {}),
      ...(k.title_source ? { titleSource: k.title_source } : {}),
      ...(k.model ? { model: k.model } : {}),
      ...(k.cwd ? { cwd: k.cwd } : {}),
      ...(k.git_branch ? { gitBranch: k.git_branch } : {}),
      // Used only when no line has a timestamp, and then discovery's updated_at is the file's mtime.
      ...(k.updated_at ? { mtimeIso: k.updated_at } : {}),
    }
  }
  const m = await readMeta(ctx, t.path).catch(() => undefined)
  return m && { ...m, mtimeIso: m.mtime.toISOString() }
}

function unreadable(ctx: StoreContext, t: Target, err: unknown): void {
  if (err instanceof FerryError) ctx.diagnostics.error(err.code, err.message, err.position ?? { file: t.path }, HARNESS)
  else ctx.diagnostics.error('unreadable', `cannot read session: ${reason(err)}`, { file: t.path }, HARNESS)
}

/** A session: a small file read whole (its buffer lent for as long as its lines are read), a big one in two passes. */
async function* readOne(ctx: StoreContext, t: Target, opts: ReadOpts, shared: Shared): AsyncGenerator<FerryRecord> {
  let whole: Buffer | null
  try {
    whole = readSmallPlainFile(t.path)
  } catch (err) {
    unreadable(ctx, t, err)
    return
  }
  try {
    yield* readFromFile(ctx, t, opts, shared, whole)
  } finally {
    if (whole) returnSmallFile(whole)
  }
}

async function* readFromFile(ctx: StoreContext, t: Target, opts: ReadOpts, shared: Shared, whole: Buffer | null): AsyncGenerator<FerryRecord> {
  let idx: ActiveChain
  let held: ReturnType<typeof indexWhole> | undefined
  try {
    if (whole) {
      held = indexWhole(ctx, t.path, whole, t.subagent !== undefined)
      idx = held.idx
    } else idx = await buildIndex(ctx, t.path, t.subagent !== undefined)
  } catch (err) {
    unreadable(ctx, t, err)
    return
  }
  const meta = await metaOf(ctx, t)
  const ci = idx.info
  const version = ci.version ?? meta?.version
  const format = `${HARNESS}/jsonl@${version ?? 'unknown'}`
  let title: string | undefined
  let titleSource: string | undefined
  if (t.subagent) {
    const d = t.subagent.meta?.description
    if (typeof d === 'string' && d) [title, titleSource] = [d, 'subagent']
  } else if (ci.customTitle) [title, titleSource] = [ci.customTitle, 'custom']
  else if (ci.aiTitle) [title, titleSource] = [ci.aiTitle, 'ai']
  else if (ci.summary) [title, titleSource] = [ci.summary, 'summary']
  else if (meta?.title && meta.titleSource === 'first_prompt') [title, titleSource] = [meta.title, 'first_prompt']
  const subModel = t.subagent?.meta?.model
  const model = meta?.model ?? (typeof subModel === 'string' ? subModel : undefined)
  const cwd = ci.cwd ?? meta?.cwd
  const branch = ci.gitBranch ?? meta?.gitBranch
  const updated = ci.lastTs ?? meta?.mtimeIso
  yield sessionRecord({
    sid: t.sid,
    source: { harness: HARNESS, ...(version ? { agent_version: version } : {}), locator: { path: t.path } },
    native_id: t.nativeId,
    ...(cwd ? { cwd } : {}),
    ...(title ? { title, title_source: titleSource! } : {}),
    ...(model ? { model } : {}),
    ...(branch ? { git: { branch } } : {}),
    ...(ci.firstTs ? { created_at: ci.firstTs } : {}),
    ...(updated ? { updated_at: updated } : {}),
    ...(t.parent ? { parent: t.parent } : {}),
    ...(t.subagent?.meta && typeof t.subagent.meta.agentType === 'string' ? { x: { [`${HARNESS}.agentType`]: t.subagent.meta.agentType } } : {}),
  })
  const em = new Emitter(ctx, t, format, opts.native === true)
  if (ci.danglingParent) em.warn('dangling-parent', `the active branch stops at a missing parent entry ${ci.danglingParent}`)
  if (em.native && t.subagent?.metaRaw !== undefined) {
    yield em.count({ kind: 'native', sid: t.sid, id: em.id('meta'), seq: em.seq++, native_type: `${HARNESS}/subagent-meta`, native: { format, file: 'meta.json', raw: t.subagent.metaRaw } })
  }

  const side = t.subagent ? t.subagent.side : sideDir(t.path)
  const reporter = new LineReporter(ctx, HARNESS, t.path)
  const bad = (l: { no: number; unterminated?: boolean }, reason: string): void => {
    reporter.bad(l, reason)
    em.skipped(l.unterminated ? 'torn-line' : 'bad-line', reason, l.no)
  }
  // Exactly the bytes the first pass indexed, so both passes see the same lines;
  // this pass is the one that reports over-long lines (the first only noted them).
  // Entries a compaction kept, held back until the summary they follow (bounded by what the client kept).
  const kept: Array<{ no: number; type: string; uuid: string; obj: JsonObject; raw: string | undefined }> = []
  let anchorSeen = idx.keptAnchor === undefined
  const replayKept = async function* (): AsyncGenerator<FerryRecord> {
    for (const k of kept.splice(0)) for (const rec of await mapEntry(em, k.no, k.type, k.uuid, k.obj, k.raw, opts, side, shared)) yield rec
  }
  // A small file's lines are the ones indexed (read once); a big one is read again, exactly the bytes indexed.
  held?.reportOverlong()
  const lines: Iterable<HeldLine> | AsyncIterable<HeldLine> = held ? held.lines : readLines(ctx, t.path, { source: HARNESS, endByte: ci.bytes, transient: true })
  for await (const l of lines) {
    const start = lineStart(l.buf)
    if (start >= l.buf.length) continue
    let obj: unknown
    try {
      obj = JSON.parse(l.buf.toString('utf8', start))
    } catch (err) {
      bad(l, `not valid JSON, skipped: ${(err as Error).message}`)
      continue
    }
    if (!isObj(obj)) {
      bad(l, 'not a JSON object, skipped')
      continue
    }
    const raw = em.native ? l.buf.toString('utf8') : undefined
    const type = typeof obj.type === 'string' ? obj.type : 'unknown'
    const uuid = typeof obj.uuid === 'string' ? obj.uuid : undefined
    if (!CHAIN_TYPES.has(type) || !uuid) {
      yield* em.flush()
      yield em.count(em.nativeRec(l.no, type, obj, raw))
      continue
    }
    const dup = idx.dupLines.has(l.no)
    if (dup || !idx.isActiveLine(l.no)) {
      em.counts.inactive++
      if (em.native) {
        yield* em.flush()
        yield em.count(em.nativeRec(l.no, type, obj, raw, { inactive: true, ...(obj.isSidechain === true ? { sidechain: true } : {}), dup }))
      }
      continue
    }
    // What a compaction kept comes after its summary, as the client loads it (chain.ts).
    const keptParent = idx.kept.get(uuid)
    if (keptParent !== undefined || idx.relinked.has(uuid)) obj = { ...obj, parentUuid: keptParent ?? idx.relinked.get(uuid) }
    if (keptParent !== undefined && !anchorSeen) {
      kept.push({ no: l.no, type, uuid, obj: obj as JsonObject, raw })
      continue
    }
    for (const rec of await mapEntry(em, l.no, type, uuid, obj as JsonObject, raw, opts, side, shared)) yield rec
    if (uuid === idx.keptAnchor) {
      anchorSeen = true
      yield* replayKept()
    }
  }
  yield* replayKept()
  yield* em.flush()
  for (const no of ci.overlong) em.skipped('line-too-long', `over the ${ctx.maxLineBytes}-byte line cap, skipped`, no)

  if (em.native && !t.subagent && isDirSync(side)) {
    const dir = join(side, 'tool-results')
    let files: string[] = []
    try {
      files = (await readdir(dir)).filter((n) => SAFE_NAME.test(n)).sort()
    } catch {
      /* no spilled outputs */
    }
    for (const name of files) {
      const p = join(dir, name)
      const st = await stat(p).catch(() => undefined)
      if (!st?.isFile()) continue
      if (st.size > SIDE_FILE_CAP) {
        em.warn('side-file', `${p}: ${st.size} bytes, not passed through`)
        continue
      }
      yield em.count({ kind: 'native', sid: t.sid, id: em.id(`tool-results/${name}`), seq: em.seq++, native_type: `${HARNESS}/tool-result-file`, native: { format, file: `tool-results/${name}`, raw: await readFile(p, 'utf8') } })
    }
  }
  const end: EndRec = {
    kind: 'end',
    sid: t.sid,
    id: em.id('end'),
    complete: em.errors === 0,
    counts: { ...em.counts },
    ...(em.warnings.length ? { warnings: em.warnings } : {}),
    ...(title ? { title } : {}),
    ...(updated ? { updated_at: updated } : {}),
    ...(model ? { model } : {}),
  }
  yield end
}

function base(em: Emitter, no: number, uuid: string, obj: JsonObject, raw: string | undefined): Pick<MessageRec, 'sid' | 'id' | 'ts' | 'native'> & { parent?: string } {
  const out: Pick<MessageRec, 'sid' | 'id' | 'ts' | 'native'> & { parent?: string } = {
    sid: em.t.sid,
    id: em.id(`u${uuid}`),
    ts: typeof obj.timestamp === 'string' ? obj.timestamp : null,
  }
  if (typeof obj.parentUuid === 'string') out.parent = em.id(`u${obj.parentUuid}`)
  const n = em.nat(no, raw)
  if (n) out.native = n
  return out
}

async function mapEntry(em: Emitter, no: number, type: string, uuid: string, obj: JsonObject, raw: string | undefined, opts: ReadOpts, side: string, shared: Shared): Promise<FerryRecord[]> {
  const msg = isObj(obj.message) ? obj.message : {}
  if (type === 'assistant') {
    const blocks = blocksFromContent(msg.content)
    const apiId = typeof msg.id === 'string' ? msg.id : undefined
    const p = em.pending
    if (p && apiId && p.rec.api_message_id === apiId && obj.parentUuid === p.lastUuid) {
      p.rec.blocks.push(...blocks)
      Object.assign(p.rec, stopFromNative(msg.stop_reason))
      if (p.rec.native) (p.rec.native.merged ??= []).push({ line: no, ...(raw === undefined ? {} : { raw }) })
      p.lastUuid = uuid
      return []
    }
    const out = em.flush()
    const rec: MessageRec = { kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++, role: 'assistant', blocks }
    if (typeof msg.model === 'string') rec.model = msg.model
    if (apiId) rec.api_message_id = apiId
    if (apiId === undefined || apiId !== em.lastUsageApiId) {
      const u = usageFromNative(msg.usage)
      if (u) rec.usage = u
      em.lastUsageApiId = apiId
    }
    Object.assign(rec, stopFromNative(msg.stop_reason))
    if (obj.isApiErrorMessage === true) rec.x = { [`${HARNESS}.isApiErrorMessage`]: true }
    if (obj.isSidechain === true) rec.branch = { sidechain: true }
    em.pending = { rec, lastUuid: uuid }
    return out
  }
  const out = em.flush()
  if (type === 'system') {
    const subtype = typeof obj.subtype === 'string' ? obj.subtype : ''
    if (subtype === 'compact_boundary') {
      const cm = isObj(obj.compactMetadata) ? obj.compactMetadata : {}
      const b: BoundaryRec = { kind: 'boundary', sid: em.t.sid, id: em.id(`u${uuid}`), seq: em.seq++, type: 'compaction', ts: typeof obj.timestamp === 'string' ? obj.timestamp : null, replaces_history: true }
      if (typeof cm.trigger === 'string') b.trigger = cm.trigger
      if (typeof cm.preTokens === 'number') b.pre_tokens = cm.preTokens
      const n = em.nat(no, raw)
      if (n) b.native = n
      out.push(em.count(b))
      return out
    }
    if (subtype === 'local_command' && typeof obj.content === 'string') {
      const rec = commandRecord(em, no, uuid, obj, raw, obj.content)
      if (rec) {
        out.push(em.count(rec))
        return out
      }
    }
    const notice = noticeOf(subtype, obj)
    if (notice) {
      out.push(em.count({ kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++, role: 'system', context: true, context_kind: 'other', blocks: [{ type: 'text', text: notice.text }], x: notice.x }))
      return out
    }
    out.push(em.count(em.nativeRec(no, `system:${subtype || 'unknown'}`, obj, raw)))
    return out
  }
  if (type === 'attachment') {
    const att = isObj(obj.attachment) ? obj.attachment : {}
    const atype = typeof att.type === 'string' ? att.type : 'unknown'
    const rendered = Array.isArray(obj.rendered) ? obj.rendered.map((r) => (isObj(r) && typeof r.content === 'string' ? r.content : '')).filter((s) => s !== '') : []
    if (!rendered.length) {
      out.push(em.count(em.nativeRec(no, `attachment:${atype}`, obj, raw)))
      return out
    }
    const rec: MessageRec = {
      kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++,
      role: obj.renderedRole === 'system' ? 'system' : 'user',
      context: true, context_kind: contextKindOfAttachment(atype),
      blocks: rendered.map((text) => ({ type: 'text', text })),
      x: { [`${HARNESS}.attachment`]: atype },
    }
    out.push(em.count(rec))
    return out
  }
  // user
  const text = plainText(msg.content)
  if (text !== null && obj.isCompactSummary !== true) {
    const rec = commandRecord(em, no, uuid, obj, raw, text)
    if (rec) {
      out.push(em.count(rec))
      return out
    }
  }
  const rec: MessageRec = { kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++, role: 'user', blocks: blocksFromContent(msg.content) }
  if (obj.isSidechain === true) rec.branch = { sidechain: true }
  if (obj.isCompactSummary === true) [rec.context, rec.context_kind] = [true, 'summary']
  else if (text !== null && (obj.isMeta === true || isReminder(text) || isCaveat(text))) {
    rec.context = true
    rec.context_kind = isCaveat(text) ? 'command' : isReminder(text) ? 'reminder' : text.startsWith('Base directory for this skill') ? 'skill' : em.pendingCmd ? 'command' : 'other'
  } else if (obj.isMeta === true) [rec.context, rec.context_kind] = [true, 'other']
  const results = rec.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result')
  const tur = obj.toolUseResult
  if (results.length === 1 && tur !== undefined) results[0]!.structured = tur
  else if (tur !== undefined) rec.x = { [`${HARNESS}.toolUseResult`]: tur }
  if (results.length === 1 && isObj(tur) && typeof tur.agentId === 'string') shared.agentCalls.set(tur.agentId, results[0]!.tool_use_id)
  let changed = false
  for (const r of results) changed = (await spilled(em, r, isObj(tur) ? tur : {}, side, opts, no)) || changed
  if (changed) delete rec.native
  out.push(em.count(rec))
  return out
}

/** A slash-command call or its printed output, else null. */
/**
 * System entries that say something to the user (Claude Code 2.1.332): `away_summary` (the recap shown
 * when the user comes back), `informational` (a notice, with its `level`), `api_error` (a failed request
 * being retried). Context for the reader of a transcript, not conversation; the rest stay native.
 */
function noticeOf(subtype: string, obj: JsonObject): { text: string; x: Record<string, unknown> } | undefined {
  const x: Record<string, unknown> = { [`${HARNESS}.subtype`]: subtype }
  if (subtype === 'away_summary' || subtype === 'informational') {
    if (typeof obj.content !== 'string' || obj.content === '') return undefined
    if (typeof obj.level === 'string') x[`${HARNESS}.level`] = obj.level
    return { text: obj.content, x }
  }
  if (subtype === 'api_error') {
    const e = isObj(obj.error) ? obj.error : undefined
    const inner = e && isObj(e.error) ? e.error : undefined
    const message = typeof obj.error === 'string' ? obj.error : typeof inner?.message === 'string' ? inner.message : typeof e?.message === 'string' ? e.message : undefined
    if (!message) return undefined
    for (const k of ['retryInMs', 'retryAttempt', 'maxRetries']) if (typeof obj[k] === 'number') x[`${HARNESS}.${k}`] = obj[k]
    const retry = typeof obj.retryAttempt === 'number' && typeof obj.maxRetries === 'number' ? ` (attempt ${obj.retryAttempt} of ${obj.maxRetries})` : ''
    return { text: `API error${retry}: ${message}`, x }
  }
  return undefined
}

function commandRecord(em: Emitter, no: number, uuid: string, obj: JsonObject, raw: string | undefined, text: string): MessageRec | null {
  const cmd = parseCommand(text)
  if (cmd) {
    const callId = `${em.id(`u${uuid}`)}#call`
    em.pendingCmd = callId
    return {
      kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++, role: 'user',
      blocks: [{ type: 'tool_use', id: callId, name: cmd.name, input: { args: cmd.args } }],
      ...(cmd.message !== undefined ? { x: { [`${HARNESS}.command_message`]: cmd.message } } : {}),
    }
  }
  const output = parseCommandOutput(text)
  if (!output) return null
  const rec: MessageRec = { kind: 'message', ...base(em, no, uuid, obj, raw), seq: em.seq++, role: 'user', context: true, context_kind: 'command', blocks: [] }
  if (em.pendingCmd) {
    rec.blocks.push({ type: 'tool_result', tool_use_id: em.pendingCmd, content: output.text, ...(output.stream === 'stderr' ? { is_error: true } : {}) })
    em.pendingCmd = null
  } else rec.blocks.push({ type: 'text', text })
  return rec
}

const PERSISTED_RE = /^<persisted-output>\s*[\s\S]*?saved to:\s*(\S[^\n]*)/

/** Resolves a `<persisted-output>` preview; true when the content was replaced. */
async function spilled(em: Emitter, r: ToolResultBlock, tur: JsonObject, side: string, opts: ReadOpts, no: number): Promise<boolean> {
  const text = typeof r.content === 'string' ? r.content : r.content.length === 1 && r.content[0]!.type === 'text' ? r.content[0]!.text : null
  if (text === null || !text.startsWith('<persisted-output>')) return false
  const where = typeof tur.persistedOutputPath === 'string' ? tur.persistedOutputPath : PERSISTED_RE.exec(text)?.[1]?.trim()
  if (!where) return false
  // The recorded path is absolute and may point at the store's old location:
  // only its file name is trusted, looked up in this session's own side folder.
  const name = basename(where)
  if (!SAFE_NAME.test(name)) {
    em.warn('side-file', `refusing spilled-output path ${JSON.stringify(where)}`, no)
    return false
  }
  const local = join(side, 'tool-results', name)
  const size = typeof tur.persistedOutputSize === 'number' ? tur.persistedOutputSize : undefined
  const st = await stat(local).catch(() => undefined)
  // Only a file that is really there is referenced (a converted copy may not have its side files).
  r.truncated = { ...(size === undefined ? {} : { original_bytes: size }), ...(st?.isFile() ? { ref: { path: local } } : {}) }
  if (!opts.inlineSpilled) return false
  try {
    if (!st?.isFile()) throw new Error(`${local} is not there`)
    if (st.size > SIDE_FILE_CAP) {
      em.warn('side-file', `${local}: ${st.size} bytes, preview kept`, no)
      return false
    }
    r.content = await readFile(local, 'utf8')
    delete r.truncated
    return true
  } catch (err) {
    em.warn('side-file', `spilled output not found, preview kept: ${reason(err)}`, no)
    return false
  }
}
