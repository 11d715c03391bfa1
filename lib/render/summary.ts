/**
 * What the views say about a tool call and a result, the same in every
 * format: the tool's main argument (command, file, pattern…), result sizes,
 * image sizes. Keys are looked up by meaning, so any harness's vocabulary
 * works, normalized or not.
 */
import type { ImageBlock, ResultPart, ToolResultBlock, ToolUseBlock } from '../model.js'

/** Argument keys that say what a call does, most telling first. */
const MAIN_KEYS = ['command', 'cmd', 'file_path', 'filePath', 'path', 'notebook_path', 'pattern', 'query', 'url', 'description', 'prompt', 'target_file', 'glob']

/** The main argument of a call, as text ('' when there is none). */
export function mainArgument(use: ToolUseBlock): string {
  const input = use.input
  if (typeof input === 'string') return input
  if (input === null || typeof input !== 'object') return input === undefined ? '' : String(input)
  const o = input as Record<string, unknown>
  for (const k of MAIN_KEYS) {
    const v = o[k]
    if (typeof v === 'string' && v !== '') return v
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ')
  }
  for (const v of Object.values(o)) if (typeof v === 'string' && v !== '') return v
  return ''
}

/**
 * Codex's code mode runs a JavaScript script (a custom tool, `exec`) that
 * calls the real tools: `tools.exec_command({ cmd: "npm test" })`. The
 * commands it runs say what it does; the script is its input.
 */
const CODE_CALL = /\btools\.([A-Za-z_][\w]*)\s*\(\s*(\{[^]*?\})?\s*\)/g
const CMD_ARG = /\b(?:cmd|command)\s*:\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)/

function stringLiteral(lit: string): string {
  const body = lit.slice(1, -1)
  if (lit[0] === '"') {
    try {
      return JSON.parse(lit) as string
    } catch {
      return body
    }
  }
  return body.replace(/\\(.)/g, '$1')
}

/** The tools a code-mode script calls and what they run, or null when `input` is not such a script. */
export function codeModeCalls(input: unknown): { names: string[]; commands: string[] } | null {
  if (typeof input !== 'string' || !input.includes('tools.')) return null
  const names: string[] = []
  const commands: string[] = []
  for (const m of input.slice(0, 100_000).matchAll(CODE_CALL)) {
    if (!names.includes(m[1]!)) names.push(m[1]!)
    const cmd = m[2] ? CMD_ARG.exec(m[2]) : null
    if (cmd) commands.push(stringLiteral(cmd[1]!))
  }
  return names.length ? { names, commands } : null
}

/** What a view says of a call: its name and main argument; a code-mode script as the commands it runs. */
export function callSummary(use: ToolUseBlock): { name: string; arg: string } {
  const code = codeModeCalls(use.input)
  if (code) return { name: code.names.join(', '), arg: code.commands.length ? code.commands.join('; ') : mainArgument(use) }
  return { name: use.name, arg: mainArgument(use) }
}

/** The input as text for a full view: a string as it is, anything else as indented JSON. */
export function inputText(use: ToolUseBlock): string {
  if (typeof use.input === 'string') return use.input
  try {
    return JSON.stringify(use.input, null, 2) ?? ''
  } catch {
    return String(use.input)
  }
}

/** Decoded size of a base64 payload, without decoding it. */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad)
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}

/** `image/png, 12.3 KiB` (or where it lives, when it is a reference). */
export function imageLabel(img: ImageBlock): string {
  if (img.data !== undefined) return `${img.mime}, ${humanBytes(base64Bytes(img.data))}`
  return img.ref?.path ?? img.ref?.url ? `${img.mime}, ${img.ref.path ?? img.ref.url}` : img.mime
}

/** The parts of a result: text and images, in order. */
export function resultParts(r: ToolResultBlock): ResultPart[] {
  return typeof r.content === 'string' ? [{ type: 'text', text: r.content }] : r.content
}

/** Total characters of a result's text. */
export function resultChars(r: ToolResultBlock): number {
  let n = 0
  for (const p of resultParts(r)) if (p.type === 'text') n += p.text.length
  return n
}
