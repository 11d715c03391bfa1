/**
 * `--to cursor`: each session becomes (1) the nested agent transcript
 * `projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl` (sub-agents under
 * `subagents/`), Cursor's readable export, and (2) a CLI chat store
 * `chats/<md5(cwd)>/<uuid>/store.db` + `meta.json` + `prompt_history.json`
 * with JSON message blobs addressed by their SHA-256, a protobuf root blob
 * listing them, and `meta["0"]` as hex JSON pointing at it (what
 * `agent --resume=<uuid>` looks for). `--cursor-store` picks the stores;
 * `auto` writes a session read from a Cursor transcript back as a transcript
 * only (byte for byte) and everything else to both. ferry never writes the
 * editor's `state.vscdb`.
 */
import type { ResultPart } from '../../model.js'
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { StoreContext } from '../../context.js'
import { ExistsError, FerryError } from '../../errors.js'
import { AtomicDir, AtomicFile, exists } from '../../io/atomic.js'
import { sourceHarness, type Block, type FerryRecord, type MessageRec, type SessionRec, type ToolUseBlock, failedResult } from '../../model.js'
import { toNative } from '../../vocabulary/index.js'
import { SessionSink, type SessionWriter } from '../session-sink.js'
import type { WrittenSession } from '../types.js'
import { CHAT_FORMAT } from './chatstore.js'
import type { WriteOpts } from './flags.js'
import { chatBucket, isSafeComponent, slugFor, store, under } from './paths.js'
import { encodeRoot } from './protobuf.js'
import { wrapQuery } from './text.js'
import { NO_OUTPUT_X, TRANSCRIPT_FORMAT } from './transcript.js'

/**
 * A tool result as the text Cursor stores. Cursor's result fields hold text
 * only (as far as the readers we learned from show), so an image a tool
 * returned becomes a visible placeholder rather than vanishing.
 */
function resultString(content: string | ResultPart[]): string {
  if (typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? p.text : p.type === 'image' ? `[image: ${p.mime ?? 'image'}${p.data ? `, ${Math.floor((p.data.length * 3) / 4)} bytes` : ''} — not kept in Cursor's format]` : '')).join('')
}

function transcriptContent(m: MessageRec, source: string): unknown[] {
  const out: unknown[] = []
  for (const b of m.blocks) {
    switch (b.type) {
      case 'text':
        out.push({ type: 'text', text: m.role === 'user' && !m.context ? wrapQuery(b.text, m.ts) : b.text })
        break
      case 'thinking':
        if (b.text) out.push({ type: 'thinking', text: b.text })
        break
      case 'tool_use': {
        const n = toNative('cursor', b as ToolUseBlock, source)
        out.push({ type: 'tool_use', id: b.id, name: n.name, input: n.input })
        break
      }
      case 'tool_result':
        out.push({ type: 'tool_result', tool_use_id: b.tool_use_id, content: resultString(b.content), ...(failedResult(b) ? { is_error: true } : {}) })
        break
      case 'image':
        if (b.data) out.push({ type: 'image', source: { type: 'base64', media_type: b.mime, data: b.data } })
        break
      default:
    }
  }
  return out
}

