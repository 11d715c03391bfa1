/**
 * Mapping Cursor's content blocks (transcript JSONL, store.db JSON blobs,
 * IDE bubbles) to the common model's blocks. Every shape is sniffed: Cursor
 * is closed source and its writers drift.
 */
import { isObj, type Block, type JsonObject, type ToolResultBlock, type ToolUseBlock } from '../../model.js'
import { toCanonical } from '../../vocabulary/index.js'
import { parseJson, parseUserText, sanitizeId } from './text.js'

export interface Mapped {
  blocks: Block[]
  ts?: string
  context?: string
  /** A `Workspace Path:` seen in injected context. */
  cwd?: string
}

const REDACTED = '[REDACTED]'

/** The user text blocks mapContent found to be injected context: the source splits them off what the person typed. */
export const contextBlocks = new WeakSet<Block>()

export function toolUse(id: unknown, name: unknown, input: unknown, mint: string): ToolUseBlock {
  const sid = typeof id === 'string' && id ? sanitizeId(id) : mint
  const n = typeof name === 'string' && name ? name : 'unknown'
  return toCanonical('cursor', { type: 'tool_use', id: sid, name: n, input: input ?? {} })
}

export function toolResult(id: unknown, content: unknown, isError: unknown, mint: string): ToolResultBlock {
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('') : content === undefined || content === null ? '' : JSON.stringify(content)
  const b: ToolResultBlock = { type: 'tool_result', tool_use_id: typeof id === 'string' && id ? sanitizeId(id) : mint, content: text === REDACTED ? '' : text }
  if (isError === true) b.is_error = true
  if (text === REDACTED) b.truncated = {}
  return b
}

function image(p: JsonObject): Block | null {
  const src = isObj(p.source) ? p.source : p
  const data = src.data ?? src.image ?? p.image
  const mime = src.media_type ?? src.mediaType ?? src.mimeType ?? p.mimeType ?? 'image/png'
  if (typeof data === 'string' && data) {
    const m = /^data:([^;]+);base64,(.*)$/s.exec(data)
    return m ? { type: 'image', mime: m[1]!, data: m[2]! } : { type: 'image', mime: String(mime), data }
  }
  if (typeof src.url === 'string') return { type: 'image', mime: String(mime), ref: { url: src.url } }
  return null
}

/**
 * One message's content (a string or an array of parts, in either the
 * Claude-like transcript vocabulary or the AI-SDK-like store.db one).
 * `mint(n)` gives a deterministic id for the n-th call/result without one.
 */
export function mapContent(role: string, content: unknown, mint: (n: number) => string): Mapped {
  const parts: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []
  const out: Mapped = { blocks: [] }
  let n = 0
  for (const p of parts) {
    if (typeof p === 'string') {
      out.blocks.push({ type: 'text', text: p })
      continue
    }
    if (!isObj(p)) continue
    switch (p.type) {
      case 'text':
      case 'input_text':
      case 'output_text': {
        if (typeof p.text !== 'string') break
        if (role === 'user') {
          const u = parseUserText(p.text)
          if (u.ts && !out.ts) out.ts = u.ts
          if (u.context) {
            out.context ??= u.context
            const m = /Workspace Path:\s*(\S[^\n]*)/.exec(u.text)
            if (m) out.cwd = m[1]!.trim()
            const b: Block = { type: 'text', text: u.text }
            contextBlocks.add(b)
            out.blocks.push(b)
            if (u.typed !== undefined) out.blocks.push({ type: 'text', text: u.typed })
          } else out.blocks.push({ type: 'text', text: u.text })
        } else out.blocks.push({ type: 'text', text: p.text === REDACTED ? '' : p.text })
        break
      }
      case 'reasoning':
      case 'thinking':
        out.blocks.push({ type: 'thinking', text: String(p.text ?? p.thinking ?? ''), ...(typeof p.signature === 'string' && p.signature ? { signature: p.signature } : {}) })
        break
      case 'redacted-reasoning':
      case 'redacted_thinking':
        out.blocks.push({ type: 'thinking', text: '', redacted: true, ...(typeof p.data === 'string' ? { encrypted: p.data } : {}) })
        break
      case 'tool_use':
      case 'tool-call':
      case 'tool_call': {
        const input = p.input ?? p.args ?? (typeof p.arguments === 'string' ? parseJson(p.arguments) : p.arguments) ?? {}
        out.blocks.push(toolUse(p.id ?? p.toolCallId ?? p.tool_use_id, p.name ?? p.toolName, input, mint(n++)))
        break
      }
      case 'tool_result':
      case 'tool-result': {
        const r = toolResult(p.tool_use_id ?? p.toolCallId ?? p.id, p.content ?? p.result ?? p.output, p.is_error ?? p.isError, mint(n++))
        out.blocks.push(r)
        break
      }
      case 'image':
      case 'image_url': {
        const b = image(p)
        if (b) out.blocks.push(b)
        break
      }
      default:
        out.blocks.push({ type: 'unknown', native_type: String(p.type ?? 'untyped'), value: p })
    }
  }
  return out
}
