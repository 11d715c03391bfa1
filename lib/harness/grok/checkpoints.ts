/**
 * Grok's compaction checkpoints. When Grok compacts, it replaces
 * `chat_history.jsonl` with the compacted history, writes that history to
 * `compaction_checkpoints/<id>.json` (`CompactionCheckpointFile`: `checkpoint_id`,
 * `prompt_index_at_compaction`, `compacted_history` of ConversationItems,
 * `created_at`, …) and appends a `compaction_checkpoint` marker to
 * `updates.jsonl` (`checkpoint_file`, `auto_continue`, `created_at`). The turns
 * before the last compaction are then only in the display log; the reader
 * rebuilds them from it up to that marker, and each marker becomes a
 * `boundary` whose summary is the checkpoint's `compaction_meta` text.
 * Source: xai-grok-shell `extensions/notification.rs` (CompactionCheckpointInfo,
 * CompactionCheckpointFile) and `session/compaction.rs` (persist_compaction_checkpoint).
 */
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { parseJsonLine, readLines } from '../../io/line-file.js'
import { isObj, recordId, type BoundaryRec, type JsonObject } from '../../model.js'
import { unwrap } from './updates-index.js'

/** Checkpoint files above this are not read (the marker still makes a boundary, without summary). */
const CHECKPOINT_CAP = 64 * 1024 * 1024
/** The only checkpoint paths read: Grok's own `compaction_checkpoints/<uuid>.json`. */
const SAFE_FILE = /^compaction_checkpoints\/[A-Za-z0-9_-]{1,100}\.json$/

/** A `compaction_checkpoint` marker of updates.jsonl: its 0-based line and fields. */
export interface Marker {
  line: number
  update: JsonObject
}

/** The compaction markers of updates.jsonl, in order (one cheap pass; only lines naming one are parsed). */
export async function compactionMarkers(ctx: StoreContext, path: string): Promise<Marker[]> {
  const out: Marker[] = []
  const quiet = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes }
  for await (const { no, buf } of readLines(quiet, path, { source: 'grok' })) {
    if (!buf.includes('compaction_checkpoint')) continue
    const env = parseJsonLine(buf)
    if (!isObj(env)) continue
    const { update } = unwrap(env)
    if (update?.sessionUpdate === 'compaction_checkpoint') out.push({ line: no, update })
  }
  return out
}

/** The summary a checkpoint's compacted history holds: its `compaction_meta` user text(s). */
function summaryOf(file: JsonObject): string {
  const items: unknown[] = Array.isArray(file.compacted_history) ? file.compacted_history : []
  const texts: string[] = []
  for (const it of items) {
    if (!isObj(it) || it.synthetic_reason !== 'compaction_meta') continue
    const content = Array.isArray(it.content) ? it.content : typeof it.content === 'string' ? [{ type: 'text', text: it.content }] : []
    for (const c of content) if (isObj(c) && typeof c.text === 'string') texts.push(c.text)
  }
  return texts.join('\n')
}

/** A marker as a compaction boundary, with the checkpoint file's summary when it can be read. */
export async function markerBoundary(ctx: StoreContext, sid: string, dir: string, m: Marker): Promise<BoundaryRec> {
  const u = m.update
  const rel = typeof u.checkpoint_file === 'string' ? u.checkpoint_file : ''
  const at = typeof u.created_at === 'string' && !Number.isNaN(Date.parse(u.created_at)) ? new Date(u.created_at).toISOString() : null
  const rec: BoundaryRec = { kind: 'boundary', sid, id: recordId(sid, `updates:l${m.line}`), type: 'compaction', ts: at, trigger: isObj(u.auto_continue) ? 'auto' : 'manual', replaces_history: true, native: { format: 'grok/jsonl', file: 'updates', line: m.line } }
  if (typeof u.checkpoint_id === 'string') rec.x = { 'grok.checkpoint_id': u.checkpoint_id }
  if (!SAFE_FILE.test(rel)) {
    if (rel) ctx.diagnostics.warn('unsupported', `compaction checkpoint file ${JSON.stringify(rel).slice(0, 120)} is not under compaction_checkpoints/; not read`, { file: join(dir, 'updates.jsonl'), line: m.line + 1 }, 'grok')
    return rec
  }
  const path = join(dir, rel)
  try {
    const st = await stat(path)
    if (!st.isFile() || st.size > CHECKPOINT_CAP) throw new Error(st.isFile() ? `larger than ${CHECKPOINT_CAP} bytes` : 'not a file')
    const v = JSON.parse(await readFile(path, 'utf8')) as unknown
    if (!isObj(v)) throw new Error('not a JSON object')
    const summary = summaryOf(v)
    if (summary) rec.summary = summary
  } catch (err) {
    ctx.diagnostics.warn('unsupported', `compaction checkpoint not read (${(err as Error).message}); the boundary has no summary`, { file: path }, 'grok')
  }
  return rec
}