/** A message as the CLI's AI-SDK-like JSON blob(s). */
function chatBlobs(m: MessageRec, source: string): Array<Record<string, unknown>> {
  const ms = m.ts ? Date.parse(m.ts) : undefined
  const at = ms !== undefined && !Number.isNaN(ms) ? { createdAt: ms } : {}
  const results = m.blocks.filter((b) => b.type === 'tool_result')
  const rest = m.blocks.filter((b) => b.type !== 'tool_result')
  const out: Array<Record<string, unknown>> = []
  if (rest.length) {
    const content: unknown[] = []
    for (const b of rest as Block[]) {
      if (b.type === 'text') content.push({ type: 'text', text: m.role === 'user' && !m.context ? `<user_query>\n${b.text}\n</user_query>` : b.text })
      else if (b.type === 'thinking') content.push(b.redacted && b.encrypted ? { type: 'redacted-reasoning', data: b.encrypted } : { type: 'reasoning', text: b.text, ...(b.signature ? { signature: b.signature } : {}) })
      else if (b.type === 'tool_use') {
        const n = toNative('cursor', b as ToolUseBlock, source)
        content.push({ type: 'tool-call', toolCallId: b.id, toolName: n.name, args: n.input })
      } else if (b.type === 'image' && b.data) content.push({ type: 'image', source: { type: 'base64', media_type: b.mime, data: b.data } })
    }
    if (content.length) out.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content, ...at, ...(m.role === 'assistant' && m.model ? { providerOptions: { cursor: { modelName: m.model } } } : {}) })
  }
  if (results.length)
    out.push({
      role: 'tool',
      content: results.map((b) => (b.type === 'tool_result' ? { type: 'tool-result', toolCallId: b.tool_use_id, toolName: '', result: resultString(b.content), ...(failedResult(b) ? { isError: true } : {}) } : {})),
      ...at,
    })
  return out
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

class CursorWriter implements SessionWriter {
  private recs: FerryRecord[] = []
  private dirs: AtomicDir[] = []
  private file: AtomicFile | null = null
  constructor(
    private readonly root: string,
    private readonly header: SessionRec,
    private readonly opts: WriteOpts,
    private readonly parents: Map<string, string>,
  ) {}

  write(rec: FerryRecord): void {
    this.recs.push(rec)
  }

  /** A result ferry's reader made because Cursor's transcript keeps none: not written back into a transcript. */
  /** The folder (or transcript) being written: where a write error that names no file is reported. */
  get destination(): string | undefined {
    return this.dirs.at(-1)?.path ?? this.file?.path
  }

  private madeByReader(r: FerryRecord): boolean {
    return sourceHarness(this.header) === 'cursor' && r.kind === 'message' && r.x?.[NO_OUTPUT_X] === true
  }

  /**
   * Neither Cursor store has a compaction record: the summary (or a note that there is no
   * readable one) becomes a visible user turn, unless the summary message itself follows.
   */
  private compactionNote(i: number): string | null {
    const r = this.recs[i]!
    if (r.kind !== 'boundary') return null
    const at = this.recs.findIndex((x, k) => k > i && x.kind === 'message')
    if (at >= 0 && this.summaries().get(at) === 'wrap') return null
    return r.summary?.trim()
      ? `[The conversation was compacted here. Summary of the earlier part:]\n${r.summary}`
      : '[ferry] The conversation was compacted here; the source kept no readable summary. The turns before this point are kept above.'
  }

  private plan: Map<number, 'wrap' | 'drop'> | null = null

  /**
   * What becomes of each summary-context message: the summary itself is written inside
   * `<conversation_summary>` (so it reads back as context); history another agent's compaction
   * kept besides its summary (Codex's replacement history: earlier prompts again) is dropped,
   * since Cursor keeps every turn and has no compaction for it to stand in for.
   */
  private summaries(): Map<number, 'wrap' | 'drop'> {
    if (this.plan) return this.plan
    const plan = new Map<number, 'wrap' | 'drop'>()
    let summary: string | null = null
    for (const [i, r] of this.recs.entries()) {
      if (r.kind === 'boundary' && r.type === 'compaction') summary = r.summary?.trim() || null
      else if (r.kind === 'message') {
        if (r.context !== true || r.context_kind !== 'summary' || this.ownsNative(r, TRANSCRIPT_FORMAT) || this.ownsNative(r, CHAT_FORMAT)) {
          summary = null
          continue
        }
        const text = r.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        plan.set(i, summary !== null && !text.includes(summary) ? 'drop' : 'wrap')
      }
    }
    return (this.plan = plan)
  }

