/**
 * Reading one Cursor session into ferry records, from the richest store
 * that holds it (IDE, then chat store, then transcript), followed by its
 * sub-agent sessions (transcript `subagents/`, Task results with
 * `conversationSteps`, IDE `subagentComposerIds`) as linked child sessions.
 */
import { readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { asFerryError } from '../../errors.js'
import { recordId, sessionKey, sessionRecord, type FerryRecord, type MessageRec, type SessionLink } from '../../model.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { readChatStore } from './chatstore.js'
import { ENTRY, infoOf, scan, type CursorInfo } from './discover.js'
import { nestedDir } from './paths.js'
import { NO_OUTPUT_X, transcriptItems, type Item } from './transcript.js'
import { contextBlocks } from './blocks.js'
import { readComposer } from './vscdb.js'
import { readableOf } from '../../io/drain.js'

interface Emit {
  sid: string
  seq: number
}

function* itemRecords(e: Emit, items: Iterable<Item>, native: boolean): Generator<FerryRecord> {
  for (const it of items) yield* itemRecord(e, it, native)
}

function* itemRecord(e: Emit, it: Item, native: boolean): Generator<FerryRecord> {
  const id = recordId(e.sid, it.loc)
  const nat = native && it.native ? { native: it.native } : {}
  if (it.kind === 'native') {
    yield { kind: 'native', sid: e.sid, id, seq: e.seq++, native_type: it.native_type ?? 'cursor/unknown', ...nat }
    return
  }
  const m: MessageRec = { kind: 'message', sid: e.sid, id, seq: e.seq++, role: it.role!, ts: it.ts ?? null, blocks: it.blocks ?? [], ...nat }
  const typed = it.context ? m.blocks.filter((b) => !contextBlocks.has(b)) : []
  if (typed.length && typed.length < m.blocks.length) {
    // Injected context and the person's words in one message: the context is its own record, the words stay a prompt.
    yield { kind: 'message', sid: e.sid, id: `${id}#context`, seq: m.seq!, role: m.role, ts: m.ts, blocks: m.blocks.filter((b) => contextBlocks.has(b)), context: true, context_kind: it.context! }
    m.seq = e.seq++
    m.blocks = typed
  } else if (it.context) {
    m.context = true
    m.context_kind = it.context
  }
  if (it.model) m.model = it.model
  if (it.noOutput) m.x = { [NO_OUTPUT_X]: true }
  if (it.usage) m.usage = { ...it.usage, scope: 'message' }
  yield m
}

async function* session(ctx: StoreContext, info: CursorInfo, opts: ReadOptions): AsyncGenerator<FerryRecord> {
  const native = opts.native === true
  const e = info[ENTRY] ?? scan(ctx).get(info.id) ?? { id: info.id, ...(info.path.endsWith('store.db') ? { chat: info.path } : { transcript: info.path }) }
  const sid = sessionKey('cursor', info.id)
  const out: Emit = { sid, seq: 0 }
  const children: Array<{ id: string; link: SessionLink; items: () => AsyncIterable<Item> | Iterable<Item>; model?: string }> = []
  let items: AsyncIterable<Item> | Iterable<Item>
  let model = info.model
  let cwd = info.cwd
  // The IDE's bubbles stream: a bubble's model is known once read, so the end record asks again.
  let lateModel: () => string | undefined = () => model
  if (e.ide) {
    const r = readComposer(ctx, e.ide.db, info.id, native)
    items = r.items
    model = r.model ?? model
    lateModel = () => r.model ?? model
    cwd ??= r.cwd
    for (const c of r.subagents)
      children.push({
        id: c,
        link: { sid, kind: 'subagent', agent_id: c },
        items: () => {
          const sub = readComposer(ctx, e.ide!.db, c, native)
          // A sub-agent id with no data (a damaged parent row names one that is not there): said, not an empty session.
          if (!sub.found) ctx.diagnostics.error('bad-row', `sub-agent ${c}, named by composerData:${info.id}, has no composerData row`, { file: e.ide!.db, row: `cursorDiskKV composerData:${c}` }, 'cursor')
          return sub.items
        },
      })
  } else if (e.chat) {
    const r = readChatStore(ctx, e.chat, native)
    items = r.items
    model = r.model ?? model
    for (const it of r.items) if (it.child) {
      const c = it.child
      children.push({ id: `${info.id}.${c.id}`, link: { sid, kind: 'subagent', ...(c.tool_use_id ? { tool_use_id: c.tool_use_id } : {}) }, items: () => c.items })
    }
    cwd ??= r.items.find((i) => i.cwd)?.cwd
  } else items = transcriptItems(ctx, e.transcript!)
  // Transcript sub-agents belong to the session whichever store it is read from.
  {
    const dir = e.transcript ? nestedDir(e.transcript) : null
    if (dir) {
      let subs: string[] = []
      try {
        subs = readdirSync(join(dir, 'subagents')).filter((f) => f.endsWith('.jsonl')).sort()
      } catch {
        /* no sub-agents */
      }
      for (const f of subs) {
        const id = f.replace(/\.jsonl$/, '')
        if (children.some((c) => c.id === id)) continue
        children.push({ id, link: { sid, kind: 'subagent', agent_id: id }, items: () => transcriptItems(ctx, join(dir, 'subagents', f)) })
      }
    }
  }
  const header = sessionRecord({
    sid,
    native_id: info.id,
    source: { harness: 'cursor', locator: info.locator },
    ...(cwd ? { cwd } : {}),
    ...(info.title ? { title: info.title } : {}),
    ...(info.title_source ? { title_source: info.title_source } : {}),
    ...(model ? { model } : {}),
    ...(info.created_at ? { created_at: info.created_at } : {}),
    ...(info.updated_at ? { updated_at: info.updated_at } : {}),
    x: { 'cursor.stores': info.stores, ...(e.transcript ? { 'cursor.slug': basename(dirname(dirname(nestedDir(e.transcript) ?? e.transcript))) } : {}) },
  })
  yield header
  let messages = 0
  if (Symbol.asyncIterator in items) {
    for await (const it of items as AsyncIterable<Item>) {
      for (const r of itemRecord(out, it, native)) {
        if (r.kind === 'message') messages++
        yield r
      }
    }
  } else
    for (const r of itemRecords(out, items as Iterable<Item>, native)) {
      if (r.kind === 'message') messages++
      yield r
    }
  if (!messages) ctx.diagnostics.warn('empty-session', `cursor:${info.id} has no conversation`, { file: info.path }, 'cursor')
  model = lateModel()
  yield { kind: 'end', sid, id: recordId(sid, 'end'), ...(model ? { model } : {}) }
  for (const c of children) {
    const csid = sessionKey('cursor', c.id)
    yield sessionRecord({ sid: csid, native_id: c.id, source: { harness: 'cursor', locator: info.locator }, parent: c.link, ...(cwd ? { cwd } : {}), ...(model ? { model } : {}) })
    const ce: Emit = { sid: csid, seq: 0 }
    const src = c.items()
    if (Symbol.asyncIterator in src) {
      for await (const it of src as AsyncIterable<Item>) yield* itemRecord(ce, it, native)
    } else yield* itemRecords(ce, src as Iterable<Item>, native)
    yield { kind: 'end', sid: csid, id: recordId(csid, 'end') }
  }
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  const gen = async function* () {
    try {
      const full = (info as Partial<CursorInfo>).stores ? (info as CursorInfo) : ((await infoOf(ctx, scan(ctx).get(info.id) ?? { id: info.id })) ?? ({ ...info, stores: [] } as CursorInfo))
      yield* session(ctx, full, opts)
    } catch (err) {
      // An errno here is the store failing to be read; anything else keeps its own code (a bug stays `internal`).
      throw asFerryError(err, (err as NodeJS.ErrnoException)?.code ? 'unreadable' : 'internal')
    }
  }
  return readableOf(gen())
}
