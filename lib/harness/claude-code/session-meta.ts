/**
 * Cheap session metadata from the head and a bounded tail of a transcript,
 * without parsing the whole file (claude-code.md §2 "Discovery"). Lines over
 * the run's line cap are passed over here, unreported: reading the session
 * is what reports them, with their line numbers.
 */
import { readEnds, readTail, type LineContext } from '../../io/line-file.js'
import { scanTop, str, type Scalar } from '../../io/json-bytes.js'
import { isObj } from '../../model.js'
import { promptTitle } from './text.js'

const HEAD_BYTES = 512 * 1024
const HEAD_LINES = 200
const TAIL_BYTES = 256 * 1024
/**
 * Discovery's parse budget, not a line cap: a line larger than this (but
 * within the cap) has its top-level scalars scanned, and is not JSON-parsed
 * for a model or a prompt title, so listing a store stays cheap.
 */
const PARSE_BUDGET = 256 * 1024

const TITLE_MARK = Buffer.from('-title"')
const SUMMARY_MARK = Buffer.from('"summary"')
const ASSISTANT_MARK = Buffer.from('"assistant"')

const HEAD_KEYS = new Set(['type', 'cwd', 'version', 'gitBranch', 'timestamp', 'isMeta', 'isSidechain', 'isCompactSummary', 'sessionId'])
const TAIL_KEYS = new Set(['type', 'timestamp', 'customTitle', 'aiTitle', 'summary', 'leafUuid', 'isSidechain'])

export interface SessionMeta {
  cwd?: string
  version?: string
  gitBranch?: string
  model?: string
  title?: string
  titleSource?: string
  createdAt?: string
  updatedAt?: string
  bytes: number
  mtime: Date
}

function parseSmall(line: Buffer): Record<string, unknown> | null {
  if (line.length > PARSE_BUDGET) return null
  try {
    const v: unknown = JSON.parse(line.toString('utf8'))
    return isObj(v) ? v : null
  } catch {
    return null
  }
}

function modelOf(line: Buffer): string | undefined {
  const o = parseSmall(line)
  const m = (o?.message as { model?: unknown } | undefined)?.model
  return typeof m === 'string' && m !== '<synthetic>' ? m : undefined
}

/** Head buffers lent to readMeta, one per session being read at once (discovery reads a few ahead). */
const spares: Buffer[] = []

export async function readMeta(ctx: LineContext, path: string): Promise<SessionMeta> {
  const scratch = spares.pop() ?? Buffer.allocUnsafeSlow(HEAD_BYTES)
  try {
    return await metaOf(ctx, path, scratch)
  } finally {
    // Nothing read from it outlives metaOf: what it keeps are strings.
    if (spares.length < 16) spares.push(scratch)
  }
}

async function metaOf(ctx: LineContext, path: string, scratch: Buffer): Promise<SessionMeta> {
  const ends = await readEnds(path, { maxBytes: HEAD_BYTES, maxLines: HEAD_LINES }, TAIL_BYTES, scratch)
  const meta: SessionMeta = { bytes: ends.size, mtime: ends.mtime }
  const withinCap = (line: Buffer): boolean => line.length <= ctx.maxLineBytes
  let firstPrompt: string | undefined
  const head = ends.head
  for (const line of head.lines.filter(withinCap)) {
    const f = scanTop(line, HEAD_KEYS)
    if (!f) continue
    const ts = str(f.timestamp)
    if (ts && !meta.createdAt) meta.createdAt = ts
    const type = str(f.type)
    if (type === 'user' || type === 'assistant' || type === 'attachment' || type === 'system') {
      meta.cwd ??= str(f.cwd)
      meta.version ??= str(f.version)
      meta.gitBranch ??= str(f.gitBranch)
    }
    if (type === 'assistant' && !meta.model) meta.model = modelOf(line)
    if (type === 'user' && firstPrompt === undefined && f.isMeta !== true && f.isCompactSummary !== true) {
      const o = parseSmall(line)
      const t = o ? promptTitle((o.message as { content?: unknown } | undefined)?.content) : undefined
      if (t) firstPrompt = t
    }
    if (meta.cwd && meta.model && firstPrompt !== undefined) break
  }
  let custom: string | undefined
  let ai: string | undefined
  let summary: string | undefined
  // The tail's model is needed only when the head had none: found from the last assistant line back.
  const assistants: Buffer[] = []
  const tail = (ends.tail ?? (await readTail(path, ends.size, TAIL_BYTES))).filter(withinCap)
  // updated_at: the last line that has a timestamp, found from the end.
  for (let i = tail.length - 1; i >= 0 && !meta.updatedAt; i--) meta.updatedAt = str(scanTop(tail[i]!, TAIL_KEYS)?.timestamp)
  for (const line of tail) {
    // A byte prefilter: only lines that can be a title or (when the head had no model) an assistant turn are scanned.
    // Title entries are small and start with their type, so their first bytes are enough to look at.
    const start = line.subarray(0, 512)
    if (!(start.includes(TITLE_MARK) || start.includes(SUMMARY_MARK) || (!meta.model && line.includes(ASSISTANT_MARK)))) continue
    const f: Record<string, Scalar> | null = scanTop(line, TAIL_KEYS)
    if (!f) continue
    switch (str(f.type)) {
      case 'custom-title':
        custom = str(f.customTitle) ?? custom
        break
      case 'ai-title':
        ai = str(f.aiTitle) ?? ai
        break
      case 'summary':
        summary = str(f.summary) ?? summary
        break
      case 'assistant':
        if (!meta.model) assistants.push(line)
        break
    }
  }
  for (let i = assistants.length - 1; i >= 0 && !meta.model; i--) meta.model = modelOf(assistants[i]!)
  if (custom) [meta.title, meta.titleSource] = [custom, 'custom']
  else if (ai) [meta.title, meta.titleSource] = [ai, 'ai']
  else if (summary) [meta.title, meta.titleSource] = [summary, 'summary']
  else if (firstPrompt) [meta.title, meta.titleSource] = [firstPrompt, 'first_prompt']
  meta.updatedAt ??= meta.createdAt
  return meta
}
