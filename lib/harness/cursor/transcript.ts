/**
 * Agent transcripts (`projects/<slug>/agent-transcripts/`): JSONL, one
 * object per line (nested `<id>/<id>.jsonl` with `subagents/`, or flat
 * `<id>.jsonl`), and the legacy plain-text `<id>.txt`. Record ids are line
 * numbers (`L<n>`, 1-based), so reading twice gives the same ids.
 */
import { readFile } from 'node:fs/promises'
import type { StoreContext } from '../../context.js'
import { LineReporter, parseJsonLine, readLines } from '../../io/line-file.js'
import { isObj, type Block, type ToolResultBlock } from '../../model.js'
import { mapContent } from './blocks.js'

export const TRANSCRIPT_FORMAT = 'cursor/transcript'

/** One unit of a session, before ids are attached. */
export interface Item {
  loc: string
  kind: 'message' | 'native'
  role?: 'user' | 'assistant' | 'system'
  ts?: string | null
  blocks?: Block[]
  context?: string
  model?: string
  usage?: { input_tokens?: number; output_tokens?: number }
  native_type?: string
  native?: { format: string; line?: number; raw?: string; pk?: string; table?: string }
  /** A sub-agent conversation to emit after this session (Task results with conversationSteps). */
  child?: { id: string; tool_use_id?: string; items: Item[] }
  cwd?: string
  /** Made by the reader, not read: the results Cursor's transcript never records (never written back to a transcript). */
  noOutput?: boolean
}

/** The `x` key marking a message the reader made for results the transcript lacks. */
export const NO_OUTPUT_X = 'cursor.no_output'

/** Said in place of the output Cursor's transcript export does not keep. */
export const NO_OUTPUT = "[ferry] Cursor's agent transcript does not record tool output; the call ran, its output is not in the source."

/**
 * Pairs results with calls. A result without an id answers the oldest open
 * call (Cursor's transcript lists them in call order); a call still open when
 * any other line comes (the model speaking again, a prompt, `turn_ended`, the
 * end) gets a result saying the transcript holds no output, so every call is
 * answered by id in whatever harness the session goes to.
 */
class Pairing {
  private open: string[] = []
  private at = ''

  /** Items to emit before `loc`'s item (which `blocks` belong to). */
  before(loc: string, blocks: Block[] | null, mint: string): Item[] {
    const results = blocks?.filter((b): b is ToolResultBlock => b.type === 'tool_result') ?? []
    let out: Item[] = []
    if (results.length) {
      for (const r of results) {
        if (r.tool_use_id.startsWith(mint)) r.tool_use_id = this.open.shift() ?? r.tool_use_id
        else this.open = this.open.filter((id) => id !== r.tool_use_id)
      }
    } else out = this.flush()
    for (const b of blocks ?? []) if (b.type === 'tool_use') this.open.push(b.id)
    if (blocks?.some((b) => b.type === 'tool_use')) this.at = loc
    return out
  }

  flush(): Item[] {
    if (!this.open.length) return []
    const blocks: Block[] = this.open.map((id) => ({ type: 'tool_result', tool_use_id: id, content: NO_OUTPUT, truncated: {} }))
    this.open = []
    return [{ loc: `${this.at}.r`, kind: 'message', role: 'user', ts: null, blocks, noOutput: true }]
  }
}

