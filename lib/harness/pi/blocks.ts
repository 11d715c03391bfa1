/**
 * Pi message content ↔ common blocks, usage and stop reasons, both ways.
 * Pi's content blocks: `text`, `thinking` (+ `thinkingSignature`),
 * `toolCall {id, name, arguments}`, `image {data, mimeType}`.
 */
import { isObj, type Block, type ImageBlock, type JsonObject, type ResultPart, type StopReason, type Usage } from '../../model.js'

/** Who can verify a thinking signature, from Pi's `api` (the wire dialect). */
export function providerOfApi(api: unknown): string | undefined {
  if (typeof api !== 'string') return undefined
  if (api.startsWith('anthropic')) return 'anthropic'
  if (api.startsWith('openai') || api.startsWith('azure')) return 'openai'
  if (api.startsWith('google')) return 'google'
  return api
}

function image(b: JsonObject): ImageBlock {
  return { type: 'image', mime: typeof b.mimeType === 'string' ? b.mimeType : 'image/png', data: typeof b.data === 'string' ? b.data : '' }
}

/** User or custom content (a string, or `text` / `image` blocks). */
export function userBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  const out: Block[] = []
  for (const b of Array.isArray(content) ? content : []) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text })
    else if (b.type === 'image') out.push(image(b))
    else out.push({ type: 'unknown', native_type: `pi/${String(b.type)}`, value: b })
  }
  return out
}

/** Tool result content: a plain string when it is text only. */
export function resultContent(content: unknown): string | ResultPart[] {
  if (typeof content === 'string') return content
  const parts: ResultPart[] = []
  for (const b of Array.isArray(content) ? content : []) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') parts.push({ type: 'text', text: b.text })
    else if (b.type === 'image') parts.push(image(b))
  }
  return parts.every((p) => p.type === 'text') ? parts.map((p) => (p as { text: string }).text).join('') : parts
}

export function assistantBlocks(content: unknown, api: unknown, recordId: string): Block[] {
  const out: Block[] = []
  const provider = providerOfApi(api)
  let n = 0
  for (const b of Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : []) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text })
    else if (b.type === 'thinking') {
      out.push({
        type: 'thinking',
        text: typeof b.thinking === 'string' ? b.thinking : '',
        ...(typeof b.thinkingSignature === 'string' && b.thinkingSignature ? { signature: b.thinkingSignature, ...(provider ? { provider } : {}) } : {}),
        ...(b.redacted === true ? { redacted: true } : {}),
      })
    } else if (b.type === 'toolCall') {
      const id = typeof b.id === 'string' && b.id ? b.id : `${recordId}#call${n ? n : ''}`
      n++
      out.push({ type: 'tool_use', id, name: String(b.name ?? ''), input: b.arguments ?? {} })
    } else if (b.type === 'image') out.push(image(b))
    else out.push({ type: 'unknown', native_type: `pi/${String(b.type)}`, value: b })
  }
  return out
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** Pi's per-message usage → the model's (input is uncached input, as Anthropic counts it). */
export function usageOf(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined
  const out: Usage = { scope: 'message' }
  const set = (k: keyof Usage, v: unknown) => {
    const n = num(v)
    if (n !== undefined) (out as Record<string, unknown>)[k] = n
  }
  set('input_tokens', u.input)
  set('output_tokens', u.output)
  set('cache_read_tokens', u.cacheRead)
  set('cache_write_tokens', u.cacheWrite)
  set('total_tokens', u.totalTokens)
  if (isObj(u.cost)) set('cost_usd', u.cost.total)
  return out
}

export function stopOf(s: unknown): StopReason | undefined {
  switch (s) {
    case 'stop':
      return 'end_turn'
    case 'toolUse':
      return 'tool_use'
    case 'length':
      return 'max_tokens'
    case 'aborted':
      return 'aborted'
    case 'error':
      return 'error'
    case undefined:
      return undefined
    default:
      return 'other'
  }
}

/** The model's stop reason → Pi's `stopReason`. */
export function piStop(s: StopReason | undefined, native: string | undefined, hasCalls: boolean): string {
  if (native && ['stop', 'toolUse', 'length', 'aborted', 'error'].includes(native)) return native
  switch (s) {
    case 'tool_use':
      return 'toolUse'
    case 'max_tokens':
      return 'length'
    case 'aborted':
      return 'aborted'
    case 'error':
      return 'error'
    default:
      return hasCalls ? 'toolUse' : 'stop'
  }
}

/** The model's usage → Pi's, every field present (Pi reads `usage.totalTokens` of every assistant message). */
export function piUsage(u: Usage | undefined): JsonObject {
  const input = u?.input_tokens ?? 0
  const output = u?.output_tokens ?? 0
  const cacheRead = u?.cache_read_tokens ?? 0
  const cacheWrite = u?.cache_write_tokens ?? 0
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: u?.total_tokens ?? input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: u?.cost_usd ?? 0 },
  }
}
