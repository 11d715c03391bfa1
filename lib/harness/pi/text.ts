/** Pi's text conventions: prompt titles, and how a user `!cmd` run reads as text (Pi's `bashExecutionToText`). */
import { isObj, type JsonObject } from '../../model.js'

/** A short one-line title from a user message's content (string or blocks). */
export function promptTitle(content: unknown): string | undefined {
  let text: string | undefined
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) text = content.find((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')?.text
  const line = text?.trim().split('\n')[0]!.trim()
  if (!line) return undefined
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

/** What Pi sends the model for a `bashExecution` message (coding-agent `messages.ts`). */
export function bashExecutionText(m: JsonObject): string {
  let text = `Ran \`${String(m.command ?? '')}\`\n`
  text += m.output ? `\`\`\`\n${String(m.output)}\n\`\`\`` : '(no output)'
  if (m.cancelled) text += '\n\n(command cancelled)'
  else if (typeof m.exitCode === 'number' && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${String(m.fullOutputPath)}]`
  return text
}
