/**
 * Anthropic content blocks as Claude Code stores them ↔ common-model blocks.
 * Reading keeps everything it cannot model as an `unknown` block so a
 * same-harness writer can put it back.
 */
import { isObj, type Block, type JsonObject, type ResultPart, type StopReason, type ToolResultBlock, type Usage } from '../../model.js'

function imageFrom(b: JsonObject): Block {
  const src = isObj(b.source) ? b.source : {}
  if (src.type === 'base64') return { type: 'image', mime: String(src.media_type ?? 'application/octet-stream'), data: String(src.data ?? '') }
  if (src.type === 'url' && typeof src.url === 'string') return { type: 'image', mime: String(src.media_type ?? 'image/*'), ref: { url: src.url } }
  return { type: 'unknown', native_type: 'image', value: b }
}

function documentFrom(b: JsonObject): Block {
  const src = isObj(b.source) ? b.source : {}
  const name = typeof b.title === 'string' ? b.title : undefined
  if (src.type === 'base64') return { type: 'file', mime: String(src.media_type ?? 'application/octet-stream'), ...(name ? { name } : {}), data: String(src.data ?? '') }
  if (src.type === 'text' && typeof src.data === 'string') return { type: 'file', mime: String(src.media_type ?? 'text/plain'), ...(name ? { name } : {}), data: Buffer.from(src.data, 'utf8').toString('base64') }
  return { type: 'unknown', native_type: 'document', value: b }
}

function resultContent(c: unknown): ToolResultBlock['content'] {
  if (typeof c === 'string') return c
  if (c === undefined || c === null) return ''
  if (!Array.isArray(c)) return JSON.stringify(c)
  const parts: ResultPart[] = []
  for (const p of c) {
    if (isObj(p) && p.type === 'text') parts.push({ type: 'text', text: String(p.text ?? '') })
    else if (isObj(p) && p.type === 'image') {
      const img = imageFrom(p)
      if (img.type === 'image') parts.push(img)
    } else parts.push({ type: 'text', text: JSON.stringify(p) })
  }
  return parts
}

/** One native content block → one common block. */
export function blockFromNative(b: unknown): Block {
  if (!isObj(b)) return { type: 'unknown', native_type: typeof b, value: b }
  switch (b.type) {
    case 'text':
      return { type: 'text', text: String(b.text ?? '') }
    case 'thinking':
      return {
        type: 'thinking',
        text: String(b.thinking ?? ''),
        ...(typeof b.signature === 'string' && b.signature ? { signature: b.signature } : {}),
        provider: 'anthropic',
      }
    case 'redacted_thinking':
      return { type: 'thinking', text: '', redacted: true, encrypted: String(b.data ?? ''), provider: 'anthropic' }
    case 'tool_use':
      return { type: 'tool_use', id: String(b.id ?? ''), name: String(b.name ?? ''), input: b.input ?? {} }
    case 'tool_result': {
      const r: ToolResultBlock = { type: 'tool_result', tool_use_id: String(b.tool_use_id ?? ''), content: resultContent(b.content) }
      if (b.is_error === true) r.is_error = true
      return r
    }
    case 'image':
      return imageFrom(b)
    case 'document':
      return documentFrom(b)
    default:
      return { type: 'unknown', native_type: String(b.type ?? 'unknown'), value: b }
  }
}

export function blocksFromContent(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return content === undefined || content === null ? [] : [{ type: 'unknown', native_type: 'content', value: content }]
  return content.map(blockFromNative)
}

export function usageFromNative(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const out: Usage = { scope: 'message' }
  const i = num(u.input_tokens)
  const o = num(u.output_tokens)
  const cr = num(u.cache_read_input_tokens)
  const cw = num(u.cache_creation_input_tokens)
  if (i !== undefined) out.input_tokens = i
  if (o !== undefined) out.output_tokens = o
  if (cr !== undefined) out.cache_read_tokens = cr
  if (cw !== undefined) out.cache_write_tokens = cw
  return out
}

const STOPS: ReadonlySet<string> = new Set(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal', 'pause_turn'])

export function stopFromNative(s: unknown): { stop_reason?: StopReason; native_stop_reason?: string } {
  if (typeof s !== 'string' || !s) return {}
  if (STOPS.has(s)) return { stop_reason: s as StopReason }
  return { stop_reason: 'other', native_stop_reason: s }
}
