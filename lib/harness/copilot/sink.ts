/**
 * Writing sessions as Copilot CLI session directories that `copilot
 * --resume=<id>` loads: `<root>/session-state/<uuid>/events.jsonl` (all the
 * client needs, verified on 1.0.102) and `workspace.yaml`, built in a temp
 * directory and renamed into place on `end`.
 *
 * A Copilot record that still has its source line (`native.raw`) is written
 * back verbatim, side files included, so a Copilot session round-trips byte
 * for byte; anything else is written from its modelled fields (log-writer.ts).
 *
 * Sub-agents live inside their parent's log, their events interleaved and
 * marked with `agentId`. A sub-agent session comes after its parent's `end`,
 * so its events are spooled beside the parent's log and merged into it when
 * the sub-agent ends (a new file renamed over the old one): verbatim lines go
 * back to their original places (by source line number), modelled ones just
 * before the parent's result of the call that started the sub-agent.
 */
import { createReadStream } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname, join, resolve as resolvePath } from 'node:path'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { ExistsError, FerryError, UnsafePathError } from '../../errors.js'
import { AtomicDir, AtomicFile, exists, sweepOnExit, tempPathFor } from '../../io/atomic.js'
import { readLines, type LineContext } from '../../io/line-file.js'
import { parseSessionKey, sourceHarness, type EndRec, type FerryRecord, type NativePass, type SessionRec } from '../../model.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import { DEFAULT_MODEL, type WriteOpts } from './flags.js'
import { Conversation, LineOut, idOfRaw, safeToolId, v5, withParent } from './log-writer.js'
import { EVENTS_FILE, HARNESS, WORKSPACE_FILE, agentIdOf, isUuid, sessionDir, store } from './paths.js'
import { renderWorkspace } from './workspace.js'

/** Written as `copilotVersion` for sessions from other harnesses (the client verified against). */
export const WRITTEN_VERSION = '1.0.102'

/** A session written in this run, for the sub-agents that follow it. */
interface Parent {
  id: string
  events: string
  /** Source line of every line of its log (-1: written from the model); null when it no longer matters. */
  orig: number[] | null
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const root = opts.out ? resolvePath(opts.out) : store.root(ctx)
  const written = new Map<string, Parent>()
  return new SessionSink(ctx, HARNESS, async (header) =>
    header.parent?.kind === 'subagent' ? AgentWriter.open(ctx, root, header, opts, written) : MainWriter.open(root, header, opts, written),
  )
}

/** The copilot source line of a record, when a writer may copy it. */
function rawOf(rec: FerryRecord): NativePass | undefined {
  const n = (rec as { native?: NativePass }).native
  return n && typeof n.raw === 'string' && typeof n.format === 'string' && n.format.startsWith(`${HARNESS}/`) ? n : undefined
}

/** The Copilot id a session of this key is written under: its own for a Copilot session, else one derived from the key. */
export function writtenId(sid: string): string {
  const { harness, nativeId } = parseSessionKey(sid)
  return harness === HARNESS && isUuid(nativeId) ? nativeId.toLowerCase() : v5(`session:${sid}`)
}

function isoOr(s: string | null | undefined, fallback: string): string {
  if (!s) return fallback
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? fallback : d.toISOString()
}

class MainWriter implements SessionWriter {
  private readonly conv: Conversation
  private readonly orig: number[] = []
  private verbatim = true
  private workspaceRaw = false
  private indexRaw = false
  /** The checkpoint files written for compactions (number and file name), for checkpoints/index.md. */
  private readonly checkpoints: Array<{ n: number; file: string }> = []

  get destination(): string {
    return this.dir.path
  }

  private constructor(
    private readonly dir: AtomicDir,
    private readonly log: LineOut,
    private readonly header: SessionRec,
    private readonly id: string,
    private readonly cwd: string,
    private readonly force: boolean,
    private readonly written: Map<string, Parent>,
    startTs: string,
  ) {
    this.conv = new Conversation({
      idBase: id,
      source: sourceHarness(header),
      startTs,
      out: async (line, orig) => {
        if (orig < 0) this.verbatim = false
        if (this.orig.length < 50_000_000) this.orig.push(orig)
        await this.log.line(line)
      },
      checkpoint: (n, summary) => this.checkpoint(n, summary),
    })
  }

