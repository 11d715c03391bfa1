/**
 * The preview pane's text: the session as `ferry show` renders it (the
 * terminal format, brief tools, at the pane's width), cut after `maxLines`
 * lines so a session of a million records costs no more than its start.
 */
import { Writable } from 'node:stream'
import type { StoreContext } from '../context.js'
import { pipeline } from '../io/pipeline.js'
import { resolveRef } from '../harness/refs.js'
import { renderStages } from '../render/index.js'

export interface PreviewOptions {
  width: number
  color: boolean
  maxLines?: number
  signal?: AbortSignal
}

/** The first lines of `ref` as `show` renders it; an error becomes the preview's one line. */
export async function previewLines(ctx: StoreContext, ref: string, o: PreviewOptions): Promise<string[]> {
  const max = o.maxLines ?? 400
  const lines: string[] = []
  let part = ''
  const stop = new AbortController()
  const abort = () => stop.abort()
  o.signal?.addEventListener('abort', abort)
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      const text = part + chunk.toString()
      const split = text.split('\n')
      part = split.pop()!
      lines.push(...split)
      if (lines.length >= max) stop.abort()
      cb()
    },
  })
  try {
    const { harness, session } = await resolveRef(ctx, ref)
    const source = harness.read!(ctx, session, { native: false })
    const stages = renderStages({ format: 'terminal', redact: false, thinking: true, tools: 'brief', width: Math.max(20, o.width), color: o.color })
    await pipeline(source, ...stages, sink, { signal: stop.signal })
  } catch (err) {
    if (!stop.signal.aborted) return [...lines, `(cannot preview: ${(err as Error).message})`]
  } finally {
    o.signal?.removeEventListener('abort', abort)
  }
  if (part) lines.push(part)
  return lines.slice(0, max)
}
