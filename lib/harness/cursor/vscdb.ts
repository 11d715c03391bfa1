/**
 * The editor's `state.vscdb` (global, plus per-workspace ones). Discovery
 * reads only header rows: the 3.x `composerHeaders` table, else the global
 * `ItemTable` `composer.composerHeaders`, else each workspace DB's
 * `composer.composerData` → `allComposers[]`. Reading one composer fetches
 * `composerData:<id>` and then its bubbles one by one, by key, in the order
 * `fullConversationHeadersOnly` gives (else the older inline `conversation[]`,
 * else the `bubbleId:<id>:` key range streamed with `.iterate()`), so a
 * multi-GB database is never loaded whole. Record ids are bubble ids.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { StoreContext } from '../../context.js'
import { columns, dbError, hasTable, openReadOnly, withBusyRetry, type ReadOnlyDb } from '../../io/sqlite-readonly.js'
import { isObj, type Block, type JsonObject } from '../../model.js'
import { toolResult, toolUse } from './blocks.js'
import { isoOf, parseJson, parseUserText, sanitizeId } from './text.js'
import type { Item } from './transcript.js'

export const IDE_FORMAT = 'cursor/state.vscdb'

export interface ComposerHead {
  composerId: string
  name?: string
  cwd?: string
  createdAt?: string
  updatedAt?: string
  archived?: boolean
  subagent?: boolean
  model?: string
  db: string
}

function text(v: unknown): string {
  return Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : ''
}

function cwdOf(h: JsonObject): string | undefined {
  const uri = h.workspaceIdentifier?.uri
  if (isObj(uri) && typeof uri.fsPath === 'string') return uri.fsPath
  const repo = Array.isArray(h.trackedGitRepos) ? h.trackedGitRepos[0]?.repoPath : undefined
  return typeof repo === 'string' ? repo : undefined
}

function headOf(v: JsonObject, db: string, row?: JsonObject): ComposerHead | null {
  const id = v.composerId ?? row?.composerId
  if (typeof id !== 'string' || !id) return null
  const cwd = cwdOf(v)
  const name = typeof v.name === 'string' && v.name ? v.name : typeof v.subtitle === 'string' && v.subtitle ? v.subtitle : undefined
  const c = isoOf(v.createdAt ?? row?.createdAt)
  const u = isoOf(v.lastUpdatedAt ?? row?.lastUpdatedAt)
  return {
    composerId: id,
    db,
    ...(name ? { name } : {}),
    ...(cwd ? { cwd } : {}),
    ...(c ? { createdAt: c } : {}),
    ...(u ? { updatedAt: u } : {}),
    ...(v.isArchived === true || row?.isArchived === 1 ? { archived: true } : {}),
    ...(row?.isSubagent === 1 || id.startsWith('task-') ? { subagent: true } : {}),
  }
}

/** Header rows of one global DB (cheap: never the bubbles). */
export function* composerHeads(ctx: StoreContext, dbPath: string): Generator<ComposerHead> {
  let h: ReadOnlyDb
  try {
    h = openReadOnly(dbPath, { source: 'cursor' })
  } catch (err) {
    ctx.diagnostics.error('db-error', (err as Error).message, { file: dbPath }, 'cursor')
    return
  }
  try {
    let seen = 0
    if (hasTable(h.db, 'composerHeaders')) {
      const cols = columns(h.db, 'composerHeaders')
      const want = ['composerId', 'createdAt', 'lastUpdatedAt', 'isArchived', 'isSubagent', 'value'].filter((c) => cols.has(c))
      for (const row of h.db.prepare(`SELECT ${want.join(', ')} FROM composerHeaders`).iterate() as Iterable<JsonObject>) {
        const v = parseJson(text(row.value))
        const head = headOf(isObj(v) ? v : {}, dbPath, row)
        if (head) {
          seen++
          yield head
        }
      }
    }
    if (!seen && hasTable(h.db, 'ItemTable')) {
      const row = withBusyRetry(dbPath, 'cursor', () => h.db.prepare(`SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'`).get()) as { value: unknown } | undefined
      const v = row ? parseJson(text(row.value)) : undefined
      const list = isObj(v) ? (v.allComposers ?? v.composers) : Array.isArray(v) ? v : undefined
      if (Array.isArray(list)) for (const c of list) if (isObj(c)) {
        const head = headOf(c, dbPath)
        if (head) {
          seen++
          yield head
        }
      }
    }
  } catch (err) {
    ctx.diagnostics.error('db-error', dbError(err, dbPath, 'cursor').message, { file: dbPath }, 'cursor')
  } finally {
    h.close()
  }
}

