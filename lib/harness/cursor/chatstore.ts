/**
 * The CLI chat store: `chats/<md5(cwd)>/<uuid>/store.db` (blobs, meta) with
 * `meta.json` and `prompt_history.json` beside it. Discovery reads
 * `meta.json` and `meta["0"]`, never the blobs. Reading walks the blobs in
 * rowid order, once for their kinds (JSON message, protobuf root/graph,
 * opaque), then fetches the JSON messages by id in conversation order: the
 * union of every root's list (older roots keep turns the newest one
 * summarised away), else rowid order. Record ids are blob ids.
 */
import { readFileSync } from 'node:fs'
import type { StoreContext } from '../../context.js'
import { dbError, openReadOnly, withBusyRetry, hasTable } from '../../io/sqlite-readonly.js'
import { isObj, type JsonObject } from '../../model.js'
import { mapContent } from './blocks.js'
import { rootBlobIds } from './protobuf.js'
import { isoOf } from './text.js'
import type { Item } from './transcript.js'
import { nestsDeeper } from '../../io/line-file.js'

export const CHAT_FORMAT = 'cursor/store.db'

export interface AgentMeta {
  agentId?: string
  name?: string
  createdAt?: number
  workspacePath?: string
  lastUsedModel?: string
  latestRootBlobId?: string
  /** `hex` or `json`: how meta["0"] was stored. */
  encoding?: 'hex' | 'json'
  [k: string]: unknown
}

/** meta["0"]: lowercase hex of the JSON text in most builds, plain JSON in some. */
export function decodeAgentMeta(value: unknown): AgentMeta | null {
  let s = Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : null
  if (s === null) return null
  let encoding: 'hex' | 'json' = 'json'
  if (/^([0-9a-fA-F]{2})+$/.test(s)) {
    s = Buffer.from(s, 'hex').toString('utf8')
    encoding = 'hex'
  }
  try {
    const v = JSON.parse(s)
    return isObj(v) ? { ...v, encoding } : null
  } catch {
    return null
  }
}

export function readMetaJson(dir: string): JsonObject | null {
  try {
    const v = JSON.parse(readFileSync(`${dir}/meta.json`, 'utf8'))
    return isObj(v) ? v : null
  } catch {
    return null
  }
}

export function readAgentMeta(dbPath: string): AgentMeta | null {
  const h = openReadOnly(dbPath, { source: 'cursor' })
  try {
    if (!hasTable(h.db, 'meta')) return null
    const row = withBusyRetry(dbPath, 'cursor', () => h.db.prepare(`SELECT value FROM meta WHERE key = '0'`).get()) as { value?: unknown } | undefined
    return row ? decodeAgentMeta(row.value) : null
  } finally {
    h.close()
  }
}

function asJsonMessage(data: Buffer): JsonObject | null {
  let i = 0
  while (i < data.length && (data[i] === 0x20 || data[i] === 0x0a || data[i] === 0x0d || data[i] === 0x09)) i++
  if (data[i] !== 0x7b || nestsDeeper(data)) return null
  try {
    const v = JSON.parse(data.toString('utf8'))
    return isObj(v) && typeof v.role === 'string' ? v : null
  } catch {
    return null
  }
}

export interface ChatRead {
  items: Item[]
  model?: string
}

/** Maps one JSON message blob. */
export function blobItem(id: string, raw: string, v: JsonObject, native: boolean): Item {
  const nat = native ? { native: { format: CHAT_FORMAT, pk: id, table: 'blobs', raw } } : {}
  const role = v.role
  const ts = isoOf(v.createdAt) ?? null
  const model = typeof v.providerOptions?.cursor?.modelName === 'string' && v.providerOptions.cursor.modelName !== 'default' ? v.providerOptions.cursor.modelName : undefined
  if (role === 'system') return { loc: id, kind: 'native', native_type: 'cursor/system', ...nat }
  if (role === 'user' || role === 'assistant' || role === 'tool') {
    const m = mapContent(role === 'tool' ? 'tool' : role, v.content, (n) => `cursor_${id.slice(0, 16)}_${n}`)
    const item: Item = { loc: id, kind: 'message', role: role === 'tool' ? 'user' : role, ts: m.ts ?? ts, blocks: m.blocks, ...(m.context ? { context: m.context } : {}), ...(m.cwd ? { cwd: m.cwd } : {}), ...(model ? { model } : {}), ...nat }
    // A Task result carrying the sub-agent's whole conversation.
    for (const p of Array.isArray(v.content) ? v.content : []) {
      const steps = p?.providerOptions?.cursor?.highLevelToolCallResult?.output?.success?.conversationSteps ?? v.providerOptions?.cursor?.highLevelToolCallResult?.output?.success?.conversationSteps
      if (Array.isArray(steps) && typeof p?.toolCallId === 'string') item.child = { id: `${p.toolCallId}`, tool_use_id: p.toolCallId, items: stepItems(steps, p.toolCallId) }
    }
    return item
  }
  return { loc: id, kind: 'native', native_type: `cursor/${String(role)}`, ...nat }
}

