/**
 * One streaming pass over `updates.jsonl` that keeps only what the model log
 * lacks: per prompt (timestamps, where its image chunks are, stop reason)
 * and per tool call (timestamps, failed status, ACP kind).
 *
 * Prompts are counted as Grok counts them on resume (a prompt is a run of
 * `user_message_chunk`s, a new `promptIndex` starts a new one). `promptIndex`
 * itself is untrusted: it is only used as a lookup key, and only when it is a
 * non-negative integer no larger than the number of lines read so far (every
 * prompt writes at least one line), so a value like 1e12 or -5 is ignored and
 * never sizes anything. Image payloads are not kept: only the byte offset and
 * length of their line, read back when the prompt is emitted. This pass is
 * the one that reports the file's bad and over-long lines.
 */
import { open } from 'node:fs/promises'
import type { StoreContext } from '../../context.js'
import { LineReporter, parseJsonLine, readLines } from '../../io/line-file.js'
import { isObj, type JsonObject } from '../../model.js'

export interface ImageRef {
  offset?: number
  length?: number
  /** Kept inline only when the file is compressed (no random access). */
  mime?: string
  data?: string
}

export interface PromptInfo {
  ts: number | null
  promptIndex?: number
  modelId?: string
  images: ImageRef[]
  /** Start times of runs of agent_message_chunk / agent_thought_chunk, in order. */
  textTs: Array<number | null>
  thoughtTs: Array<number | null>
  stop?: string
}

export interface ToolInfo {
  ts: number | null
  endTs: number | null
  failed: boolean
  kind?: string
  title?: string
}

export interface UpdatesIndex {
  prompts: PromptInfo[]
  byPromptIndex: Map<number, number>
  tools: Map<string, ToolInfo>
  firstTs: number | null
  lastTs: number | null
  lines: number
  path: string
}

/** `_meta.agentTimestampMs`, else the envelope's epoch seconds. */
export function lineTimestamp(env: JsonObject, params: JsonObject | undefined): number | null {
  const ms = params?._meta?.agentTimestampMs
  if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0) return ms
  const s = env.timestamp
  if (typeof s === 'number' && Number.isFinite(s) && s > 0) return s * 1000
  return null
}

/** The envelope's notification params and its update (legacy lines are a bare notification). */
export function unwrap(env: JsonObject): { params?: JsonObject; update?: JsonObject; xai: boolean } {
  const params = typeof env.method === 'string' ? env.params : env
  if (!isObj(params)) return { xai: false }
  const update = isObj(params.update) ? params.update : undefined
  return { params, ...(update ? { update } : {}), xai: env.method === '_x.ai/session/update' }
}

export function plausiblePromptIndex(v: unknown, linesSoFar: number): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= linesSoFar ? v : undefined
}

export async function buildUpdatesIndex(ctx: StoreContext, path: string): Promise<UpdatesIndex> {
  const idx: UpdatesIndex = { prompts: [], byPromptIndex: new Map(), tools: new Map(), firstTs: null, lastTs: null, lines: 0, path }
  const info: { compressed?: boolean } = {}
  let inUser = false
  let curPi: number | undefined
  let run: 'text' | 'thought' | null = null
  const cur = (): PromptInfo | undefined => idx.prompts[idx.prompts.length - 1]
  const reporter = new LineReporter(ctx, 'grok', path)
  for await (const line of readLines(ctx, path, { source: 'grok', info })) {
    const { no, buf, offset } = line
    idx.lines = no + 1
    if (buf.length === 0 || buf.toString('latin1').trim() === '') continue
    const env = parseJsonLine(buf)
    if (env instanceof Error || !isObj(env)) {
      reporter.bad(line, `unparsable updates line: ${env instanceof Error ? env.message : 'not an object'}`)
      continue
    }
    const { params, update } = unwrap(env)
    if (!update) continue
    const ts = lineTimestamp(env, params)
    if (ts !== null) {
      idx.firstTs ??= ts
      idx.lastTs = ts
    }
    const su = update.sessionUpdate
    if (su === 'user_message_chunk') {
      const meta = isObj(update._meta) ? update._meta : {}
      if (meta.hostTurn) {
        inUser = false
        continue
      }
      const pi = plausiblePromptIndex(meta.promptIndex, no)
      if (!inUser || (pi !== undefined && pi !== curPi)) {
        idx.prompts.push({ ts, images: [], textTs: [], thoughtTs: [], ...(pi === undefined ? {} : { promptIndex: pi }), ...(typeof meta.modelId === 'string' ? { modelId: meta.modelId } : {}) })
        if (pi !== undefined && !idx.byPromptIndex.has(pi)) idx.byPromptIndex.set(pi, idx.prompts.length - 1)
        curPi = pi
      }
      inUser = true
      run = null
      const c = update.content
      if (isObj(c) && c.type === 'image') {
        cur()!.images.push(info.compressed ? { mime: String(c.mimeType ?? 'image/png'), data: String(c.data ?? '') } : { offset, length: buf.length })
      }
      continue
    }
    inUser = false
    const p = cur()
    if (su === 'agent_message_chunk' || su === 'agent_thought_chunk') {
      const kind = su === 'agent_message_chunk' ? 'text' : 'thought'
      if (run !== kind && p) (kind === 'text' ? p.textTs : p.thoughtTs).push(ts)
      run = kind
      continue
    }
    run = null
    if (su === 'tool_call' || su === 'tool_call_update') {
      const id = update.toolCallId
      if (typeof id !== 'string') continue
      let t = idx.tools.get(id)
      if (!t) {
        t = { ts, endTs: null, failed: false }
        idx.tools.set(id, t)
      }
      if (typeof update.kind === 'string' && (t.kind === undefined || t.kind === 'other')) t.kind = update.kind
      if (su === 'tool_call' && typeof update.title === 'string') t.title ??= update.title
      if (update.status === 'failed') t.failed = true
      if (update.status === 'failed' || update.status === 'completed') t.endTs = ts
      continue
    }
    if (su === 'turn_completed' && p && typeof update.stop_reason === 'string') p.stop = update.stop_reason
  }
  return idx
}

/** Reads the image chunks of one prompt back from the file. */
export async function loadImages(idx: UpdatesIndex, refs: ImageRef[]): Promise<Array<{ mime: string; data: string }>> {
  const out: Array<{ mime: string; data: string }> = []
  const needFile = refs.some((r) => r.offset !== undefined)
  const fh = needFile ? await open(idx.path, 'r') : null
  try {
    for (const r of refs) {
      if (r.data !== undefined) {
        out.push({ mime: r.mime ?? 'image/png', data: r.data })
        continue
      }
      const buf = Buffer.alloc(r.length!)
      await fh!.read(buf, 0, r.length!, r.offset!)
      const env = parseJsonLine(buf)
      const c = isObj(env) ? unwrap(env).update?.content : undefined
      if (isObj(c) && typeof c.data === 'string') out.push({ mime: typeof c.mimeType === 'string' ? c.mimeType : 'image/png', data: c.data })
    }
  } finally {
    await fh?.close()
  }
  return out
}