  static async open(root: string, header: SessionRec, opts: WriteOpts, written: Map<string, Parent>): Promise<MainWriter> {
    const same = sourceHarness(header) === HARNESS
    const raw = same ? rawOf(header) : undefined
    let id: string
    let startRaw: string | undefined
    if (raw) {
      // The start line names the session: written verbatim, the directory must have that name.
      let named: unknown
      try {
        named = (JSON.parse(raw.raw!) as { data?: { sessionId?: unknown } }).data?.sessionId
      } catch {
        named = undefined
      }
      if (!isUuid(header.native_id)) throw new UnsafePathError(`copilot: session id ${JSON.stringify(header.native_id).slice(0, 80)} is not a UUID; refusing to use it in a path`)
      id = header.native_id.toLowerCase()
      if (named === header.native_id) startRaw = raw.raw
    } else id = writtenId(header.sid)
    const path = sessionDir(root, id)
    const dir = await AtomicDir.create(path, { force: opts.force === true, root })
    let log: LineOut
    try {
      log = new LineOut(join(dir.tmp, EVENTS_FILE))
    } catch (err) {
      await dir.abort()
      throw err
    }
    const startTs = isoOr(header.created_at ?? header.updated_at, new Date().toISOString())
    const cwd = header.cwd && header.cwd.startsWith('/') ? header.cwd : '/'
    const w = new MainWriter(dir, log, header, id, cwd, opts.force === true, written, startTs)
    if (startRaw !== undefined) await w.conv.raw(startRaw, raw!.line ?? 0)
    else {
      const model = opts.model || header.model || DEFAULT_MODEL
      await w.conv.emit('session.start', {
        sessionId: id,
        version: 1,
        producer: 'copilot-agent',
        copilotVersion: same && header.source.agent_version ? header.source.agent_version : WRITTEN_VERSION,
        startTime: startTs,
        selectedModel: model,
        context: { cwd },
      }, startTs)
    }
    return w
  }

  async write(rec: FerryRecord): Promise<void> {
    const raw = rawOf(rec)
    if (rec.kind === 'native') {
      if (!raw) return
      if (raw.file !== undefined) return this.sideFile(raw.file, raw.raw!, rec.x?.['copilot.encoding'] === 'base64')
      return this.conv.raw(raw.raw!, raw.line ?? -1)
    }
    if (raw && raw.file === undefined) return this.conv.raw(raw.raw!, raw.line ?? -1)
    return this.conv.write(rec)
  }

  /** A compaction's summary as Copilot keeps it, `checkpoints/NNN-<slug>.md`; its final path goes into the event. */
  private async checkpoint(n: number, summary: string): Promise<string> {
    const file = `${String(n).padStart(3, '0')}-compacted-conversation.md`
    await mkdir(join(this.dir.tmp, 'checkpoints'), { recursive: true, mode: 0o700 })
    await writeFile(join(this.dir.tmp, 'checkpoints', file), `# Compacted conversation\n\n${summary}\n`, { mode: 0o600 })
    if (this.checkpoints.length < 10_000) this.checkpoints.push({ n, file })
    return join(this.dir.path, 'checkpoints', file)
  }

  private async sideFile(rel: string, data: string, base64: boolean): Promise<void> {
    const parts = rel.split('/')
    if (rel === EVENTS_FILE || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0')) || parts.length > 6) {
      throw new UnsafePathError(`copilot: side file ${JSON.stringify(rel).slice(0, 80)} would leave the session directory`)
    }
    const path = join(this.dir.tmp, ...parts)
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    // A checkpoint written for a modelled compaction may already be there: the verbatim file wins.
    await writeFile(path, base64 ? Buffer.from(data, 'base64') : data, { mode: 0o600 })
    if (rel === WORKSPACE_FILE) this.workspaceRaw = true
    if (rel === 'checkpoints/index.md') this.indexRaw = true
  }

  async finish(_end?: EndRec): Promise<WrittenSession> {
    await this.conv.finish()
    await this.log.close()
    if (this.checkpoints.length && !this.indexRaw) {
      const rows = this.checkpoints.map((c) => `| ${c.n} | Compacted conversation | ${c.file} |`)
      await writeFile(
        join(this.dir.tmp, 'checkpoints', 'index.md'),
        `# Checkpoint History\n\nCheckpoints are listed in chronological order. Checkpoint 1 is the oldest, higher numbers are more recent.\n\n| # | Title | File |\n|---|-------|------|\n${rows.join('\n')}\n`,
        { mode: 0o600 },
      )
    }
    if (!this.workspaceRaw) {
      const name = this.header.title_source === 'custom' ? this.header.title : this.conv.firstPrompt ?? this.header.title
      await writeFile(
        join(this.dir.tmp, WORKSPACE_FILE),
        renderWorkspace({ id: this.id, cwd: this.cwd, ...(name ? { name: name.trim() } : {}), summary_count: this.checkpoints.length, created_at: isoOr(this.header.created_at, this.conv.lastTs), updated_at: this.conv.lastTs }),
        { flag: 'wx', mode: 0o600 },
      )
    }
    await this.dir.commit({ force: this.force })
    const events = join(this.dir.path, EVENTS_FILE)
    this.written.set(this.header.sid, { id: this.id, events, orig: this.verbatim ? this.orig : null })
    return { harness: HARNESS, id: this.id, path: events, from: this.header.sid, ...(this.header.title ? { title: this.header.title } : {}), cwd: this.cwd }
  }

