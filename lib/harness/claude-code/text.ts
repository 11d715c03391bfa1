/**
 * Recognising what a user entry's text is: a typed prompt, injected context
 * (`<system-reminder>`, caveats), or slash-command markup. Markup has no
 * escaping, so a body only counts as a command when it consists entirely of
 * the known tags (claude-code.md §6 "Hostile input").
 */

const REMINDER_RE = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/
const CAVEAT_RE = /^\s*<local-command-caveat>[\s\S]*<\/local-command-caveat>\s*$/
const CMD_TAG_RE = /^\s*<command-(name|message|args|contents)>([\s\S]*?)<\/command-\1>/
const OUTPUT_RE = /^\s*<local-command-(stdout|stderr)>([\s\S]*)<\/local-command-\1>\s*$/

export function isReminder(text: string): boolean {
  return REMINDER_RE.test(text)
}

export function isCaveat(text: string): boolean {
  return CAVEAT_RE.test(text)
}

export interface CommandCall {
  name: string
  message?: string
  args: string
}

/** A body made only of `<command-name|message|args>` tags, else null. */
export function parseCommand(text: string): CommandCall | null {
  let rest = text
  const tags: Record<string, string> = {}
  for (;;) {
    const m = CMD_TAG_RE.exec(rest)
    if (!m) break
    if (m[1]! in tags) return null
    tags[m[1]!] = m[2]!
    rest = rest.slice(m[0].length)
  }
  if (rest.trim() !== '' || tags.name === undefined) return null
  const name = tags.name.trim()
  if (!name) return null
  return { name: name.startsWith('/') ? name : `/${name}`, ...(tags.message === undefined ? {} : { message: tags.message }), args: tags.args ?? '' }
}

export interface CommandOutput {
  stream: 'stdout' | 'stderr'
  text: string
}

export function parseCommandOutput(text: string): CommandOutput | null {
  const m = OUTPUT_RE.exec(text)
  return m ? { stream: m[1] as 'stdout' | 'stderr', text: m[2]! } : null
}

/** Text of a native content value (string or blocks); null when it has non-text blocks. */
export function plainText(content: unknown): string | null {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return null
  let s = ''
  for (const b of content) {
    if (!b || typeof b !== 'object' || (b as { type?: unknown }).type !== 'text') return null
    s += String((b as { text?: unknown }).text ?? '')
  }
  return s
}

/** A short one-line title from a user prompt, or undefined when it is not a typed prompt. */
export function promptTitle(content: unknown): string | undefined {
  let text: string | undefined
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text') {
        const t = String((b as { text?: unknown }).text ?? '')
        if (!isReminder(t)) {
          text = t
          break
        }
      }
      if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_result') return undefined
    }
  }
  if (text === undefined || isReminder(text) || isCaveat(text) || parseCommand(text) || parseCommandOutput(text)) return undefined
  const line = text.trim().split('\n')[0]!.trim()
  if (!line) return undefined
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}
