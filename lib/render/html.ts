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
import { escapeHtml as h, footerFacts, messageAnchor, sessionFacts } from './shared.js'

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
*{box-sizing:border-box}body{margin:0 auto;max-width:60rem;padding:1rem;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
header.doc h1{font-size:1.4rem;margin:.2rem 0}.facts{color:var(--muted);font-size:.85rem;margin:.2rem 0 .8rem}.facts b{color:var(--fg);font-weight:600}
section.session{margin:1rem 0}section.subagent{margin-left:1.2rem;padding-left:.8rem;border-left:3px solid #8250df}
article.msg{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
article.user{background:var(--user)}article.assistant{background:var(--assistant)}article.results,article.context{background:transparent}
.meta{color:var(--muted);font-size:.8rem}.meta a{color:inherit;text-decoration:none}.meta .who{font-weight:600;color:var(--fg)}
pre{background:var(--code);padding:.5rem;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:.85rem}code{font-size:.9em}
details{margin:.3rem 0}summary{cursor:pointer;color:var(--muted)}summary b{color:var(--fg)}details.tool>summary{background:var(--tool);border-radius:4px;padding:0 .3rem}
.err,.err summary{color:var(--err)}.thinking{color:var(--muted);font-style:italic}.boundary{text-align:center;color:var(--muted);border-top:2px dashed var(--line);margin:1rem 0;padding-top:.3rem}
img.inline{max-width:100%;height:auto}.placeholder,.img-ref{color:var(--muted);font-style:italic}
footer{color:var(--muted);font-size:.8rem;border-top:1px solid var(--line);margin-top:2rem;padding-top:.5rem}
button#expand{float:right;font-size:.8rem}
@media print{button#expand{display:none}body{max-width:none}pre{white-space:pre-wrap}article.msg{break-inside:avoid-page}}
`.trim()

const SCRIPT = `(function(){var b=document.getElementById('expand');if(!b)return;b.hidden=false;var open=false;b.addEventListener('click',function(){open=!open;document.querySelectorAll('details').forEach(function(d){d.open=open});b.textContent=open?'Collapse all':'Expand all'});window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.open=true})})})();`

const sha = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`

