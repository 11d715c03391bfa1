/**
 * Writing ferry records as Gemini CLI chat recordings that `gemini --resume`
 * loads: `<root>/tmp/<short id>/chats/session-<time>-<id8>.jsonl` with the
 * project registered the way Gemini resolves it (`projects.json` and the
 * `.project_root` marker), sub-agents in `chats/<parent id>/<id>.jsonl`.
 *
 * One `gemini` record per model turn (consecutive assistant messages are one
 * turn), each call's result inside its `toolCalls[].result` and nowhere else:
 * Gemini sends both copies of a result it wrote itself on resume, ferry adds
 * no second copy (docs/formats/gemini.md). Records that a `$rewindTo` removed
 * (`branch.active: false`) are written and rewound again. Lines that arrive
 * with Gemini `native.raw` (and its `merged` copies) are written verbatim, so
 * a Gemini session read with `native: true` comes back byte for byte.
 */
import { isAbsolute, join, resolve } from 'node:path'
import { readdir, readFile } from 'node:fs/promises'
import { ExistsError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { AtomicFile, exists, writeWholeFile } from '../../io/atomic.js'
import { insideRoot } from '../../io/inside-root.js'
import { isObj, resultText, sourceHarness, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type NativePass, type SessionRec, type ToolResultBlock, failedResult } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { blocksToParts, functionResponsePart, mediaPart, resultImages, type Part } from '../family/gemini-parts.js'
import { CompactionSpan, SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import type { WriteOpts } from './flags.js'
import { baseSlug, chatPath, projectDir, projectHash, sessionFileName, store, uuidFor } from './paths.js'
import { storedCallId } from './records.js'

interface Call {
  id: string
  name: string
  args: unknown
  result?: Part[]
  status?: string
}

interface Turn {
  id: string
  timestamp: string
  text: string[]
  thoughts: Array<{ subject: string; description: string; timestamp: string }>
  calls: Call[]
  model?: string
  tokens?: Record<string, number>
}

function isoOr(v: string | null | undefined, fallback: string): string {
  const t = v ? Date.parse(v) : NaN
  return Number.isFinite(t) ? new Date(t).toISOString() : fallback
}

/** The short id Gemini resolves for a project root: its `projects.json` entry, a `.project_root` claiming it, else the first free slug. */
async function projectSlug(root: string, project: string): Promise<{ slug: string; registry: JsonObject }> {
  let registry: JsonObject = { projects: {} }
  try {
    const v = JSON.parse(await readFile(join(root, 'projects.json'), 'utf8'))
    if (isObj(v) && isObj(v.projects)) registry = v
  } catch {
    /* none yet */
  }
  const known = registry.projects[project]
  if (typeof known === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(known)) return { slug: known, registry }
  const taken = new Set(Object.values(registry.projects))
  const base = baseSlug(project)
  for (let n = 0; ; n++) {
    const slug = n === 0 ? base : `${base}-${n}`
    if (taken.has(slug)) continue
    let owner: string | undefined
    try {
      owner = (await readFile(join(projectDir(root, slug), '.project_root'), 'utf8')).trim()
    } catch {
      /* unclaimed */
    }
    if (owner === undefined || owner === project) return { slug, registry }
  }
}

class GeminiWriter implements SessionWriter {
  private turn: Turn | null = null
  private rewindFrom: string | null = null
  private compaction = new CompactionSpan()
  private lastTs: string
  private buffer = ''
  private counter = 0

  constructor(
    private readonly file: AtomicFile,
    private readonly header: SessionRec,
    readonly id: string,
    private readonly source: string,
    private readonly commitRegistry: () => Promise<void>,
    private readonly written: WrittenSession,
    private readonly force: boolean,
  ) {
    this.lastTs = isoOr(header.created_at, new Date().toISOString())
  }

  static async open(ctx: StoreContext, root: string, header: SessionRec, opts: WriteOpts, parents: Map<string, { id: string; slug: string }>): Promise<GeminiWriter> {
    const source = sourceHarness(header)
    const id = uuidFor(source === 'gemini' ? header.native_id : header.sid)
    const project = header.cwd && isAbsolute(header.cwd) ? resolve(header.cwd) : resolve(ctx.home)
    const parent = header.parent?.kind === 'subagent' ? parents.get(header.parent.sid) : undefined
    const { slug, registry } = parent ? { slug: parent.slug, registry: null } : await projectSlug(root, project)
    const created = isoOr(header.created_at, new Date().toISOString())
    const path = parent ? chatPath(root, slug, parent.id, `${id}.jsonl`) : chatPath(root, slug, sessionFileName(created, id))
    await insideRoot(root, path)
    // Known before the file is made: a sub-agent of a parent that already exists goes under the stored one.
    if (!parent) parents.set(header.sid, { id, slug })
    if (!parent && !opts.force) {
      // The same session under another minute's file name is the same session.
      const dir = join(projectDir(root, slug), 'chats')
      const names = await readdir(dir).catch(() => [] as string[])
      const twin = names.find((n) => n.endsWith(`-${id.slice(0, 8)}.jsonl`) && n !== sessionFileName(created, id))
      if (twin) {
        throw new ExistsError(join(dir, twin))
      }
    }
    const file = await AtomicFile.create(path, { force: opts.force === true, root })
    const commitRegistry = async () => {
      if (!registry) return
      const marker = join(projectDir(root, slug), '.project_root')
      if (!(await exists(marker))) await writeWholeFile(marker, project, { root })
      if (registry.projects[project] !== slug) {
        registry.projects[project] = slug
        await writeWholeFile(join(root, 'projects.json'), JSON.stringify(registry, null, 2), { force: true, root })
      }
    }
    const note = `Gemini CLI lists a session only in its project: resume it from ${project}`
    const written: WrittenSession = { harness: 'gemini', id, path, from: header.sid, cwd: project, note, ...(header.title ? { title: header.title } : {}) }
    const w = new GeminiWriter(file, header, id, source, commitRegistry, written, opts.force === true)
    const raw = w.ownRaw(header)
    if (raw) w.rawLines(raw)
    // The source's title as Gemini's own `summary`: its session list (and ferry's) shows it, not the first user text, which
    // from another agent may be injected context (`<user_info>`). A sub-agent's summary is its result, so none there.
    else w.line({ sessionId: id, projectHash: projectHash(project), startTime: created, lastUpdated: isoOr(header.updated_at, created), ...(!parent && header.title?.trim() ? { summary: header.title.trim() } : {}), kind: parent ? 'subagent' : 'main' })
    return w
  }

  /** The source lines of a record this sink may write verbatim, in file order; [] for a record whose bytes are in another one's. */
  private ownRaw(rec: { native?: NativePass }): Array<{ line?: number; raw: string }> | null {
    const n = rec.native
    if (!n || this.source !== 'gemini' || typeof n.format !== 'string' || !n.format.startsWith('gemini/')) return null
    const lines: Array<{ line?: number; raw: string }> = []
    for (const m of n.merged ?? []) if (typeof m.raw === 'string') lines.push({ ...(m.line !== undefined ? { line: m.line } : {}), raw: m.raw })
    if (typeof n.raw === 'string') lines.push({ ...(n.line !== undefined ? { line: n.line } : {}), raw: n.raw })
    return lines.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
  }

  private rawLines(lines: Array<{ raw: string }>): void {
    for (const l of lines) this.buffer += l.raw + '\n'
  }

  private line(v: unknown): void {
    this.buffer += JSON.stringify(v) + '\n'
  }

  private async drain(): Promise<void> {
    if (this.buffer.length < 256 * 1024) return
    const b = this.buffer
    this.buffer = ''
    await this.file.write(b)
  }

  private msgId(rec: { id: string }): string {
    const tail = rec.id.startsWith(this.header.sid + ':') ? rec.id.slice(this.header.sid.length + 1) : rec.id
    if (this.source === 'gemini' && !tail.includes('#') && !tail.includes('@') && !tail.startsWith('line:')) return tail
    return uuidFor(`${this.header.sid}/${rec.id}/${this.counter++}`)
  }

  async write(rec: FerryRecord): Promise<void> {
    if (rec.kind === 'message') {
      const [note, keep] = this.compaction.message(rec)
      this.note(note, rec.ts)
      if (keep) await this.message(rec)
    } else {
      const raw = this.ownRaw(rec as { native?: NativePass })
      if (raw?.length) {
        this.flushTurn()
        if (rec.kind === 'boundary' && rec.type === 'rewind') this.rewindFrom = null
        this.rawLines(raw)
      } else if (rec.kind === 'boundary' && rec.type === 'compaction') {
        // Gemini CLI keeps no compaction in its chat file: another agent's stays visible as its summary
        // or a note (session-sink.ts, CompactionSpan). A rewind is rewritten from the branch flags.
        this.note(this.compaction.start(rec), rec.ts)
      }
    }
    await this.drain()
  }

  /** A compaction's note, as a user record of its own. */
  private note(text: string | null, ts: string | null | undefined): void {
    if (text === null) return
    this.flushTurn()
    this.line({ id: uuidFor(`${this.header.sid}/compaction/${this.counter++}`), timestamp: isoOr(ts, this.lastTs), type: 'user', content: [{ text }] })
  }

  private async message(m: MessageRec): Promise<void> {
    const raw = this.ownRaw(m)
    const inactive = m.branch?.active === false
    if (!inactive && this.rewindFrom) {
      this.flushTurn()
      this.line({ $rewindTo: this.rewindFrom })
      this.rewindFrom = null
    }
    if (raw) {
      // Gemini's own line(s); a record without bytes (a model turn's results) is inside the one before.
      if (raw.length) {
        this.flushTurn()
        this.rawLines(raw)
      }
      return
    }
    const ts = isoOr(m.ts, this.lastTs)
    this.lastTs = ts
    // A summary (OpenCode writes it as an assistant step) is a turn of its own, after the turns it sums up.
    if (m.context_kind === 'summary') this.flushTurn()
    if (m.role === 'assistant') {
      if (inactive && !this.rewindFrom) {
        this.flushTurn()
      }
      this.addToTurn(m, ts)
      if (inactive) this.rewindFrom ??= this.turn!.id
      return
    }
    if (m.role === 'system') {
      this.flushTurn()
      const text = m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')
      const id = this.msgId(m)
      if (inactive) this.rewindFrom ??= id
      this.line({ id, timestamp: ts, type: typeof m.x?.['gemini.type'] === 'string' ? m.x['gemini.type'] : 'info', content: text })
      return
    }
    // A user message: results go into the open turn's calls, the rest is a user record.
    const rest = []
    for (const b of m.blocks) {
      if (b.type === 'tool_result' && this.attach(b)) continue
      rest.push(b)
    }
    if (rest.length === 0 && m.blocks.length > 0) return
    this.flushTurn()
    // A user record holds no calls, and a response only right after its call (the API refuses anything else):
    // a call the user ran (a local command) and a result with no call of this turn are written as text.
    const parts = blocksToParts(
      rest.map((b) => (b.type === 'tool_use' ? { type: 'text' as const, text: `[${b.name}] ${JSON.stringify(b.input)}` } : b.type === 'tool_result' ? { type: 'text' as const, text: resultText(b.content) } : b)),
      () => '',
    )
    if (parts.length === 0 && rest.length === 0) return
    const id = this.msgId(m)
    if (inactive) this.rewindFrom ??= id
    this.line({ id, timestamp: ts, type: 'user', content: parts })
  }

  private addToTurn(m: MessageRec, ts: string): void {
    // A turn whose calls have results is over: the next assistant message is a new model turn.
    if (this.turn && this.turn.calls.length > 0 && this.turn.calls.every((c) => c.result)) this.flushTurn()
    const t = (this.turn ??= { id: this.msgId(m), timestamp: ts, text: [], thoughts: [], calls: [] })
    if (m.model && !t.model) t.model = m.model
    if (m.usage) {
      const u = m.usage
      const cached = u.cache_read_tokens ?? 0
      const thoughts = u.reasoning_tokens ?? 0
      const input = (u.input_tokens ?? 0) + cached
      const output = Math.max(0, (u.output_tokens ?? 0) - thoughts)
      t.tokens = { input, output, cached, thoughts, tool: 0, total: u.total_tokens ?? input + output + thoughts }
    }
    for (const b of m.blocks) {
      if (b.type === 'text' && b.text) t.text.push(b.text)
      else if (b.type === 'thinking' && b.text) t.thoughts.push({ subject: '', description: b.text, timestamp: ts })
      else if (b.type === 'tool_use') {
        const n = toNative('gemini', b, this.source)
        t.calls.push({ id: storedCallId(b.id || `call_${t.calls.length}`, n.name), name: n.name, args: isObj(n.input) ? n.input : { input: n.input } })
      } else if (b.type === 'image' || b.type === 'file') {
        const p = mediaPart(b)
        if (p) t.text.push(`[${b.type}: ${b.mime}]`)
      }
    }
  }

  /** A result for a call of the open turn: into its `result`. */
  private attach(b: ToolResultBlock): boolean {
    const call = this.turn?.calls.find((c) => c.id === b.tool_use_id || c.id === storedCallId(b.tool_use_id, c.name))
    if (!call || call.result) return false
    const parts: Part[] = [functionResponsePart(call.id, call.name, b)]
    for (const img of resultImages(b)) {
      const p = mediaPart(img)
      if (p) parts.push(p)
    }
    call.result = parts
    call.status = failedResult(b) ? 'error' : 'success'
    return true
  }

  private flushTurn(): void {
    const t = this.turn
    if (!t) return
    this.turn = null
    const rec: JsonObject = { id: t.id, timestamp: t.timestamp, type: 'gemini', content: t.text.join('\n\n') }
    if (t.thoughts.length) rec.thoughts = t.thoughts
    if (t.tokens) rec.tokens = t.tokens
    if (t.model) rec.model = t.model
    if (t.calls.length) {
      rec.toolCalls = t.calls.map((c) => ({
        id: c.id,
        name: c.name,
        args: c.args,
        // A call the source never answered: Gemini needs a response for every call it replays.
        result: c.result ?? [{ functionResponse: { id: c.id, name: c.name, response: { error: 'No result was recorded for this call.' } } }],
        status: c.status ?? 'cancelled',
        timestamp: t.timestamp,
      }))
    }
    this.line(rec)
  }

  async finish(_end?: EndRec): Promise<WrittenSession> {
    this.note(this.compaction.end(), this.lastTs)
    this.flushTurn()
    if (this.rewindFrom) this.line({ $rewindTo: this.rewindFrom })
    await this.file.write(this.buffer)
    this.buffer = ''
    await this.file.commit({ force: this.force })
    await this.commitRegistry()
    return this.written
  }

  async abort(): Promise<void> {
    await this.file.abort()
  }
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  const root = opts.out ? resolve(opts.out) : store.root(ctx)
  const parents = new Map<string, { id: string; slug: string }>()
  return new SessionSink(ctx, 'gemini', (header) => GeminiWriter.open(ctx, root, header, opts, parents))
}