/** 2.x: each workspace DB's `composer.composerData` → `allComposers[]`, the folder from `workspace.json`. */
export function* workspaceHeads(ctx: StoreContext, userDir: string, globalDb: string): Generator<ComposerHead> {
  const ws = join(userDir, 'workspaceStorage')
  let dirs: string[] = []
  try {
    dirs = readdirSync(ws)
  } catch {
    return
  }
  for (const d of dirs) {
    const db = join(ws, d, 'state.vscdb')
    if (!existsSync(db)) continue
    let folder: string | undefined
    try {
      const w = JSON.parse(readFileSync(join(ws, d, 'workspace.json'), 'utf8'))
      if (typeof w.folder === 'string' && w.folder.startsWith('file://')) folder = decodeURIComponent(new URL(w.folder).pathname)
    } catch {
      /* no workspace.json: no folder */
    }
    let h: ReadOnlyDb
    try {
      h = openReadOnly(db, { source: 'cursor' })
    } catch (err) {
      ctx.diagnostics.warn('db-error', (err as Error).message, { file: db }, 'cursor')
      continue
    }
    try {
      if (!hasTable(h.db, 'ItemTable')) continue
      const row = h.db.prepare(`SELECT value FROM ItemTable WHERE key = 'composer.composerData'`).get() as { value: unknown } | undefined
      const v = row ? parseJson(text(row.value)) : undefined
      const list = isObj(v) ? v.allComposers : undefined
      if (Array.isArray(list)) for (const c of list) if (isObj(c)) {
        const head = headOf(c, globalDb)
        if (head) yield { ...head, ...(head.cwd || !folder ? {} : { cwd: folder }) }
      }
    } catch (err) {
      ctx.diagnostics.warn('db-error', dbError(err, db, 'cursor').message, { file: db }, 'cursor')
    } finally {
      h.close()
    }
  }
}

export interface ComposerRead {
  /** The bubbles, read one by one as this is iterated (the DB stays open until it ends). */
  items: Iterable<Item>
  /** The composer's model; a bubble's own model, once iterated past, replaces it. */
  model?: string
  name?: string
  cwd?: string
  subagents: string[]
  /** Whether its composerData row exists (a sub-agent's id may name none). */
  found: boolean
}

function bubbleItems(b: JsonObject, bid: string, native: boolean, raw: string, cid: string): Item[] {
  const ts = isoOf(b.createdAt) ?? null
  const nat = native ? { native: { format: IDE_FORMAT, table: 'cursorDiskKV', pk: `bubbleId:${cid}:${bid}`, raw } } : {}
  const model = typeof b.modelInfo?.modelName === 'string' && b.modelInfo.modelName !== 'default' && b.modelInfo.modelName ? b.modelInfo.modelName : undefined
  const tc = b.tokenCount
  const usage = isObj(tc) && (tc.inputTokens > 0 || tc.outputTokens > 0) ? { input_tokens: Number(tc.inputTokens) || 0, output_tokens: Number(tc.outputTokens) || 0 } : undefined
  if (b.type === 1) {
    const blocks: Block[] = []
    const u = parseUserText(typeof b.text === 'string' ? b.text : '')
    if (u.text) blocks.push({ type: 'text', text: u.text })
    for (const img of Array.isArray(b.images) ? b.images : []) {
      const data = isObj(img) ? (img.data ?? img.base64 ?? img.image) : undefined
      if (typeof data === 'string' && data) blocks.push({ type: 'image', mime: String(img.mimeType ?? img.mime_type ?? 'image/png'), data: data.replace(/^data:[^,]*,/, '') })
    }
    if (!blocks.length) return []
    return [{ loc: bid, kind: 'message', role: 'user', ts: u.ts ?? ts, blocks, ...(u.context ? { context: u.context } : {}), ...nat }]
  }
  if (b.type !== 2) return [{ loc: bid, kind: 'native', native_type: `cursor/bubble-${String(b.type)}`, ...nat }]
  const blocks: Block[] = []
  if (isObj(b.thinking) && typeof b.thinking.text === 'string' && b.thinking.text) blocks.push({ type: 'thinking', text: b.thinking.text, ...(b.thinking.signature ? { signature: String(b.thinking.signature) } : {}) })
  if (typeof b.text === 'string' && b.text) blocks.push({ type: 'text', text: b.text })
  const out: Item[] = []
  const tf = b.toolFormerData
  let result: Item | null = null
  if (isObj(tf)) {
    const params = typeof tf.params === 'string' ? parseJson(tf.params) : tf.params
    const call = toolUse(tf.toolCallId, tf.name ?? (typeof tf.tool === 'number' ? `tool_${tf.tool}` : undefined), isObj(params) ? params : { raw: tf.params ?? tf.rawArgs ?? '' }, `cursor_${sanitizeId(bid)}`)
    blocks.push(call)
    if (tf.result !== undefined || tf.status === 'error' || tf.status === 'completed') {
      const r = typeof tf.result === 'string' ? parseJson(tf.result) : tf.result
      const body = isObj(r) ? (typeof r.output === 'string' ? r.output : typeof r.contents === 'string' ? r.contents : JSON.stringify(r)) : typeof tf.result === 'string' ? tf.result : ''
      const rb = toolResult(call.id, body, tf.status === 'error' || (isObj(r) && typeof r.exitCode === 'number' && r.exitCode !== 0), call.id)
      if (isObj(r) && typeof r.exitCode === 'number') rb.exit_code = r.exitCode
      // `{output, exitCode}` is the content and exit code already; anything more is kept whole.
      if (isObj(r) ? Object.keys(r).some((k) => k !== 'output' && k !== 'exitCode') : r !== undefined && typeof tf.result !== 'string') rb.structured = r
      result = { loc: `${bid}#result`, kind: 'message', role: 'user', ts, blocks: [rb] }
    }
  }
  if (!blocks.length) return [{ loc: bid, kind: 'native', native_type: 'cursor/bubble-empty', ...nat }]
  out.push({ loc: bid, kind: 'message', role: 'assistant', ts, blocks, ...(model ? { model } : {}), ...(usage ? { usage } : {}), ...nat })
  if (result) out.push(result)
  return out
}

