/**
 * GitHub-flavoured Markdown, safe to paste into an issue: session text stays
 * Markdown but cannot open HTML (a `<` outside code becomes `&lt;`, so a
 * planted `</details>` or `<img onerror>` is text), an unclosed code fence
 * is closed at the end of its message, and tool calls, outputs and
 * thinking sit in `<details>` blocks whose fences are longer than any
 * backtick run inside them.
 */
import type { Block, BoundaryRec, MessageRec, SessionRec, ToolResultBlock } from '../model.js'
import { cleanText, oneLine } from './clean.js'
import type { CallInfo, Footer, Format, Place, SessionStats, ViewOptions } from './format.js'
import { imageLabel, inputText, resultParts } from './summary.js'
import { escapeHtml, footerFacts, messageAnchor, messageClock, plural, sessionFacts } from './shared.js'

/** A fence longer than the longest run of backticks in `text` (at least three). */
export function fence(text: string, lang = ''): string {
  let longest = 0
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length)
  const f = '`'.repeat(Math.max(3, longest + 1))
  return `${f}${lang}\n${text}${text.endsWith('\n') ? '' : '\n'}${f}\n`
}

/** Session Markdown with HTML neutralised outside code, fences balanced. */
export function safeMarkdown(text: string): string {
  let open: string | null = null
  const out: string[] = []
  for (const line of text.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (open !== null) {
      if (f && f[1]![0] === open[0] && f[1]!.length >= open.length && line.trim() === f[1]) open = null
      out.push(line)
      continue
    }
    if (f) {
      open = f[1]!
      out.push(line)
      continue
    }
    // Inline code spans are left alone; everything else loses its HTML and entities.
    out.push(
      line
        .split(/(`+[^`]*`+)/)
        .map((seg, i) => (i % 2 === 1 ? seg : seg.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
        .join(''),
    )
  }
  if (open !== null) out.push(open)
  return out.join('\n')
}

/** Quoted for `<summary>` and other HTML positions. */
const h = escapeHtml

export function markdownFormat(opts: ViewOptions): Format {
  const clock = messageClock()
  const details = (summary: string, inner: string): string => `<details><summary>${summary}</summary>\n\n${inner}\n</details>\n\n`

  function result(r: ToolResultBlock, calls: ReadonlyMap<string, CallInfo>): string {
    const call = calls.get(r.tool_use_id)
    const parts = resultParts(r)
    const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
    const lines = text === '' ? 0 : text.split('\n', 100_001).length
    const label = `${r.is_error ? '❌ error: ' : ''}output of ${h(call?.name ?? 'tool')}${r.exit_code !== undefined ? ` (exit ${Number(r.exit_code)})` : ''}, ${plural(lines, 'line')}`
    const max = opts.tools === 'brief' ? 2000 : opts.maxOutput
    let inner = text === '' ? '_(no output)_\n' : fence(cleanText(text, max))
    for (const p of parts) if (p.type === 'image') inner += `\n_[image: ${h(imageLabel(p))}]_\n`
    if (r.truncated) inner += '\n_(the source kept only part of this output)_\n'
    return details(label, inner)
  }

  function block(b: Block, m: MessageRec, calls: ReadonlyMap<string, CallInfo>): string {
    switch (b.type) {
      case 'text':
        return safeMarkdown(cleanText(b.text, opts.maxText)) + '\n\n'
      case 'thinking':
        if (!opts.thinking) return ''
        return details('Thinking', safeMarkdown(cleanText(b.text, opts.maxText) || (b.redacted ? '_[redacted thinking]_' : '_[encrypted thinking]_')))
      case 'tool_use': {
        if (opts.tools === 'none') return ''
        const c = calls.get(b.id)
        const summary = `🔧 <b>${h(c?.name ?? oneLine(b.name, 60))}</b> <code>${h(c?.arg ?? '')}</code>`
        if (opts.tools === 'brief') return `${summary}\n\n`
        return details(summary, fence(cleanText(inputText(b), opts.maxOutput), typeof b.input === 'string' ? '' : 'json'))
      }
      case 'tool_result':
        return opts.tools === 'none' ? '' : result(b, calls)
      case 'image':
        return `_[image: ${h(imageLabel(b))}]_\n\n`
      case 'file':
        return `_[file: ${h(oneLine(b.name ?? '', 80))} ${h(b.mime)}]_\n\n`
      case 'unknown':
        return `_[${h(oneLine(b.native_type, 60))}]_\n\n`
    }
    void m
  }

  const indent = (place: Place): string => (place.depth > 0 ? '#'.repeat(Math.min(place.depth, 2)) : '')

  return {
    start: () => '',
    session(s: SessionRec, place: Place, agent: string, startedBy: CallInfo | undefined): string {
      const title = h(oneLine(s.title ?? '(untitled)', 2000))
      const head = place.depth > 0 ? `${'#'.repeat(Math.min(2 + place.depth, 4))} Sub-agent: ${title}` : `# ${title}`
      const facts = sessionFacts(s, agent).map(([k, v]) => `**${k}:** ${h(v)}`)
      if (startedBy) facts.push(`**started by:** ${h(startedBy.name)} <code>${h(startedBy.arg)}</code>`)
      return `${place.session > 1 && place.depth === 0 ? '\n---\n\n' : ''}${head}\n\n${facts.join(' · ')}\n\n`
    },
    message(m: MessageRec, n: number, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
      const onlyResults = m.blocks.length > 0 && m.blocks.every((b) => b.type === 'tool_result')
      if (onlyResults && opts.tools === 'none') return ''
      const anchor = `<a id="${messageAnchor(place, n)}"></a>`
      const when = typeof m.ts === 'string' ? ` · ${h(clock(m.ts).text)}` : ''
      if (m.context) {
        const text = m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        return `${anchor}\n` + details(`#${n} injected context${m.context_kind ? ` (${h(oneLine(m.context_kind, 30))})` : ''}${when}`, fence(cleanText(text, opts.maxText)))
      }
      const who = onlyResults ? 'tool result' : h(oneLine(String(m.role), 20))
      let out = `${anchor}\n### ${indent(place)}${n} · ${who}${when}\n\n`
      for (const b of m.blocks) out += block(b, m, calls)
      if (m.stop_reason === 'error' || m.stop_reason === 'aborted') out += `_[${m.stop_reason}]_\n\n`
      return out
    },
    hiddenContext(count: number): string {
      return `_${plural(count, 'injected context entry', 'injected context entries')} not shown (render with \`--context\` to include them)_\n\n`
    },
    boundary(b: BoundaryRec): string {
      const facts = [b.trigger === undefined ? undefined : oneLine(String(b.trigger), 30), b.pre_tokens !== undefined ? `${Number(b.pre_tokens).toLocaleString('en-US')} tokens before` : undefined].filter(Boolean).join(', ')
      const head = `**── ${h(oneLine(b.type, 40))}${facts ? ` (${h(facts)})` : ''} ──**\n\n`
      return b.summary ? head + details('Summary', safeMarkdown(cleanText(b.summary, opts.maxText))) : head
    },
    sessionEnd(s: SessionStats): string {
      return `_${plural(s.messages, 'message')}, ${plural(s.toolCalls, 'tool call')}${s.errors ? `, ${plural(s.errors, 'error')}` : ''}${s.shown !== s.messages ? `, ${s.shown} shown` : ''}_\n\n`
    },
    close: () => '',
    finish(f: Footer): string {
      return `\n---\n\n<sub>${footerFacts(f).map(h).join(' · ')}</sub>\n`
    },
  }
}