export async function* transcriptItems(ctx: StoreContext, path: string): AsyncGenerator<Item> {
  if (path.endsWith('.txt')) {
    yield* txtItems(await readFile(path, 'utf8'))
    return
  }
  const reporter = new LineReporter(ctx, 'cursor', path)
  const pairs = new Pairing()
  for await (const line of readLines(ctx, path, { source: 'cursor' })) {
    const raw = line.buf.toString('utf8')
    if (raw.trim() === '') continue
    const loc = `L${line.no + 1}`
    const native = { format: TRANSCRIPT_FORMAT, line: line.no, raw }
    const v = parseJsonLine(line.buf)
    if (v instanceof Error || !isObj(v)) {
      reporter.bad(line, v instanceof Error ? `not JSON: ${v.message}` : 'not a JSON object')
      continue
    }
    const role = v.role ?? v.message?.role ?? (v.type === 'user' || v.type === 'assistant' ? v.type : undefined)
    if ((role === 'user' || role === 'assistant') && (isObj(v.message) || v.content !== undefined)) {
      const content = isObj(v.message) ? v.message.content : v.content
      const m = mapContent(role, content, (n) => `cursor_${loc}_${n}`)
      yield* pairs.before(loc, m.blocks, `cursor_${loc}_`)
      yield { loc, kind: 'message', role, ts: m.ts ?? null, blocks: m.blocks, ...(m.context ? { context: m.context } : {}), ...(m.cwd ? { cwd: m.cwd } : {}), native }
      continue
    }
    yield* pairs.before(loc, null, '')
    yield { loc, kind: 'native', native_type: `cursor/${String(v.type ?? 'line')}`, native }
  }
  yield* pairs.flush()
}

/**
 * The legacy text form: `user:` / `assistant:` (also `A:`) sections,
 * `[Thinking]`, `[Tool call] <Name>` + indented `arg: value` lines,
 * `[Tool result] <Name>` + its output.
 */
export function* txtItems(text: string): Generator<Item> {
  const lines = text.split('\n')
  let role: 'user' | 'assistant' | null = null
  let start = 0
  let buf: string[] = []
  let n = 0
  const flush = function* (): Generator<Item> {
    if (!role) return
    const body = buf.join('\n').trim()
    buf = []
    if (!body) return
    const loc = `L${start + 1}`
    if (role === 'user') {
      const m = mapContent('user', body, (k) => `cursor_${loc}_${k}`)
      yield { loc, kind: 'message', role: 'user', ts: m.ts ?? null, blocks: m.blocks, ...(m.context ? { context: m.context } : {}) }
      return
    }
    const blocks: Block[] = []
    const results: Block[] = []
    const sections = body.split(/^(?=\[(?:Thinking|Tool call|Tool result)\])/m)
    const calls: string[] = []
    for (const s of sections) {
      const head = /^\[(Thinking|Tool call|Tool result)\]\s*(.*)\n?/.exec(s)
      if (!head) {
        if (s.trim()) blocks.push({ type: 'text', text: s.trim() })
        continue
      }
      const rest = s.slice(head[0].length)
      if (head[1] === 'Thinking') blocks.push({ type: 'thinking', text: rest.trim() })
      else if (head[1] === 'Tool call') {
        const input: Record<string, string> = {}
        for (const l of rest.split('\n')) {
          const a = /^\s+([A-Za-z_][\w-]*):\s?(.*)$/.exec(l)
          if (a) input[a[1]!] = a[2]!
        }
        const id = `cursor_${loc}_${n++}`
        calls.push(id)
        blocks.push({ type: 'tool_use', id, name: head[2]!.trim() || 'unknown', input })
        // Results follow their calls in order; a call left without one says the transcript has none.
      } else results.push({ type: 'tool_result', tool_use_id: calls.shift() ?? `cursor_${loc}_${n++}`, content: rest.replace(/^\s+|\s+$/g, '') })
    }
    for (const id of calls) results.push({ type: 'tool_result', tool_use_id: id, content: NO_OUTPUT, truncated: {} })
    yield { loc, kind: 'message', role: 'assistant', ts: null, blocks }
    if (results.length) yield { loc: `${loc}r`, kind: 'message', role: 'user', ts: null, blocks: results }
  }
  for (let i = 0; i < lines.length; i++) {
    const m = /^(user|assistant|A):\s?(.*)$/.exec(lines[i]!)
    if (m) {
      yield* flush()
      role = m[1] === 'user' ? 'user' : 'assistant'
      start = i
      buf = [m[2]!]
    } else buf.push(lines[i]!)
  }
  yield* flush()
}
