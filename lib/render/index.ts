/**
 * Rendering: a record stream → text for a person (terminal) or a document to
 * share (Markdown, HTML). `renderer()` is the bare stage; `renderStages()`
 * puts redaction in front of it (on by default for documents: credentials,
 * home paths, e-mail addresses, through the redact transform), so a library
 * caller gets what `ferry render` writes:
 *
 *   await pipeline(await open('codex:0199…'), ...renderStages({ format: 'html' }), createWriteStream('s.html'))
 */
import type { Transform } from 'node:stream'
import { redact, Redactor } from '../../transforms/index.js'
import type { Format, ViewOptions } from './format.js'
import { htmlFormat } from './html.js'
import { markdownFormat } from './markdown.js'
import { terminalFormat } from './terminal.js'
import { parseRange, RenderStream } from './view.js'

export type { ViewOptions, ToolsMode, ImagesMode, Format, Footer, SessionStats, Place, CallInfo } from './format.js'
export { RenderStream, parseRange, agentName } from './view.js'
export { clean, cleanText, oneLine } from './clean.js'
export { CSP, markdownToHtml, callAnchor } from './html.js'
export { fence, safeMarkdown } from './markdown.js'

export const FORMATS = ['terminal', 'md', 'html'] as const
export type RenderFormat = (typeof FORMATS)[number]

export const VIEW_DEFAULTS: ViewOptions = {
  thinking: true,
  tools: 'full',
  images: 'inline',
  maxImageBytes: 1024 * 1024,
  maxText: 100_000,
  maxOutput: 20_000,
  width: 100,
  color: false,
  context: false,
}

export interface RenderOptions extends Partial<ViewOptions> {
  format: RenderFormat
  /** Messages `5-12` (1-based, as shown in the view), or a parsed pair. */
  range?: string | [number, number] | null
  /** The redaction counts shown in the footer (null: not redacted). */
  redacted?: () => Record<string, number> | null
}

function formatFor(name: RenderFormat, view: ViewOptions): Format {
  switch (name) {
    case 'terminal':
      return terminalFormat(view)
    case 'md':
      return markdownFormat(view)
    case 'html':
      return htmlFormat(view)
  }
}

/** The render stage: records in (object mode), text out. */
export function renderer(opts: RenderOptions): RenderStream {
  if (!FORMATS.includes(opts.format)) throw new RangeError(`render: unknown format "${String(opts.format)}" (known: ${FORMATS.join(', ')})`)
  const view: ViewOptions = { ...VIEW_DEFAULTS }
  for (const [k, v] of Object.entries(opts)) if (v !== undefined && k in VIEW_DEFAULTS) (view as unknown as Record<string, unknown>)[k] = v
  const range = typeof opts.range === 'string' ? parseRange(opts.range) : (opts.range ?? null)
  return new RenderStream(formatFor(opts.format, view), { range, context: view.context, ...(opts.redacted ? { redacted: opts.redacted } : {}) })
}

/** The redaction a shared document gets: the redact transform's rules plus home paths and e-mail addresses. */
export function shareRedaction(): { stage: Transform; counts: () => Record<string, number> } {
  const options = { paths: true, emails: true } as const
  const engine = new Redactor(options)
  return { stage: redact({ ...options, redactor: engine }), counts: () => engine.report() }
}

/**
 * Redaction (unless `redact: false`), then `stages` (other transforms, in
 * order), then the renderer. Redaction comes first so no later transform
 * (a truncation) can cut a secret into pieces no rule recognises.
 */
export function renderStages(opts: RenderOptions & { redact?: boolean; stages?: Transform[] }): Transform[] {
  const { redact: on = opts.format !== 'terminal', stages = [], ...rest } = opts
  if (!on) return [...stages, renderer({ ...rest, redacted: () => null })]
  const r = shareRedaction()
  return [r.stage, ...stages, renderer({ ...rest, redacted: r.counts })]
}
