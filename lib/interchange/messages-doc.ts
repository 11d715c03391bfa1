/**
 * A plain JSON document holding an Anthropic-Messages-style conversation, so
 * any script or agent can hand ferry a conversation without our library:
 *
 *   {"id"?, "title"?, "cwd"?, "model"?, "system"?, "created_at"?, "metadata"?: {...},
 *    "messages": [{"role": "user"|"assistant", "content": "…" | [blocks]}, …]}
 *
 * or a bare array of messages. Parsed with stream-json token by token: each
 * message is assembled on its own and turned into a record at once, so a
 * huge document never sits in memory whole. Metadata that appears after
 * `messages` is restated in the `end` record.
 */
import { createHash } from 'node:crypto'
import Assembler from 'stream-json/assembler.js'
import { FERRY_FORMAT, recordId, sessionKey, type Block, type EndRec, type FerryRecord, type JsonObject, type MessageRec, type ResultPart, type SessionRec } from '../model.js'
import { FerryError } from '../errors.js'

type Token = { name: string; value?: unknown }

/** Turns a token stream into FerryRecords. Feed tokens with `consume`, then call `end`. */
export class MessagesDocReader {
  private depth = 0
  private key: string | null = null
  private inMessages = false
  private bareArray = false
  private asm: Assembler | null = null
  private readonly meta: JsonObject = {}
  private header: SessionRec | null = null
  private index = 0
  private toolNames = new Map<string, string>()
  private readonly emit: (rec: FerryRecord) => void
  private readonly file: string | undefined

  constructor(
    emit: (rec: FerryRecord) => void,
    /** Harness id for the sessions of the document (the reading harness's). */
    private readonly harness: string,
    file?: string,
    /** A message that is not an object: reported here and skipped (the messages after it still come); without it, thrown. */
    private readonly onBad?: (err: FerryError) => void,
  ) {
    this.emit = emit
    this.file = file
  }

  consume(tok: Token): void {
    if (this.asm) {
      this.asm.consume(tok as never)
      if (this.asm.done) {
        const value = this.asm.current
        this.asm = null
        this.value(value)
      }
      return
    }
    switch (tok.name) {
      case 'startObject':
      case 'startArray':
        if (this.depth === 0) {
          this.bareArray = tok.name === 'startArray'
          this.inMessages = this.bareArray
          this.depth = 1
          return
        }
        if (this.depth === 1 && this.key === 'messages' && tok.name === 'startArray') {
          this.inMessages = true
          this.depth = 2
          return
        }
        this.startValue(tok)
        return
      case 'endArray':
      case 'endObject':
        if (this.depth === 2 && this.inMessages) {
          this.inMessages = false
          this.depth = 1
          this.key = null
        } else if (this.depth === 1) this.depth = 0
        return
      case 'keyValue':
        if (this.depth === 1 && !this.bareArray) this.key = String(tok.value)
        return
      case 'stringValue':
      case 'numberValue':
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.startValue(tok)
        return
      default:
        // startString/stringChunk/… arrive alongside packed values; the packed ones suffice.
        return
    }
  }

  private startValue(tok: Token): void {
    this.asm = new Assembler()
    this.asm.consume(tok as never)
    if (this.asm.done) {
      const v = this.asm.current
      this.asm = null
      this.value(v)
    }
  }

  private value(v: unknown): void {
    if (this.inMessages) {
      this.message(v)
      return
    }
    if (this.key !== null) {
      if (this.key === 'system') this.systemPrompt(v)
      else this.meta[this.key] = v
      this.key = null
    }
  }

  private ensureHeader(seed: unknown): SessionRec {
    if (this.header) return this.header
    const md = (typeof this.meta.metadata === 'object' && this.meta.metadata) || {}
    const m = { ...(md as JsonObject), ...this.meta }
    const explicit = typeof m.id === 'string' ? m.id : typeof m.session_id === 'string' ? m.session_id : undefined
    // No id given: derive one from the content so reading the same document twice gives the same ids.
    const nativeId = explicit ?? `doc-${createHash('sha256').update(JSON.stringify(seed)).digest('hex').slice(0, 16)}`
    const sid = sessionKey(this.harness, nativeId)
    const h: SessionRec = {
      kind: 'session',
      ferry: FERRY_FORMAT,
      sid,
      id: recordId(sid, 'session'),
      source: { harness: this.harness, locator: this.file ? { path: this.file } : {} },
      native_id: nativeId,
    }
    for (const k of ['cwd', 'title', 'model', 'created_at', 'updated_at'] as const) if (typeof m[k] === 'string') h[k] = m[k] as string
    if (typeof m.git_branch === 'string') h.git = { branch: m.git_branch }
    this.header = h
    this.emit(h)
    return h
  }

