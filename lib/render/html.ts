/**
 * One self-contained HTML document: inline CSS, no external resource, a
 * strict Content-Security-Policy (scripts and styles only by hash, images
 * only as data: URIs, nothing fetched), readable without JavaScript
 * (`<details>` for tool calls, outputs and thinking). Every string from a
 * session is escaped; assistant Markdown goes through markdown-it with raw
 * HTML off, only http(s)/mailto/# links, and images turned into text so a
 * transcript never loads anything.
 */
import { createHash } from 'node:crypto'
import MarkdownIt from 'markdown-it'
import type { Block, BoundaryRec, ImageBlock, MessageRec, SessionRec, ToolResultBlock } from '../model.js'
import { cleanText, oneLine } from './clean.js'
import type { CallInfo, Footer, Format, Place, SessionStats, ViewOptions } from './format.js'
import { base64Bytes, imageLabel, inputText, resultParts } from './summary.js'
import { VERSION } from '../version.js'
import { escapeHtml as h, footerFacts, messageAnchor, messageClock, plural, sessionFacts } from './shared.js'

const SAFE_LINK = /^(?:https?:|mailto:|#)/i
const INLINE_MIME = /^image\/(?:png|jpeg|gif|webp)$/
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const md = new MarkdownIt({ html: false, linkify: false, typographer: false })
md.validateLink = (url: string): boolean => SAFE_LINK.test(url.trim())
md.renderer.rules.image = (tokens, idx) => {
  const t = tokens[idx]!
  return `<span class="img-ref">[image: ${h(t.content)} ${h(t.attrGet('src') ?? '')}]</span>`
}
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow')
  return defaultLinkOpen(tokens, idx, options, env, self)
}

/** Renders session Markdown to HTML (raw HTML shown as text, links checked). */
export function markdownToHtml(text: string): string {
  return md.render(text)
}

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--user:#ddf4ff;--assistant:#f6f8fa;--tool:#fff8c5;--err:#cf222e;--code:#eff1f3}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--user:#0c2d48;--assistant:#151b23;--tool:#272115;--err:#f85149;--code:#1f2428}}
*{box-sizing:border-box}body{margin:0 auto;max-width:60rem;padding:1rem;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;display:flex;flex-direction:column}
header.doc h1{font-size:1.4rem;margin:.2rem 0;overflow-wrap:anywhere}.facts{color:var(--muted);font-size:.85rem;margin:.2rem 0 .8rem}.facts b{color:var(--fg);font-weight:600}
section.session{margin:1rem 0}section.subagent{margin-left:1.2rem;padding-left:.8rem;border-left:3px solid #8250df}
article.msg{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
article.user{background:var(--user)}article.assistant{background:var(--assistant)}article.results,article.context{background:transparent}
.meta{color:var(--muted);font-size:.8rem}.meta a{color:inherit;text-decoration:none}.meta .who{font-weight:600;color:var(--fg)}
pre{background:var(--code);padding:.5rem;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:.85rem}code{font-size:.9em}
details{margin:.3rem 0}summary{cursor:pointer;color:var(--muted)}summary b{color:var(--fg)}
details.call{border:1px solid var(--line);border-radius:6px;background:var(--bg)}details.call>summary{background:var(--tool);border-radius:5px;padding:.1rem .4rem}details.call[open]>summary{border-radius:5px 5px 0 0}
details.call>.input,details.call>.result{padding:0 .5rem}.result .meta{margin-top:.3rem}.status{color:var(--muted)}details.call.failed>summary .status{color:var(--err)}details.call.failed .result pre{border-left:3px solid var(--err)}
.err,.err summary{color:var(--err)}.thinking{color:var(--muted);font-style:italic}.boundary{text-align:center;color:var(--muted);border-top:2px dashed var(--line);margin:1rem 0;padding-top:.3rem}
.hidden-context{color:var(--muted);font-size:.85rem;margin:.5rem 0}
img.inline{max-width:100%;height:auto}.placeholder,.img-ref{color:var(--muted);font-style:italic}
nav.toc{order:-1;font-size:.85rem;border:1px solid var(--line);border-radius:6px;padding:.2rem .8rem;margin:.5rem 0}nav.toc ol{margin:.2rem 0;padding-left:.2rem;list-style:none}nav.toc li{margin:.1rem 0}nav.toc time{color:var(--muted)}nav.toc li.session{font-weight:600;margin-top:.3rem}
footer{color:var(--muted);font-size:.8rem;border-top:1px solid var(--line);margin-top:2rem;padding-top:.5rem}
button#expand{order:-2;align-self:flex-end;font-size:.8rem}
@media (min-width:84rem){body{display:grid;grid-template-columns:17rem minmax(0,60rem);column-gap:1.5rem;max-width:80rem;align-items:start}nav.toc{grid-column:1;grid-row:1/span 3;position:sticky;top:1rem;max-height:calc(100vh - 2rem);overflow:auto}button#expand,main,footer{grid-column:2}button#expand{justify-self:end}}
@media print{button#expand,nav.toc{display:none}body{max-width:none;display:block}pre{white-space:pre-wrap}article.msg{break-inside:avoid-page}}
`.trim()

const SCRIPT = `(function(){var b=document.getElementById('expand');if(!b)return;b.hidden=false;var open=false;b.addEventListener('click',function(){open=!open;document.querySelectorAll('details').forEach(function(d){d.open=open});b.textContent=open?'Collapse all':'Expand all'});window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.open=true})})})();`

const sha = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`