/** The policy: nothing but this document's own style and script, and data: images. */
export const CSP = `default-src 'none'; style-src ${sha(CSS)}; script-src ${sha(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`

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

  function image(img: ImageBlock): string {
    const label = h(imageLabel(img))
    if (opts.images === 'inline' && img.data !== undefined && INLINE_MIME.test(img.mime) && base64Bytes(img.data) <= opts.maxImageBytes && BASE64.test(img.data)) {
      return `<img class="inline" alt="${label}" src="data:${img.mime};base64,${img.data}">`
    }
    return `<span class="placeholder">[image: ${label}]</span>`
  }

  const pre = (text: string): string => `<pre>${h(text)}</pre>`

  function result(r: ToolResultBlock, calls: ReadonlyMap<string, CallInfo>): string {
    const call = calls.get(r.tool_use_id)
    const parts = resultParts(r)
    const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
    const lines = text === '' ? 0 : text.split('\n', 100_001).length
    const max = opts.tools === 'brief' ? 2000 : opts.maxOutput
    let inner = text === '' ? '<p class="placeholder">(no output)</p>' : pre(cleanText(text, max))
    for (const p of parts) if (p.type === 'image') inner += image(p)
    if (r.truncated) inner += '<p class="placeholder">(the source kept only part of this output)</p>'
    const label = `${r.is_error ? '✗ error: ' : ''}output of <b>${h(call?.name ?? 'tool')}</b>${r.exit_code !== undefined ? ` (exit ${Number(r.exit_code)})` : ''}, ${lines.toLocaleString('en-US')} lines`
    return `<details class="output${r.is_error ? ' err' : ''}"><summary>${label}</summary>${inner}</details>\n`
  }

  function block(b: Block, m: MessageRec, calls: ReadonlyMap<string, CallInfo>): string {
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
        const summary = `<b>${h(c?.name ?? oneLine(b.name, 60))}</b> <code>${h(c?.arg ?? '')}</code>`
        if (opts.tools === 'brief') return `<p class="tool" id="${h(callAnchor(b.id))}">▸ ${summary}</p>\n`
        return `<details class="tool" id="${h(callAnchor(b.id))}"><summary>▸ ${summary}</summary>${pre(cleanText(inputText(b), opts.maxOutput))}</details>\n`
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

  return {
    start: () => '',
    session(s: SessionRec, place: Place, agent: string, startedBy: CallInfo | undefined): string {
      const title = oneLine(s.title ?? '(untitled)', 200)
      let out = head(title)
      const facts = sessionFacts(s, agent).map(([k, v]) => `<b>${h(k)}</b> ${h(v)}`)
      if (startedBy) facts.push(`<b>started by</b> ${h(startedBy.name)} <code>${h(startedBy.arg)}</code>`)
      const link = s.parent?.tool_use_id ? ` <a href="#${h(callAnchor(s.parent.tool_use_id))}">↑ the call</a>` : ''
      out += `<section class="session${place.depth > 0 ? ' subagent' : ''}" id="s${place.session}" data-sid="${h(s.sid)}">\n`
      out += `<header class="doc"><h${place.depth > 0 ? 2 : 1}>${place.depth > 0 ? 'Sub-agent: ' : ''}${h(title)}</h${place.depth > 0 ? 2 : 1}><p class="facts">${facts.join(' · ')}${link}</p></header>\n`
      return out
    },
    message(m: MessageRec, n: number, place: Place, calls: ReadonlyMap<string, CallInfo>): string {
      const onlyResults = m.blocks.length > 0 && m.blocks.every((b) => b.type === 'tool_result')
      const id = messageAnchor(place, n)
      const when = typeof m.ts === 'string' ? ` · <time>${h(oneLine(m.ts, 40))}</time>` : ''
      if (m.context) {
        const text = m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        const kind = m.context_kind ? ` (${h(oneLine(m.context_kind, 30))})` : ''
        return `<article class="msg context" id="${id}" data-n="${n}"><details><summary><a href="#${id}">#${n}</a> injected context${kind}${when}</summary>${pre(cleanText(text, opts.maxText))}</details></article>\n`
      }
      const who = onlyResults ? 'tool result' : h(oneLine(String(m.role), 20))
      let out = `<article class="msg ${onlyResults ? 'results' : h(m.role)}" id="${id}" data-n="${n}"><div class="meta"><a href="#${id}">#${n}</a> <span class="who">${who}</span>${when}</div>\n`
      for (const b of m.blocks) out += block(b, m, calls)
      if (m.stop_reason === 'error' || m.stop_reason === 'aborted') out += `<p class="err">[${m.stop_reason}]</p>`
      return out + '</article>\n'
    },
    boundary(b: BoundaryRec): string {
      const facts = [b.trigger === undefined ? undefined : oneLine(String(b.trigger), 30), b.pre_tokens !== undefined ? `${Number(b.pre_tokens).toLocaleString('en-US')} tokens before` : undefined].filter(Boolean).join(', ')
      const summary = b.summary ? `<details><summary>Summary</summary>${markdownToHtml(cleanText(b.summary, opts.maxText))}</details>` : ''
      return `<div class="boundary">── ${h(oneLine(b.type, 40))}${facts ? ` (${h(facts)})` : ''} ──${summary}</div>\n`
    },
    sessionEnd(s: SessionStats): string {
      return `<p class="facts">${s.messages} messages, ${s.toolCalls} tool calls${s.errors ? `, ${s.errors} errors` : ''}${s.images ? `, ${s.images} images` : ''}${s.shown !== s.messages ? `, ${s.shown} shown` : ''}</p>\n`
    },
    close: () => '</section>\n',
    finish(f: Footer): string {
      return `${head('ferry transcript')}</main>\n<footer>${footerFacts(f).map(h).join(' · ')}</footer>\n<script>${SCRIPT}</script>\n</body></html>\n`
    },
  }
}

/** The element id of a tool call (sub-agents link back to it). */
export function callAnchor(id: string): string {
  return `call-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`
}