  private systemPrompt(v: unknown): void {
    const text = typeof v === 'string' ? v : Array.isArray(v) ? v.map((b) => (b as JsonObject)?.text ?? '').join('\n') : ''
    if (!text) return
    const h = this.ensureHeader(v)
    this.emit({ kind: 'message', sid: h.sid, id: recordId(h.sid, 'system'), role: 'system', ts: null, context: true, context_kind: 'instructions', blocks: [{ type: 'text', text }] })
  }

  private message(v: unknown): void {
    const at = this.index++
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      const err = new FerryError(`messages[${at}] is not an object`, { code: this.onBad ? 'bad-record' : 'bad-document', source: 'interchange', position: this.file ? { file: this.file } : {} })
      if (!this.onBad) throw err
      this.onBad(err)
      return
    }
    const m = v as JsonObject
    const h = this.ensureHeader(m)
    const role = m.role === 'assistant' ? 'assistant' : m.role === 'system' ? 'system' : 'user'
    const rec: MessageRec = {
      kind: 'message',
      sid: h.sid,
      id: recordId(h.sid, `m${at}`),
      seq: at,
      role,
      ts: typeof m.timestamp === 'string' ? m.timestamp : typeof m.ts === 'string' ? m.ts : null,
      blocks: this.blocks(m.content),
    }
    if (role === 'assistant' && typeof m.model === 'string') rec.model = m.model
    if (typeof m.id === 'string') rec.api_message_id = m.id
    if (typeof m.stop_reason === 'string') rec.stop_reason = m.stop_reason as MessageRec['stop_reason']
    this.emit(rec)
  }

  private blocks(content: unknown): Block[] {
    if (typeof content === 'string') return [{ type: 'text', text: content }]
    if (!Array.isArray(content)) return []
    const out: Block[] = []
    for (const raw of content) {
      const b = (raw ?? {}) as JsonObject
      switch (b.type) {
        case 'text':
          out.push({ type: 'text', text: String(b.text ?? '') })
          break
        case 'thinking': {
          const t: Block = { type: 'thinking', text: String(b.thinking ?? b.text ?? '') }
          if (typeof b.signature === 'string' && b.signature) Object.assign(t, { signature: b.signature, provider: 'anthropic' })
          out.push(t)
          break
        }
        case 'redacted_thinking':
          out.push({ type: 'thinking', text: '', encrypted: String(b.data ?? ''), provider: 'anthropic', redacted: true })
          break
        case 'tool_use':
          this.toolNames.set(String(b.id), String(b.name))
          out.push({ type: 'tool_use', id: String(b.id ?? ''), name: String(b.name ?? ''), input: b.input ?? {} })
          break
        case 'tool_result': {
          const c = b.content
          const content: string | ResultPart[] =
            typeof c === 'string' ? c : Array.isArray(c) ? (c.map((p) => imageOrText(p as JsonObject)).filter(Boolean) as ResultPart[]) : ''
          out.push({ type: 'tool_result', tool_use_id: String(b.tool_use_id ?? ''), content, ...(b.is_error === true ? { is_error: true } : {}) })
          break
        }
        case 'image': {
          const img = imageOrText(b)
          if (img) out.push(img)
          break
        }
        default:
          out.push({ type: 'unknown', native_type: `anthropic/${String(b.type)}`, value: b })
      }
    }
    return out
  }

  /** Closes the session; restates metadata that arrived after the messages. */
  end(): void {
    if (!this.header) return
    const h = this.header
    const end: EndRec = { kind: 'end', sid: h.sid, id: recordId(h.sid, 'end'), complete: true, counts: { messages: this.index } }
    if (typeof this.meta.title === 'string' && h.title === undefined) end.title = this.meta.title
    if (typeof this.meta.model === 'string' && h.model === undefined) end.model = this.meta.model
    this.emit(end)
  }
}

function imageOrText(p: JsonObject): ResultPart | null {
  if (p.type === 'text') return { type: 'text', text: String(p.text ?? '') }
  if (p.type !== 'image') return null
  const src = (p.source ?? {}) as JsonObject
  if (src.type === 'base64') return { type: 'image', mime: String(src.media_type ?? 'image/png'), data: String(src.data ?? '') }
  if (src.type === 'url') return { type: 'image', mime: String(src.media_type ?? 'image/png'), ref: { url: String(src.url) } }
  if (typeof p.data === 'string') return { type: 'image', mime: String(p.mime ?? 'image/png'), data: p.data }
  return null
}