  /** The message as written: a summary wrapped in Cursor's summary tag. */
  private asWritten(i: number, r: MessageRec): MessageRec | null {
    const p = this.summaries().get(i)
    if (p === 'drop') return null
    if (p !== 'wrap') return r
    return { ...r, blocks: r.blocks.map((b) => (b.type === 'text' && !/^\s*<conversation_summary>/.test(b.text) ? { ...b, text: `<conversation_summary>\n${b.text}\n</conversation_summary>` } : b)) }
  }

  private ownsNative(r: FerryRecord, format: string): r is FerryRecord & { native: { raw: string } } {
    const n = (r as { native?: { format?: string; raw?: unknown } }).native
    return sourceHarness(this.header) === 'cursor' && n?.format === format && typeof n.raw === 'string'
  }

  async finish(): Promise<WrittenSession[]> {
    const h = this.header
    const id = h.native_id
    if (!isSafeComponent(id)) throw new FerryError(`refusing unsafe Cursor session id ${JSON.stringify(id)}`, { code: 'unsafe-path' })
    const source = sourceHarness(h)
    const choice = this.opts.store ?? 'auto'
    const transcriptNative = this.recs.length > 0 && this.recs.every((r) => r.kind !== 'message' || this.ownsNative(r, TRANSCRIPT_FORMAT) || this.madeByReader(r))
    const parentDir = h.parent ? this.parents.get(h.parent.sid) : undefined
    const wantChat = !parentDir && (choice === 'chat' || choice === 'both' || (choice === 'auto' && !(source === 'cursor' && transcriptNative)))
    const wantTranscript = choice !== 'chat'
    const cwd = typeof h.cwd === 'string' && h.cwd.startsWith('/') ? h.cwd : undefined
    const xslug = h.x?.['cursor.slug']
    const slug = source === 'cursor' && typeof xslug === 'string' && isSafeComponent(xslug) ? xslug : slugFor(cwd ?? '') || 'ferry-unknown-workspace'
    const written: WrittenSession[] = []
    const force = this.opts.force ?? false
    const lines: string[] = []
    for (const [i, r] of this.recs.entries()) {
      if (this.madeByReader(r)) continue
      if (this.ownsNative(r, TRANSCRIPT_FORMAT)) lines.push(r.native.raw)
      else if (r.kind === 'boundary' && r.type === 'compaction') {
        const text = this.compactionNote(i)
        if (text) lines.push(JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text }] } }))
      } else if (r.kind === 'message' && r.role !== 'system') {
        const m = this.asWritten(i, r)
        const content = m ? transcriptContent(m, source) : []
        if (content.length) lines.push(JSON.stringify({ role: r.role, message: { content } }))
      }
    }
    const text = lines.length ? lines.join('\n') + '\n' : ''
    // Check every target first: nothing is written when one already exists.
    let tDir: string | undefined
    let tFile: string | undefined
    if (wantTranscript) {
      if (parentDir) tFile = join(parentDir, 'subagents', `${id}.jsonl`)
      else {
        tDir = under(this.root, 'projects', slug, 'agent-transcripts', id)
        tFile = join(tDir, `${id}.jsonl`)
      }
      if (!force && (await exists(tDir ?? tFile))) {
        // Its sub-agents (next in the stream) then meet the same refusal, not a new top-level session.
        if (tDir) this.parents.set(h.sid, tDir)
        throw new ExistsError(tDir ?? tFile)
      }
    }
    const cDir = wantChat ? under(this.root, 'chats', chatBucket(cwd ?? ''), id) : undefined
    if (cDir && !force && (await exists(cDir))) throw new ExistsError(cDir)
    if (cDir) {
      const d = await AtomicDir.create(cDir, { force, root: this.root })
      this.dirs.push(d)
      this.writeChat(join(d.tmp, 'store.db'), source, cwd)
      const title = h.title ?? ''
      const c = h.created_at ? Date.parse(h.created_at) : Date.now()
      const u = h.updated_at ? Date.parse(h.updated_at) : c
      await writeFile(join(d.tmp, 'meta.json'), JSON.stringify({ schemaVersion: 1, title, ...(cwd ? { cwd } : {}), createdAtMs: c, updatedAtMs: u, hasConversation: true }) + '\n')
      const prompts = this.recs.flatMap((r) => (r.kind === 'message' && r.role === 'user' && !r.context ? r.blocks.flatMap((b) => (b.type === 'text' && b.text.trim() ? [b.text] : [])) : []))
      await writeFile(join(d.tmp, 'prompt_history.json'), JSON.stringify(prompts) + '\n')
    }
    if (tDir) {
      const d = await AtomicDir.create(tDir, { force, root: this.root })
      this.dirs.push(d)
      await writeFile(join(d.tmp, `${id}.jsonl`), text)
    } else if (tFile) {
      this.file = await AtomicFile.create(tFile, { force, root: this.root })
      await this.file.write(text)
    }
    for (const d of this.dirs) await d.commit({ force })
    if (this.file) await this.file.commit({ force })
    if (tDir) this.parents.set(h.sid, tDir)
    const path = tFile ?? join(cDir!, 'store.db')
    written.push({ harness: 'cursor', id, path, from: h.sid, ...(h.title ? { title: h.title } : {}), ...(cDir ? { note: `agent --resume=${id} (CLI store: experimental, see docs/formats/cursor.md)` } : { note: 'an agent transcript is a readable export; Cursor does not resume from it' }) })
    return written
  }

  private writeChat(path: string, source: string, cwd: string | undefined): void {
    const db = new Database(path)
    try {
      db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);')
      const ins = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)')
      const ids: string[] = []
      const put = (b: Buffer) => {
        const id = sha(b)
        ins.run(id, b)
        ids.push(id)
      }
      let model: string | undefined = this.header.model
      db.transaction(() => {
        if (!this.recs.some((r) => this.ownsNative(r, CHAT_FORMAT) && r.kind === 'native')) put(Buffer.from(JSON.stringify({ role: 'system', content: 'You are a coding agent running in the Cursor CLI. (Conversation imported by ferry.)' })))
        for (const [i, r] of this.recs.entries()) {
          if (this.ownsNative(r, CHAT_FORMAT)) put(Buffer.from(r.native.raw, 'utf8'))
          else if (r.kind === 'boundary' && r.type === 'compaction') {
            const text = this.compactionNote(i)
            if (text) put(Buffer.from(JSON.stringify({ role: 'user', content: [{ type: 'text', text }] })))
          }
          else if (r.kind === 'message' && r.role !== 'system') {
            if (r.model) model = r.model
            const m = this.asWritten(i, r)
            if (m) for (const b of chatBlobs(m, source)) put(Buffer.from(JSON.stringify(b)))
          }
        }
        const h = this.header
        const ms = h.created_at ? Date.parse(h.created_at) : Date.now()
        const root = encodeRoot(ids, cwd ? `file://${cwd}` : '', ms)
        const rootId = sha(root)
        ins.run(rootId, root)
        const agent = { agentId: h.native_id, latestRootBlobId: rootId, name: h.title ?? 'New Agent', createdAt: ms, mode: 'default', lastUsedModel: model ?? 'default', ...(cwd ? { workspacePath: cwd } : {}) }
        db.prepare(`INSERT INTO meta (key, value) VALUES ('0', ?)`).run(Buffer.from(JSON.stringify(agent)).toString('hex'))
      })()
    } finally {
      db.close()
    }
  }

  async abort(): Promise<void> {
    for (const d of this.dirs) await d.abort()
    await this.file?.abort()
  }
}

export function sink(ctx: StoreContext, opts: WriteOpts = {}): SessionSink {
  if (opts.store === 'ide') throw new FerryError("ferry never writes Cursor's editor store (state.vscdb): the editor must be closed and its schema is undocumented; use --cursor-store chat (resumable with `agent --resume`) or transcript", { code: 'not-implemented', source: 'cursor' })
  const root = opts.out ?? store.root(ctx)
  const parents = new Map<string, string>()
  return new SessionSink(ctx, 'cursor', async (header) => new CursorWriter(root, header, opts, parents))
}
