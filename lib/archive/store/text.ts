/**
 * What the full-text index holds for a record: the words a person would
 * search for (user and assistant text, thinking, tool names, inputs and
 * outputs, compaction summaries), capped so one huge tool output cannot
 * dominate the index.
 */
import { resultText, type FerryRecord } from '../../model.js'

/** Longest text indexed for one record (characters); the record itself is kept whole. */
export const MAX_INDEXED_CHARS = 256 * 1024

export interface IndexedText {
  text: string
  /** Tool names used or answered in the record, space-separated. */
  tools: string
}

function clip(s: string): string {
  return s.length > MAX_INDEXED_CHARS ? s.slice(0, MAX_INDEXED_CHARS) : s
}

export function indexedText(rec: FerryRecord): IndexedText {
  const parts: string[] = []
  const tools: string[] = []
  if (rec.kind === 'message') {
    for (const b of rec.blocks) {
      switch (b.type) {
        case 'text':
        case 'thinking':
          if (b.text) parts.push(b.text)
          break
        case 'tool_use':
          tools.push(b.name)
          if (b.native_name && b.native_name !== b.name) tools.push(b.native_name)
          parts.push(b.name, typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? null))
          break
        case 'tool_result':
          parts.push(resultText(b.content))
          break
        case 'file':
          if (b.name) parts.push(b.name)
          break
        default:
          break
      }
    }
  } else if (rec.kind === 'boundary') {
    if (rec.summary) parts.push(rec.summary)
  }
  return { text: clip(parts.join('\n')), tools: [...new Set(tools)].join(' ') }
}