/** The policy: nothing but this document's own style and script, and data: images. */
export const CSP = `default-src 'none'; style-src ${sha(CSS)}; script-src ${sha(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`

/** A tool call's card: the call, and its result once the result's message arrives. */
interface Card {
  callId: string
  /** Inner HTML of the summary: the tool and its main argument. */
  label: string
  /** The input, shown in full mode. */
  input: string
  /** The result: its anchor element (the result message's), output and status. */
  result?: { html: string; status: string; err: boolean }
}

/** An entry of the table of contents: a session, or a turn (a prompt someone typed). */
interface TocEntry {
  href: string
  text: string
  n?: number
  time?: { iso: string; text: string; title: string }
  session?: boolean
}

/** Calls held open for their results at most: past this, what is held is written as it is. */
const MAX_HELD = 200
/** Entries of the table of contents at most (a note says how many more turns there were). */
const MAX_TOC = 2000

export function htmlFormat(opts: ViewOptions): Format {
  let headDone = false
  const head = (title: string): string => {
    if (headDone) return ''
    headDone = true
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${h(CSP)}">
<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ferry ${h(VERSION)}">
<title>${h(title)}</title>
<style>${CSS}</style>
</head><body>
<button id="expand" type="button" hidden>Expand all</button>
<main>
`
  }
  const clock = messageClock()
  /** `<time>` with the machine time in `datetime` and the full local time as its title. */
  const timeEl = (ts: string): { html: string; iso?: string; text: string; title: string } => {
    const c = clock(ts)
    const d = new Date(ts)
    const iso = Number.isNaN(d.getTime()) ? undefined : d.toISOString()
    return { html: iso ? `<time datetime="${iso}" title="${h(c.title)}">${h(c.text)}</time>` : `<time>${h(c.text)}</time>`, ...(iso ? { iso } : {}), text: c.text, title: c.title }
  }

  // Pieces of messages whose calls wait for their results: a call and its
  // result share one card, so the messages that hold open calls are held
  // (bounded by MAX_HELD) until those results came or something else did.
  let held: Array<string | Card> = []
  const open = new Map<string, Card>()
  const toc: TocEntry[] = []
  let tocMore = 0

  function image(img: ImageBlock): string {
    const label = h(imageLabel(img))
    if (opts.images === 'inline' && img.data !== undefined && INLINE_MIME.test(img.mime) && base64Bytes(img.data) <= opts.maxImageBytes && BASE64.test(img.data)) {
      return `<img class="inline" alt="${label}" src="data:${img.mime};base64,${img.data}">`
    }
    return `<span class="placeholder">[image: ${label}]</span>`
  }

  const pre = (text: string): string => `<pre>${h(text)}</pre>`

  /** A result's output (text, images, truncation note), and what its card's summary says of it. */
  function output(r: ToolResultBlock): { inner: string; status: string } {
    const parts = resultParts(r)
    const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
    const lines = text === '' ? 0 : text.split('\n', 100_001).length
    const max = opts.tools === 'brief' ? 2000 : opts.maxOutput
    let inner = text === '' ? '<p class="placeholder">(no output)</p>' : pre(cleanText(text, max))
    for (const p of parts) if (p.type === 'image') inner += image(p)
    if (r.truncated) inner += '<p class="placeholder">(the source kept only part of this output)</p>'
    const status = [r.is_error ? '✗ error' : '', r.exit_code !== undefined ? `exit ${Number(r.exit_code)}` : '', lines > 100_000 ? '100,000+ lines' : text === '' ? 'no output' : plural(lines, 'line')].filter(Boolean).join(' · ')
    return { inner, status }
  }

  /** A result whose call is not on the page (or not alone in its message): its own disclosure. */
  function result(r: ToolResultBlock, calls: ReadonlyMap<string, CallInfo>): string {
    const call = calls.get(r.tool_use_id)
    const { inner, status } = output(r)
    return `<details class="output${r.is_error ? ' err' : ''}"><summary>output of <b>${h(call?.name ?? 'tool')}</b> <span class="status">${h(status)}</span></summary>${inner}</details>\n`
  }

  function card(c: Card): string {
    const r = c.result
    const status = r ? ` <span class="status">${h(r.status)}</span>` : ''
    return `<details class="call${r?.err ? ' failed' : ''}" id="${h(callAnchor(c.callId))}"><summary>${c.label}${status}</summary>${c.input}${r ? r.html : ''}</details>\n`
  }

  /** Writes what is held, cards with whatever results they got. */
  function flush(): string {
    if (!held.length) return ''
    const out = held.map((p) => (typeof p === 'string' ? p : card(p))).join('')
    held = []
    open.clear()
    return out
  }

  function block(b: Block, m: MessageRec, calls: ReadonlyMap<string, CallInfo>): string | Card {
    switch (b.type) {
      case 'text': {
        const t = cleanText(b.text, opts.maxText)
        return m.role === 'system' ? pre(t) : `<div class="text">${markdownToHtml(t)}</div>\n`
      }
      case 'thinking':
        if (!opts.thinking) return ''
        return `<details class="thinking"><summary>Thinking</summary>${markdownToHtml(cleanText(b.text, opts.maxText) || (b.redacted ? '[redacted thinking]' : '[encrypted thinking]'))}</details>\n`
      case 'tool_use': {
        if (opts.tools === 'none') return ''
        const c = calls.get(b.id)
        const label = `<b>${h(c?.name ?? oneLine(b.name, 60))}</b> <code>${h(c?.arg ?? '')}</code>`
        return { callId: b.id, label, input: opts.tools === 'brief' ? '' : `<div class="input">${pre(cleanText(inputText(b), opts.maxOutput))}</div>` }
      }
      case 'tool_result':
        return opts.tools === 'none' ? '' : result(b, calls)
      case 'image':
        return `<p>${image(b)}</p>\n`
      case 'file':
        return `<p class="placeholder">[file: ${h(oneLine(b.name ?? '', 80))} ${h(b.mime)}]</p>\n`
      case 'unknown':
        return `<p class="placeholder">[${h(oneLine(b.native_type, 60))}]</p>\n`
    }
  }

  function tocList(): string {
    const turns = toc.filter((e) => !e.session).length + tocMore
    if (turns === 0) return ''
    // One session: its heading is right below; several: each opens its group of turns.
    const entries = toc.filter((e) => !e.session).length === toc.length - 1 ? toc.filter((e) => !e.session) : toc
    const items = entries.map((e) =>
      e.session
        ? `<li class="session"><a href="${h(e.href)}">${h(e.text)}</a></li>`
        : `<li><a href="${h(e.href)}">#${e.n}</a>${e.time ? ` ${e.time.iso ? `<time datetime="${e.time.iso}" title="${h(e.time.title)}">` : '<time>'}${h(e.time.text)}</time>` : ''} ${h(e.text)}</li>`,
    )
    if (tocMore) items.push(`<li class="placeholder">and ${plural(tocMore, 'more turn')}</li>`)
    // Short lists open; a long one stays one line until asked.
    return `<nav class="toc" aria-label="Turns"><details${turns <= 30 ? ' open' : ''}><summary>Contents: ${plural(turns, 'turn')}</summary><ol>${items.join('\n')}</ol></details></nav>\n`
  }

  return {
    start: () => '',
    session(s: SessionRec, place: Place, agent: string, startedBy: CallInfo | undefined): string {
      // The title as recorded (whitespace folded), not cut short.
      const title = oneLine(s.title ?? '(untitled)', 2000)
      let out = head(title) + flush()
      const facts = sessionFacts(s, agent).map(([k, v]) => `<b>${h(k)}</b> ${h(v)}`)
      if (startedBy) facts.push(`<b>started by</b> ${h(startedBy.name)} <code>${h(startedBy.arg)}</code>`)
      const link = s.parent?.tool_use_id ? ` <a href="#${h(callAnchor(s.parent.tool_use_id))}">↑ the call</a>` : ''
      if (place.depth === 0 && toc.length < MAX_TOC) toc.push({ href: `#s${place.session}`, text: title, session: true })
      out += `<section class="session${place.depth > 0 ? ' subagent' : ''}" id="s${place.session}" data-sid="${h(s.sid)}">\n`
      out += `<header class="doc"><h${place.depth > 0 ? 2 : 1}>${place.depth > 0 ? 'Sub-agent: ' : ''}${h(title)}</h${place.depth > 0 ? 2 : 1}><p class="facts">${facts.join(' · ')}${link}</p></header>\n`
      return out
    },
    message(m: MessageRec, n: number, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
      const onlyResults = m.blocks.length > 0 && m.blocks.every((b) => b.type === 'tool_result')
      const id = messageAnchor(place, n)
      const t = typeof m.ts === 'string' ? timeEl(m.ts) : null
      const when = t ? ` · ${t.html}` : ''
      // Results that answer held calls go into those calls' cards; the first carries the message's anchor.
      if (onlyResults && opts.tools !== 'none' && m.blocks.every((b) => b.type === 'tool_result' && open.has(b.tool_use_id))) {
        let anchor = `<div class="result" id="${id}" data-n="${n}">`
        for (const b of m.blocks as ToolResultBlock[]) {
          const c = open.get(b.tool_use_id)!
          open.delete(b.tool_use_id)
          const { inner, status } = output(b)
          c.result = { html: `${anchor}<div class="meta"><a href="#${id}">#${n}</a> output${when}</div>${inner}</div>`, status, err: b.is_error === true }
          anchor = '<div class="result">'
        }
        return open.size === 0 ? flush() : ''
      }
      if (m.context) {
        const text = m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        const kind = m.context_kind ? ` (${h(oneLine(m.context_kind, 30))})` : ''
        return flush() + `<article class="msg context" id="${id}" data-n="${n}"><details><summary><a href="#${id}">#${n}</a> injected context${kind}${when}</summary>${pre(cleanText(text, opts.maxText))}</details></article>\n`
      }
      if (m.role === 'user' && !onlyResults && place.depth === 0) {
        const first = m.blocks.find((b) => b.type === 'text')
        if (first && first.type === 'text') {
          if (toc.length < MAX_TOC) toc.push({ href: `#${id}`, n, text: oneLine(first.text, 90), ...(t ? { time: { iso: t.iso ?? '', text: t.text, title: t.title } } : {}) })
          else tocMore++
        }
      }
      const who = onlyResults ? 'tool result' : h(oneLine(String(m.role), 20))
      const pieces: Array<string | Card> = [`<article class="msg ${onlyResults ? 'results' : h(m.role)}" id="${id}" data-n="${n}"><div class="meta"><a href="#${id}">#${n}</a> <span class="who">${who}</span>${when}</div>\n`]
      for (const b of m.blocks) pieces.push(block(b, m, calls))
      if (m.stop_reason === 'error' || m.stop_reason === 'aborted') pieces.push(`<p class="err">[${m.stop_reason}]</p>`)
      pieces.push('</article>\n')
      const cards = pieces.filter((p): p is Card => typeof p !== 'string')
      // An assistant message with more calls while calls wait (parallel calls) joins what is held.
      let out = cards.length && open.size && m.role === 'assistant' ? '' : flush()
      if (!cards.length) return out + pieces.join('')
      held.push(...pieces)
      for (const c of cards) open.set(c.callId, c)
      if (open.size > MAX_HELD || held.length > MAX_HELD * 4) out += flush()
      return out
    },
    hiddenContext(count: number): string {
      return `${flush()}<p class="hidden-context">${h(plural(count, 'injected context entry', 'injected context entries'))} not shown (render with <code>--context</code> to include them)</p>\n`
    },
    boundary(b: BoundaryRec): string {
      const facts = [b.trigger === undefined ? undefined : oneLine(String(b.trigger), 30), b.pre_tokens !== undefined ? `${Number(b.pre_tokens).toLocaleString('en-US')} tokens before` : undefined].filter(Boolean).join(', ')
      const summary = b.summary ? `<details><summary>Summary</summary>${markdownToHtml(cleanText(b.summary, opts.maxText))}</details>` : ''
      return `${flush()}<div class="boundary">── ${h(oneLine(b.type, 40))}${facts ? ` (${h(facts)})` : ''} ──${summary}</div>\n`
    },
    sessionEnd(s: SessionStats): string {
      const parts = [plural(s.messages, 'message'), plural(s.toolCalls, 'tool call')]
      if (s.errors) parts.push(plural(s.errors, 'error'))
      if (s.images) parts.push(plural(s.images, 'image'))
      if (s.context) parts.push(`${s.context} injected context`)
      if (s.shown !== s.messages) parts.push(`${s.shown} shown`)
      return `${flush()}<p class="facts">${h(parts.join(', '))}</p>\n`
    },
    close: () => `${flush()}</section>\n`,
    finish(f: Footer): string {
      return `${head('ferry transcript')}${flush()}</main>\n${tocList()}<footer>${footerFacts(f).map(h).join(' · ')}</footer>\n<script>${SCRIPT}</script>\n</body></html>\n`
    },
  }
}

/** The element id of a tool call (sub-agents link back to it). */
export function callAnchor(id: string): string {
  return `call-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`
}
