/**
 * The Gemini `Content {role, parts[]}` model that Gemini CLI and Qwen Code
 * both keep (Qwen is a Gemini CLI fork): parts ↔ ferry blocks, and token
 * counts → `Usage`. What each harness wraps around the parts (Gemini's
 * upserted records, Qwen's uuid chain) stays in its own folder.
 *
 * Parts (@google/genai `Part`): `{text}`, `{text, thought: true}` (reasoning,
 * a summary without signature), `{functionCall: {id, name, args}}`,
 * `{functionResponse: {id, name, response: {output} | {error}}}`,
 * `{inlineData: {mimeType, data}}`, `{fileData: {mimeType, fileUri}}`.
 */
import { isObj, resultText, type Block, type ImageBlock, type ResultPart, type ToolResultBlock, type ToolUseBlock, type Usage, failedResult } from '../../model.js'

/** A Gemini part as stored (plain JSON). */
export type Part = Record<string, unknown>

/** A tool result's text and whether it was an error, from a `functionResponse.response`. */
export function responseContent(response: unknown): { content: string; isError: boolean } {
  if (!isObj(response)) return { content: response === undefined ? '' : JSON.stringify(response), isError: false }
  if (typeof response.output === 'string' && Object.keys(response).length === 1) return { content: response.output, isError: false }
  if (typeof response.error === 'string' && Object.keys(response).length === 1) return { content: response.error, isError: true }
  if (typeof response.output === 'string') return { content: response.output, isError: 'error' in response }
  return { content: JSON.stringify(response), isError: 'error' in response }
}

/** `{inlineData}` → an image block (or a file block for other media). */
export function inlineBlock(d: Record<string, unknown>): Block {
  const mime = typeof d.mimeType === 'string' ? d.mimeType : 'application/octet-stream'
  const data = typeof d.data === 'string' ? d.data : ''
  return mime.startsWith('image/') ? { type: 'image', mime, data } : { type: 'file', mime, data }
}

/**
 * One part → its block, or null for an empty text part. `callId` turns a
 * stored call id into the portable one (Gemini CLI stores `<name>__<id>`).
 */
export function partToBlock(p: unknown, callId: (id: string, name: string) => string = (id) => id): Block | null {
  if (typeof p === 'string') return p ? { type: 'text', text: p } : null
  if (!isObj(p)) return { type: 'unknown', native_type: 'gemini/part', value: p }
  if (typeof p.text === 'string') {
    if (p.thought === true) return { type: 'thinking', text: p.text, ...(typeof p.thoughtSignature === 'string' ? { signature: p.thoughtSignature, provider: 'google' } : {}) }
    return p.text === '' ? null : { type: 'text', text: p.text }
  }
  if (isObj(p.functionCall)) {
    const fc = p.functionCall
    const name = typeof fc.name === 'string' ? fc.name : ''
    const id = typeof fc.id === 'string' && fc.id ? callId(fc.id, name) : ''
    return { type: 'tool_use', id, name, input: isObj(fc.args) ? fc.args : (fc.args ?? {}) }
  }
  if (isObj(p.functionResponse)) {
    const fr = p.functionResponse
    const name = typeof fr.name === 'string' ? fr.name : ''
    const { content, isError } = responseContent(fr.response)
    const b: ToolResultBlock = { type: 'tool_result', tool_use_id: typeof fr.id === 'string' ? callId(fr.id, name) : '', content }
    if (isError) b.is_error = true
    return b
  }
  if (isObj(p.inlineData)) return inlineBlock(p.inlineData)
  if (isObj(p.fileData)) {
    const f = p.fileData
    return { type: 'file', mime: typeof f.mimeType === 'string' ? f.mimeType : 'application/octet-stream', ...(typeof f.fileUri === 'string' ? { ref: { url: f.fileUri } } : {}) }
  }
  return { type: 'unknown', native_type: 'gemini/part', value: p }
}

/** Parts → blocks (empty text parts dropped, order kept). */
export function partsToBlocks(parts: unknown, callId?: (id: string, name: string) => string): Block[] {
  if (typeof parts === 'string') return parts ? [{ type: 'text', text: parts }] : []
  const list = Array.isArray(parts) ? parts : isObj(parts) ? [parts] : []
  const out: Block[] = []
  for (const p of list) {
    const b = partToBlock(p, callId)
    if (b) out.push(b)
  }
  return out
}

