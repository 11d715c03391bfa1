/**
 * The terminal view of `ferry show`: a readable conversation, one piece per
 * record. Colour only when asked (the CLI decides from the TTY, NO_COLOR,
 * FORCE_COLOR); lines wrapped to the width; sub-agents indented with a bar.
 */
import wrapAnsi from 'wrap-ansi'
import type { Block, BoundaryRec, MessageRec, SessionRec, ToolResultBlock } from '../model.js'
import { clean, cleanText, oneLine } from './clean.js'
import type { CallInfo, Footer, Format, Place, SessionStats, ViewOptions } from './format.js'
import { imageLabel, resultChars, resultParts } from './summary.js'
import { plural } from './shared.js'

const SGR = { bold: '1', dim: '2', italic: '3', red: '31', green: '32', yellow: '33', blue: '34', magenta: '35', cyan: '36' } as const
type Style = keyof typeof SGR

/** Lines of a tool output shown in brief mode. */
const BRIEF_LINES = 4

export function terminalFormat(opts: ViewOptions): Format {
  const paint = (style: Style | Style[], s: string): string => {
    if (!opts.color || s === '') return s
    const codes = (Array.isArray(style) ? style : [style]).map((k) => SGR[k]).join(';')
    // Re-open after every newline so a pager that cuts lines keeps the style.
    return `\u001b[${codes}m${s.replace(/\n/g, `\u001b[0m\n\u001b[${codes}m`)}\u001b[0m`
  }
  const bar = (depth: number): string => (depth > 0 ? paint('magenta', '│ '.repeat(depth)) : '')
  /** Wraps and indents a block of text under the message header. */
  const body = (text: string, place: Place, indent = 2, style?: Style | Style[]): string => {
    const prefix = bar(place.depth) + ' '.repeat(indent)
    const width = Math.max(20, opts.width - place.depth * 2 - indent)
    const wrapped = wrapAnsi(text, width, { hard: true, trim: false })
    return (
      wrapped
        .split('\n')
        .map((l) => prefix + (style ? paint(style, l) : l))
        .join('\n') + '\n'
    )
  }

  /** Assistant Markdown, made readable: headings bold, code coloured, `**` and backticks styled. */
  const markdown = (text: string): string => {
    if (!opts.color) return text
    let fence: string | null = null
    return text
      .split('\n')
      .map((line) => {
        const f = /^\s*(`{3,}|~{3,})/.exec(line)
        if (fence !== null) {
          if (f && f[1]!.startsWith(fence)) fence = null
          return paint('dim', line)
        }
        if (f) {
          fence = f[1]!
          return paint('dim', line)
        }
        if (/^#{1,6}\s/.test(line)) return paint('bold', line)
        return line.replace(/\*\*([^*\n]+)\*\*/g, (_m, s: string) => paint('bold', s)).replace(/`([^`\n]+)`/g, (_m, s: string) => paint('cyan', s))
      })
      .join('\n')
  }

  const time = (ts: string | null | undefined): string => (typeof ts === 'string' ? oneLine(ts, 40).replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '')

  function result(r: ToolResultBlock, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
    const call = calls.get(r.tool_use_id)
    const label = call ? call.name : 'tool'
    const mark = r.is_error ? paint(['red', 'bold'], '✗ error') + ' ' : ''
    const chars = resultChars(r)
    const parts = resultParts(r)
    let out = ''
    const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
    const images = parts.filter((p) => p.type === 'image')
    const exit = r.exit_code !== undefined ? ` exit ${Number(r.exit_code)}` : ''
    if (opts.tools === 'brief') {
      const { text: head } = clean(text, 4000)
      const lines = head.split('\n')
      const total = text.split('\n', 100_000).length
      const shown = lines.slice(0, BRIEF_LINES).map((l) => oneLine(l, Math.max(20, opts.width - 8)) || ' ')
      const more = total > BRIEF_LINES || chars > 4000 ? paint('dim', ` … (${total >= 100_000 ? '100,000+ lines' : plural(total, 'line')}, ${plural(chars, 'char')})`) : ''
      out += body(`${paint('dim', '⎿')} ${mark}${paint('dim', label + exit)}${more}`, place, 2)
      if (text.trim() !== '') out += body(shown.join('\n'), place, 4, r.is_error ? 'red' : 'dim')
    } else {
      out += body(`${paint('dim', '⎿')} ${mark}${paint('dim', label + exit)}`, place, 2)
      if (text !== '') out += body(cleanText(text, opts.maxOutput), place, 4, r.is_error ? 'red' : undefined)
    }
    for (const img of images) out += body(paint('yellow', `[image: ${oneLine(imageLabel(img as never), 200)}]`), place, 4)
    if (r.truncated) out += body(paint('dim', '[the source kept only part of this output]'), place, 4)
    return out
  }

  function block(b: Block, m: MessageRec, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
    switch (b.type) {
      case 'text': {
        const t = cleanText(b.text, opts.maxText)
        return body(m.role === 'assistant' ? markdown(t) : t, place)
      }
      case 'thinking':
        if (!opts.thinking) return ''
        return body(`∴ ${cleanText(b.text, opts.maxText) || (b.redacted ? '[redacted thinking]' : '[encrypted thinking]')}`, place, 2, ['dim', 'italic'])
      case 'tool_use': {
        if (opts.tools === 'none') return ''
        const c = calls.get(b.id)
        const line = `${paint(['bold', 'blue'], '▸ ' + (c?.name ?? oneLine(b.name, 60)))} ${c?.arg ?? ''}`
        return body(line, place)
      }
      case 'tool_result':
        return opts.tools === 'none' ? '' : result(b, place, calls)
      case 'image':
        return body(paint('yellow', `[image: ${oneLine(imageLabel(b), 200)}]`), place)
      case 'file':
        return body(paint('yellow', `[file: ${oneLine(b.name ?? '', 80)} ${oneLine(b.mime, 60)}]`), place)
      case 'unknown':
        return body(paint('dim', `[${oneLine(b.native_type, 60)}]`), place)
    }
  }

  return {
    start: () => '',
    session(h: SessionRec, place: Place, agent: string, startedBy: CallInfo | undefined): string {
      const title = oneLine(h.title ?? '(untitled)', 2000)
      let out = place.session > 1 && place.depth === 0 ? '\n' : ''
      const kind = place.depth > 0 ? paint('magenta', 'sub-agent ') : ''
      out += bar(place.depth) + paint('bold', `━━ ${kind}${agent} · ${title}`) + '\n'
      const facts: string[] = []
      if (h.cwd) facts.push(`cwd ${oneLine(h.cwd, 200)}`)
      if (h.model) facts.push(`model ${oneLine(h.model, 80)}`)
      if (h.git?.branch) facts.push(`branch ${oneLine(h.git.branch, 80)}`)
      if (h.created_at || h.updated_at) facts.push(`${time(h.created_at)}${h.updated_at && h.updated_at !== h.created_at ? ` → ${time(h.updated_at)}` : ''}`)
      facts.push(oneLine(h.sid, 120))
      if (startedBy) facts.push(`started by ${startedBy.name} ${startedBy.arg}`)
      if (h.redacted) facts.push('redacted')
      out += body(paint('dim', facts.join(' · ')), place, 3)
      return out
    },
    message(m: MessageRec, n: number, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
      const onlyResults = m.blocks.length > 0 && m.blocks.every((b) => b.type === 'tool_result')
      if (onlyResults && opts.tools === 'none') return ''
      if (m.context) {
        // Shown only with --context (the walker leaves it out otherwise): in full, dimmed.
        const text = m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        const kind = m.context_kind ? ` (${oneLine(m.context_kind, 30)})` : ''
        const when = m.ts ? ` · ${time(m.ts)}` : ''
        return body(paint('dim', `#${n} injected context${kind}${when}`), place, 0) + (text.trim() ? body(cleanText(text, opts.maxText), place, 2, 'dim') : '')
      }
      const who = onlyResults ? 'tool result' : oneLine(String(m.role), 20)
      const colour: Style = m.role === 'user' ? (onlyResults ? 'dim' : 'green') : m.role === 'assistant' ? 'cyan' : 'yellow'
      const when = m.ts ? paint('dim', ` · ${time(m.ts)}`) : ''
      let out = (onlyResults ? '' : '\n') + body(`${paint('dim', `#${n}`)} ${paint(['bold', colour], who)}${when}`, place, 0)
      for (const b of m.blocks) out += block(b, m, place, calls)
      if (m.stop_reason === 'error' || m.stop_reason === 'aborted') out += body(paint('red', `[${m.stop_reason}]`), place)
      return out
    },
    hiddenContext(count: number, _from: number, _to: number, place: Place): string {
      return body(paint('dim', `▸ ${plural(count, 'injected context entry', 'injected context entries')} (--context to show)`), place, 0)
    },
    boundary(b: BoundaryRec, place: Place): string {
      const facts = [b.trigger === undefined ? undefined : oneLine(String(b.trigger), 30), b.pre_tokens !== undefined ? `${Number(b.pre_tokens).toLocaleString('en-US')} tokens before` : undefined].filter(Boolean).join(', ')
      let out = '\n' + body(paint(['yellow', 'bold'], `── ${oneLine(b.type, 40)}${facts ? ` (${facts})` : ''} ──`), place, 0)
      if (b.summary) out += body(paint('dim', `summary: ${oneLine(b.summary, Math.max(40, opts.width * 2))}`), place)
      return out
    },
    sessionEnd(s: SessionStats, place: Place): string {
      const parts = [plural(s.messages, 'message'), plural(s.toolCalls, 'tool call')]
      if (s.errors) parts.push(plural(s.errors, 'error'))
      if (s.images) parts.push(plural(s.images, 'image'))
      if (s.context) parts.push(`${s.context} injected context`)
      if (s.boundaries) parts.push(plural(s.boundaries, 'boundary', 'boundaries'))
      if (s.shown !== s.messages) parts.push(`${s.shown} shown`)
      return '\n' + body(paint('dim', `── end: ${parts.join(', ')}`), place, 0)
    },
    close: () => '',
    finish(f: Footer): string {
      return f.subagents ? paint('dim', `\n${plural(f.sessions, 'session')}, ${f.subagents} of them sub-agent${f.subagents === 1 ? '' : 's'}\n`) : ''
    },
  }
}
