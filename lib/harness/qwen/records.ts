/**
 * Qwen Code's records → messages: `user` / `assistant` / `tool_result`
 * records carry a Gemini `Content` (`message: {role, parts}`), read through
 * the family's parts model; the `<system-reminder>` texts Qwen injects are
 * context, split from what the user typed in the same record.
 */
import { isObj, type Block, type ToolResultBlock } from '../../model.js'
import { partsToBlocks } from '../family/gemini-parts.js'

const REMINDER = /^\s*<system-reminder>/

/** A text part Qwen injected (a `<system-reminder>`), not typed by anyone. */
export function isReminder(p: unknown): boolean {
  return isObj(p) && typeof p.text === 'string' && p.thought !== true && REMINDER.test(p.text)
}

/** What the user typed in a record's parts: its text parts without the reminders. */
export function typedText(parts: unknown): string {
  if (!Array.isArray(parts)) return ''
  return parts.map((p) => (isObj(p) && typeof p.text === 'string' && p.thought !== true && !isReminder(p) ? p.text : '')).join('')
}

/** A user record's parts split: the injected reminders, and the rest (typed text, images, responses). */
export function splitReminders(parts: unknown): { context: Block[]; typed: Block[] } {
  const list = Array.isArray(parts) ? parts : []
  return { context: partsToBlocks(list.filter(isReminder)), typed: partsToBlocks(list.filter((p) => !isReminder(p))) }
}

const SPILL = /The full output has been saved to: (\S+)/

/** A `tool_result` record's results, with the UI status as `structured` and a spilled output's path. */
export function toolResults(parts: unknown, toolCallResult: unknown): Block[] {
  const blocks = partsToBlocks(parts)
  const tcr = isObj(toolCallResult) ? toolCallResult : undefined
  for (const b of blocks) {
    if (b.type !== 'tool_result') continue
    const r = b as ToolResultBlock
    if (tcr && (tcr.callId === r.tool_use_id || blocks.length === 1)) {
      const s: Record<string, unknown> = {}
      if (typeof tcr.status === 'string') s.status = tcr.status
      if (isObj(tcr.resultDisplay) && typeof tcr.resultDisplay.exitCode === 'number') r.exit_code = tcr.resultDisplay.exitCode
      if (tcr.status === 'error' || (r.exit_code !== undefined && r.exit_code !== 0)) r.is_error = true
      if (Object.keys(s).length) r.structured = s
    }
    const m = typeof r.content === 'string' ? SPILL.exec(r.content) : null
    if (m) r.truncated = { ref: { path: m[1]! } }
  }
  return blocks
}
