/**
 * Gemini CLI's message records ↔ messages: `user` / `gemini` / `info` records
 * (packages/core/src/services/chatRecordingTypes.ts), their `toolCalls[]`,
 * thoughts and tokens, over the family's parts model (family/gemini-parts.ts).
 */
import { isObj, type Block, type JsonObject, type ToolResultBlock, type ToolUseBlock } from '../../model.js'
import { inlineBlock, partsToBlocks, responseContent } from '../family/gemini-parts.js'

/** Text of a record's `content` (a string or parts). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (isObj(p) && typeof p.text === 'string' && p.thought !== true ? p.text : '')).join('')
}

/** Injected context Gemini CLI itself drops on resume (sessionUtils.ts): `<session_context>`, `<hook_context>`. */
export function contextKindOf(text: string): string | undefined {
  const t = text.trimStart()
  if (t.startsWith('<session_context>')) return 'environment'
  if (t.startsWith('<hook_context>')) return 'other'
  return undefined
}

/** A prompt a person typed that is a conversation turn (not a `/command` or `?` help, which Gemini keeps out of the history). */
export function isTypedPrompt(text: string): boolean {
  const t = text.trimStart()
  return !t.startsWith('/') && !t.startsWith('?') && contextKindOf(t) === undefined
}

/** Stored call ids are `<tool name>__<wire id>` (core/turn.ts); the wire id is the portable one. */
export function portableCallId(id: string, name: string): string {
  return name && id.startsWith(`${name}__`) && id.length > name.length + 2 ? id.slice(name.length + 2) : id
}

/** The stored id of a call: `<name>__<id>` unless it has it already. */
export function storedCallId(id: string, name: string): string {
  return name && !id.startsWith(`${name}__`) ? `${name}__${id}` : id
}

const SPILL = /For full output see: (\S+\.txt)/

/** A `gemini` record's blocks: thoughts (summaries, no signature), its text or parts, then its calls. */
export function modelBlocks(r: JsonObject): Block[] {
  const blocks: Block[] = []
  for (const t of Array.isArray(r.thoughts) ? r.thoughts : []) {
    if (!isObj(t)) continue
    const subject = typeof t.subject === 'string' ? t.subject.trim() : ''
    const description = typeof t.description === 'string' ? t.description : ''
    const text = subject ? `**${subject}** ${description}` : description
    if (text) blocks.push({ type: 'thinking', text })
  }
  blocks.push(...partsToBlocks(r.content, portableCallId))
  for (const c of Array.isArray(r.toolCalls) ? r.toolCalls : []) {
    if (!isObj(c)) continue
    const name = typeof c.name === 'string' ? c.name : ''
    const id = typeof c.id === 'string' ? portableCallId(c.id, name) : ''
    const call: ToolUseBlock = { type: 'tool_use', id, name, input: isObj(c.args) ? c.args : {} }
    blocks.push(call)
  }
  return blocks
}

/** The results a `gemini` record's `toolCalls[].result` holds, one per call that has one. */
export function callResults(r: JsonObject): ToolResultBlock[] {
  const out: ToolResultBlock[] = []
  for (const c of Array.isArray(r.toolCalls) ? r.toolCalls : []) {
    if (!isObj(c) || !Array.isArray(c.result) || c.result.length === 0) continue
    const name = typeof c.name === 'string' ? c.name : ''
    const id = typeof c.id === 'string' ? portableCallId(c.id, name) : ''
    let text = ''
    let isError = false
    const images: Block[] = []
    for (const p of c.result) {
      if (!isObj(p)) continue
      if (isObj(p.functionResponse)) {
        const rc = responseContent(p.functionResponse.response)
        text += rc.content
        isError ||= rc.isError
      } else if (isObj(p.inlineData)) images.push(inlineBlock(p.inlineData))
      else if (typeof p.text === 'string') text += p.text
    }
    const b: ToolResultBlock = { type: 'tool_result', tool_use_id: id, content: images.length ? [{ type: 'text', text }, ...images.filter((x): x is Extract<Block, { type: 'image' }> => x.type === 'image')] : text }
    if (isError || c.status === 'error') b.is_error = true
    const structured: JsonObject = {}
    if (typeof c.status === 'string') structured.status = c.status
    if (typeof c.agentId === 'string') structured.agentId = c.agentId
    if (Object.keys(structured).length) b.structured = structured
    const spill = SPILL.exec(text)
    if (spill) b.truncated = { ref: { path: spill[1]! } }
    out.push(b)
  }
  return out
}