  async abort(): Promise<void> {
    this.log.destroy()
    await this.dir.abort()
  }
}

class AgentWriter implements SessionWriter {
  private readonly conv: Conversation
  private readonly orig: number[] = []
  private verbatim = true
  private startedRaw = false

  private constructor(
    private readonly ctx: StoreContext,
    private readonly root: string,
    private readonly header: SessionRec,
    private readonly parent: Parent,
    private readonly agentId: string,
    private readonly toolCallId: string | undefined,
    private readonly spool: LineOut,
    private readonly force: boolean,
  ) {
    this.conv = new Conversation({
      idBase: `${parent.id}/${agentId}`,
      agentId,
      ...(toolCallId ? { parentToolCallId: toolCallId } : {}),
      source: sourceHarness(header),
      startTs: isoOr(header.created_at, new Date().toISOString()),
      out: async (line, orig) => {
        if (orig < 0) this.verbatim = false
        if (this.orig.length < 50_000_000) this.orig.push(orig)
        await this.spool.line(line)
      },
    })
  }

  static async open(ctx: StoreContext, root: string, header: SessionRec, opts: WriteOpts, written: Map<string, Parent>): Promise<AgentWriter> {
    const link = header.parent!
    let parent = written.get(link.sid)
    if (!parent) {
      const id = writtenId(link.sid)
      const events = join(sessionDir(root, id), EVENTS_FILE)
      if (!(await exists(events))) {
        throw new FerryError(`a Copilot CLI sub-agent lives inside its parent's event log, and its parent ${link.sid} is not in the store`, { code: 'invalid-input', source: HARNESS })
      }
      parent = { id, events, orig: null }
      // Checked before anything is made beside the log: a second run without force changes nothing there.
      const agent = (sourceHarness(header) === HARNESS ? agentIdOf(header.native_id) : undefined) ?? link.agent_id
      if (opts.force !== true && agent && (await holds(events, `"agentId":"${agent}"`))) throw new ExistsError(events)
    }
    const same = sourceHarness(header) === HARNESS
    const fromLink = link.agent_id && /^[A-Za-z0-9_-]{1,64}$/.test(link.agent_id) ? link.agent_id : undefined
    const agentId = (same ? agentIdOf(header.native_id) : undefined) ?? fromLink ?? v5(`agent:${header.sid}`)
    const dir = dirname(parent.events)
    sweepOnExit(dir)
    const spool = new LineOut(tempPathFor(join(dir, `agent-${agentId}.jsonl`)))
    const toolCallId = link.tool_use_id ? safeToolId(link.tool_use_id) : undefined
    return new AgentWriter(ctx, root, header, parent, agentId, toolCallId, spool, opts.force === true)
  }

  private x(k: string): string | undefined {
    const v = this.header.x?.[k]
    return typeof v === 'string' && v ? v : undefined
  }

  private agentName(): string {
    return this.x('copilot.agentName') ?? 'general-purpose'
  }

  private displayName(): string {
    return this.x('copilot.agentDisplayName') ?? this.header.title ?? 'sub-agent'
  }

  private model(): string {
    return this.header.model || DEFAULT_MODEL
  }

  /** The call that started it; a sub-agent without one gets a derived id (Copilot requires the field). */
  private callId(): string {
    return this.toolCallId ?? `toolu_ferry_${v5(`call:${this.header.sid}`).replace(/-/g, '').slice(0, 24)}`
  }

  private async started(): Promise<void> {
    if (this.startedRaw || this.conv.firstId !== null) return
    const str = (k: string) => this.x(k)
    const title = this.header.title ?? 'sub-agent'
    // Every field Copilot 1.0.102 wrote: it refuses a log whose sub-agent events lack one ("missing field").
    await this.conv.emit('subagent.started', {
      toolCallId: this.callId(),
      agentName: this.agentName(),
      agentDisplayName: this.displayName(),
      agentDescription: title,
      model: this.model(),
      taskModelSource: 'unset',
      modelSelectionSource: 'session_inheritance',
      resumable: false,
      agentType: str('copilot.agentType') ?? 'general-purpose',
      executionMode: 'sync',
    })
  }