/** `conversationSteps[]`: sniffed as messages (`{role, content}`), or `{type, message}` wrappers, or plain text steps. */
function stepItems(steps: unknown[], base: string): Item[] {
  const out: Item[] = []
  steps.forEach((s, i) => {
    if (!isObj(s)) return
    const msg = isObj(s.message) ? s.message : s
    const role = msg.role ?? (s.type === 'user' || s.type === 'assistant' ? s.type : undefined)
    const content = msg.content ?? (typeof s.text === 'string' ? s.text : undefined)
    if ((role === 'user' || role === 'assistant' || role === 'tool') && content !== undefined) {
      const m = mapContent(role, content, (n) => `cursor_${base}_${i}_${n}`)
      out.push({ loc: `step${i}`, kind: 'message', role: role === 'tool' ? 'user' : role, ts: isoOf(msg.createdAt) ?? null, blocks: m.blocks })
    }
  })
  return out
}

/** The session's items in conversation order. */
export function readChatStore(ctx: StoreContext, dbPath: string, native: boolean): ChatRead {
  const h = openReadOnly(dbPath, { source: 'cursor' })
  try {
    const kinds: Array<{ id: string; json: boolean }> = []
    const roots: string[][] = []
    let opaque = 0
    try {
      for (const row of h.db.prepare('SELECT id, data FROM blobs ORDER BY rowid').iterate() as Iterable<{ id: string; data: unknown }>) {
        const data = Buffer.isBuffer(row.data) ? row.data : Buffer.from(String(row.data ?? ''), 'utf8')
        if (asJsonMessage(data)) kinds.push({ id: String(row.id), json: true })
        else {
          const ids = rootBlobIds(data)
          if (ids) roots.push(ids)
          else opaque++
        }
      }
    } catch (err) {
      throw dbError(err, dbPath, 'cursor')
    }
    const jsonIds = new Set(kinds.map((k) => k.id))
    let order: string[] = kinds.map((k) => k.id)
    const listed = roots.map((r) => r.filter((id) => jsonIds.has(id))).filter((r) => r.length)
    if (listed.length) {
      const merged: string[] = []
      for (const r of listed) {
        let at = -1
        for (const id of r) {
          const k = merged.indexOf(id)
          if (k >= 0) at = k
          else merged.splice(++at, 0, id)
        }
      }
      const inRoots = new Set(merged)
      // Messages no root names (written after the last root) follow in rowid order.
      order = [...merged, ...order.filter((id) => !inRoots.has(id))]
    }
    void opaque
    const get = h.db.prepare('SELECT data FROM blobs WHERE id = ?')
    const items: Item[] = []
    let model: string | undefined
    for (const id of order) {
      const row = get.get(id) as { data: unknown } | undefined
      if (!row) continue
      const buf = Buffer.isBuffer(row.data) ? row.data : Buffer.from(String(row.data), 'utf8')
      const v = asJsonMessage(buf)
      if (!v) {
        ctx.diagnostics.warn('bad-row', 'blob is not a JSON message; skipped', { file: dbPath, row: `blobs ${id}` }, 'cursor')
        continue
      }
      const item = blobItem(id, buf.toString('utf8'), v, native)
      model = item.model ?? model
      items.push(item)
    }
    return { items, ...(model ? { model } : {}) }
  } finally {
    h.close()
  }
}