/**
 * One composer: its `composerData` row now, its bubbles lazily, one row at a
 * time (a composer of hundreds of MB is never held whole).
 */
export function readComposer(ctx: StoreContext, dbPath: string, cid: string, native: boolean): ComposerRead {
  const h = openReadOnly(dbPath, { source: 'cursor' })
  let cd: JsonObject
  let found = false
  try {
    const row = withBusyRetry(dbPath, 'cursor', () => h.db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`composerData:${cid}`)) as { value: unknown } | undefined
    const data = row ? parseJson(text(row.value)) : undefined
    cd = isObj(data) ? data : {}
    found = row !== undefined
    // Said, not guessed past quietly: without it the bubbles are read by key, and its sub-agents are not known.
    if (row && !isObj(data)) ctx.diagnostics.error('bad-row', 'composerData is not a JSON object: its bubbles are read by key, its sub-agents cannot be found', { file: dbPath, row: `cursorDiskKV composerData:${cid}` }, 'cursor')
  } catch (err) {
    throw dbError(err, dbPath, 'cursor')
  } finally {
    // The bubbles are read on a connection of their own, opened when iterated.
    h.close()
  }
  const model = typeof cd.modelConfig?.modelName === 'string' && cd.modelConfig.modelName !== 'default' ? cd.modelConfig.modelName : undefined
  const cwd = cwdOf(cd)
  const out: ComposerRead = {
    items: [],
    ...(model ? { model } : {}),
    ...(typeof cd.name === 'string' && cd.name ? { name: cd.name } : {}),
    ...(cwd ? { cwd } : {}),
    subagents: Array.isArray(cd.subagentComposerIds) ? cd.subagentComposerIds.filter((x: unknown): x is string => typeof x === 'string') : [],
    found,
  }
  out.items = bubbles(ctx, dbPath, cid, cd, native, (m) => (out.model = m))
  return out
}

function* bubbles(ctx: StoreContext, dbPath: string, cid: string, cd: JsonObject, native: boolean, onModel: (m: string) => void): Generator<Item> {
  const h = openReadOnly(dbPath, { source: 'cursor' })
  try {
    const get = h.db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?')
    const items = function* (bid: string, raw: string): Generator<Item> {
      const b = parseJson(raw)
      if (!isObj(b)) {
        ctx.diagnostics.warn('bad-row', 'bubble is not a JSON object; skipped', { file: dbPath, row: `cursorDiskKV bubbleId:${cid}:${bid}` }, 'cursor')
        return
      }
      // A value no bubble has (100,000-deep arrays where a number goes) costs that bubble, not the database.
      let got: Item[]
      try {
        got = bubbleItems(b, bid, native, raw, cid)
      } catch (err) {
        ctx.diagnostics.error('bad-row', `bubble cannot be read (${(err as Error).message}); skipped`, { file: dbPath, row: `cursorDiskKV bubbleId:${cid}:${bid}` }, 'cursor')
        return
      }
      for (const it of got) {
        if (it.model) onModel(it.model)
        yield it
      }
    }
    const heads = Array.isArray(cd.fullConversationHeadersOnly) ? cd.fullConversationHeadersOnly : null
    let rows: Iterable<[string, string]>
    if (heads)
      rows = (function* () {
        for (const hd of heads) {
          if (!isObj(hd) || typeof hd.bubbleId !== 'string') continue
          const r = withBusyRetry(dbPath, 'cursor', () => get.get(`bubbleId:${cid}:${hd.bubbleId}`)) as { value: unknown } | undefined
          if (r) yield [hd.bubbleId, text(r.value)] as [string, string]
        }
      })()
    else if (Array.isArray(cd.conversation)) rows = cd.conversation.filter(isObj).map((b: JsonObject, i: number) => [String(b.bubbleId ?? i), JSON.stringify(b)] as [string, string])
    else {
      const lo = `bubbleId:${cid}:`
      rows = (function* () {
        for (const r of h.db.prepare('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid').iterate(lo, `bubbleId:${cid};`) as Iterable<{ key: string; value: unknown }>) yield [r.key.slice(lo.length), text(r.value)] as [string, string]
      })()
    }
    try {
      for (const [bid, raw] of rows) yield* items(bid, raw)
    } catch (err) {
      throw dbError(err, dbPath, 'cursor')
    }
  } finally {
    h.close()
  }
}