/** An image or file block → `inlineData` (or `fileData` for a URL), null when it carries no bytes. */
export function mediaPart(b: { mime: string; data?: string; ref?: { url?: string } }): Part | null {
  if (b.data) return { inlineData: { mimeType: b.mime, data: b.data } }
  if (b.ref?.url) return { fileData: { mimeType: b.mime, fileUri: b.ref.url } }
  return null
}

/** A tool result → the `functionResponse.response` Gemini sends (`{output}` or `{error}`). */
export function responseOf(b: ToolResultBlock): Record<string, unknown> {
  const text = resultText(b.content)
  return failedResult(b) ? { error: text } : { output: text }
}

/** The images of a tool result (sent after the response as inline parts, as Gemini CLI does for read_file of an image). */
export function resultImages(b: ToolResultBlock): ImageBlock[] {
  return typeof b.content === 'string' ? [] : b.content.filter((p: ResultPart): p is ImageBlock => p.type === 'image')
}

/** A `functionResponse` part for a result, under the call's name and stored id. */
export function functionResponsePart(id: string, name: string, b: ToolResultBlock): Part {
  return { functionResponse: { id, name, response: responseOf(b) } }
}

/** A `functionCall` part. */
export function functionCallPart(b: ToolUseBlock, name: string, args: unknown, id = b.id): Part {
  return { functionCall: { id, name, args: isObj(args) ? args : { input: args } } }
}

/**
 * Blocks → parts for a `model` or `user` Content: text, thinking (as a
 * `thought` part), calls, responses (`names` gives the call's name by id),
 * images and files. Unknown Gemini parts come back as they were.
 */
export function blocksToParts(blocks: readonly Block[], names: (callId: string) => string = () => ''): Part[] {
  const out: Part[] = []
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        if (b.text) out.push({ text: b.text })
        break
      case 'thinking':
        if (b.text) out.push({ text: b.text, thought: true })
        break
      case 'tool_use':
        out.push(functionCallPart(b, b.name, b.input))
        break
      case 'tool_result':
        out.push(functionResponsePart(b.tool_use_id, names(b.tool_use_id), b))
        for (const img of resultImages(b)) {
          const m = mediaPart(img)
          if (m) out.push(m)
        }
        break
      case 'image':
      case 'file': {
        const m = mediaPart(b)
        if (m) out.push(m)
        break
      }
      case 'unknown':
        if (b.native_type === 'gemini/part' && isObj(b.value)) out.push(b.value)
        break
    }
  }
  return out
}

const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

function usage(input: number | undefined, cached: number | undefined, candidates: number | undefined, thoughts: number | undefined, total: number | undefined): Usage | undefined {
  if (input === undefined && candidates === undefined && total === undefined) return undefined
  const u: Usage = { scope: 'message' }
  // lib/model.ts: input_tokens is the uncached input; output_tokens includes reasoning (Gemini counts thoughts apart).
  if (input !== undefined) u.input_tokens = Math.max(0, input - (cached ?? 0))
  if (candidates !== undefined || thoughts !== undefined) u.output_tokens = (candidates ?? 0) + (thoughts ?? 0)
  if (cached !== undefined) u.cache_read_tokens = cached
  if (thoughts !== undefined) u.reasoning_tokens = thoughts
  if (total !== undefined) u.total_tokens = total
  return u
}

/** The API's `usageMetadata` (Qwen Code stores it as is) → Usage. */
export function usageOfMetadata(m: unknown): Usage | undefined {
  if (!isObj(m)) return undefined
  return usage(n(m.promptTokenCount), n(m.cachedContentTokenCount), n(m.candidatesTokenCount), n(m.thoughtsTokenCount), n(m.totalTokenCount))
}

/** Gemini CLI's recorded `tokens {input, output, cached, thoughts, tool, total}` → Usage. */
export function usageOfTokens(t: unknown): Usage | undefined {
  if (!isObj(t)) return undefined
  return usage(n(t.input), n(t.cached), n(t.output), n(t.thoughts), n(t.total))
}

/** Usage → `usageMetadata` (for a sink that records it). */
export function metadataOfUsage(u: Usage | undefined): Record<string, number> | undefined {
  if (!u) return undefined
  const cached = u.cache_read_tokens ?? 0
  const prompt = (u.input_tokens ?? 0) + cached
  const thoughts = u.reasoning_tokens ?? 0
  const candidates = Math.max(0, (u.output_tokens ?? 0) - thoughts)
  const out: Record<string, number> = { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: u.total_tokens ?? prompt + candidates + thoughts }
  if (thoughts) out.thoughtsTokenCount = thoughts
  if (cached) out.cachedContentTokenCount = cached
  return out
}