  async write(rec: FerryRecord): Promise<void> {
    const raw = rawOf(rec)
    if (raw && raw.file === undefined) {
      if (rec.kind === 'native' && rec.native_type === `${HARNESS}/subagent.started`) this.startedRaw = true
      return this.conv.raw(raw.raw!, raw.line ?? -1)
    }
    if (rec.kind !== 'message' && rec.kind !== 'boundary') return
    await this.started()
    return this.conv.write(rec)
  }

  async finish(_end?: EndRec): Promise<WrittenSession> {
    await this.started()
    await this.conv.finish()
    if (!this.startedRaw) {
      const model = this.model()
      await this.conv.emit('subagent.completed', {
        toolCallId: this.callId(),
        agentName: this.agentName(),
        agentDisplayName: this.displayName(),
        durationMs: Math.max(0, Date.parse(this.conv.lastTs) - Date.parse(isoOr(this.header.created_at, this.conv.lastTs))) || 0,
        firstDispatchedModel: model,
        model,
        modelSelectionSource: 'session_inheritance',
        totalTokens: this.conv.tokens,
        totalToolCalls: this.conv.toolCalls,
      })
    }
    await this.spool.close()
    try {
      await this.merge()
    } finally {
      await rm(this.spool.path, { force: true })
    }
    return { harness: HARNESS, id: `agent-${this.agentId}`, path: this.parent.events, from: this.header.sid, ...(this.header.title ? { title: this.header.title } : {}), note: `sub-agent inside Copilot session ${this.parent.id}` }
  }

  /** The parent's log with this sub-agent's events in their place, renamed over it. */
  private async merge(): Promise<void> {
    const quiet: LineContext = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: this.ctx.maxLineBytes }
    const byLine = this.verbatim && this.parent.orig !== null && this.orig.length > 0
    const out = await AtomicFile.create(this.parent.events, { force: true, root: this.root })
    const merged: number[] = []
    try {
      const spool = readLines(quiet, this.spool.path, { source: HARNESS })[Symbol.asyncIterator]()
      let k = 0
      let inserted = false
      let prevId: string | null = null
      let fixNext = false
      const marker = `"agentId":"${this.agentId}"`
      const pump = async (until: number) => {
        // Spooled lines (in order) whose source line is before `until` (all of them for Infinity).
        while (k < this.orig.length && (this.orig[k]! < until || until === Infinity)) {
          const r = await spool.next()
          if (r.done) break
          let text = r.value.buf.toString('utf8')
          if (!byLine && k === 0 && prevId !== null) text = withParent(text, prevId)
          await out.write(text + '\n')
          merged.push(this.orig[k]!)
          k++
        }
      }
      let i = 0
      for await (const l of readLines(quiet, this.parent.events, { source: HARNESS })) {
        let text = l.buf.toString('utf8')
        const o = this.parent.orig?.[i] ?? -1
        i++
        if (text.includes(marker)) {
          if (!this.force) throw new ExistsError(this.parent.events)
          continue
        }
        if (byLine) {
          if (o >= 0) await pump(o)
        } else if (!inserted && this.toolCallId && text.includes('"tool.execution_complete"') && text.includes(`"toolCallId":"${this.toolCallId}"`) && !text.includes('"agentId"')) {
          await pump(Infinity)
          inserted = true
          fixNext = true
        }
        if (fixNext) {
          text = withParent(text, this.conv.chainId())
          fixNext = false
        }
        await out.write(text + '\n')
        merged.push(o)
        prevId = idOfRaw(text) ?? prevId
      }
      await pump(Infinity)
      await spool.return?.(undefined)
      await out.commit({ force: true })
    } catch (err) {
      await out.abort()
      throw err
    }
    this.parent.orig = merged.length <= 50_000_000 ? merged : null
  }

  async abort(): Promise<void> {
    this.spool.destroy()
    await rm(this.spool.path, { force: true })
  }
}

/** Whether the file holds `needle` (read in chunks; a needle across two chunks is found too). */
async function holds(path: string, needle: string): Promise<boolean> {
  const want = Buffer.from(needle)
  let tail: Buffer = Buffer.alloc(0)
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    const buf = tail.length ? Buffer.concat([tail, chunk]) : chunk
    if (buf.includes(want)) return true
    tail = buf.subarray(Math.max(0, buf.length - want.length + 1))
  }
  return false
}


