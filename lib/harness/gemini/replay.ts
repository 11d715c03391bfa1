/**
 * The first pass over a chat recording: what Gemini CLI's loader
 * (`loadConversationRecord`, chatRecordingService.ts) would end up with,
 * kept as ids only so that a multi-gigabyte file costs a few bytes a record.
 * The second pass (source.ts) then emits each record once, in the order the
 * loader keeps them, with the content of its last copy.
 *
 * - A message line upserts by `id`: a later copy replaces the earlier one in
 *   its place (`lastLine`).
 * - `$rewindTo <id>` removes that message and everything after it; those
 *   records stay in ferry's stream as inactive branch records (`rewound`).
 * - `$set` merges metadata (`summary`, `lastUpdated`); with `messages` it is a
 *   checkpoint that replaces the whole list.
 */
import type { StoreContext } from '../../context.js'
import { isObj } from '../../model.js'
import { readLines } from '../../io/line-file.js'
import { Diagnostics } from '../../diagnostics.js'

export interface Replay {
  /** id → 0-based line of its last copy in a message line (-2: only in a checkpoint; the source marks emitted ids -1). */
  lastLine: Map<string, number>
  /** Ids a `$rewindTo` removed that no later line brought back. */
  rewound: Set<string>
  summary?: string
  lastUpdated?: string
}

const ID_PREFIX = Buffer.from('{"id":"')
const REWIND_PREFIX = Buffer.from('{"$rewindTo":')
const SET_PREFIX = Buffer.from('{"$set":')
const MESSAGES_KEY = Buffer.from('"messages":[')

/** The `id` of a line Gemini wrote (`JSON.stringify` of a record whose first key is `id`), without parsing the rest. */
export function fastId(buf: Buffer): string | undefined {
  if (!buf.subarray(0, ID_PREFIX.length).equals(ID_PREFIX)) return undefined
  const end = buf.indexOf(0x22, ID_PREFIX.length)
  if (end < 0) return undefined
  const id = buf.toString('utf8', ID_PREFIX.length, end)
  return id.includes('\\') ? undefined : id
}

function parse(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'))
  } catch {
    return undefined
  }
}

export async function replay(ctx: StoreContext, file: string): Promise<Replay> {
  const lastLine = new Map<string, number>()
  const rewound = new Set<string>()
  // The loader's Map, in its order: what a rewind cuts.
  // One map, in the loader's order, of the ids it holds (what a rewind cuts) → line of the last copy
  // (-2: none yet, a checkpoint's); ids a rewind or checkpoint removed wait in `gone`, usually empty.
  const live = lastLine
  const gone = new Map<string, number>()
  const out: Replay = { lastLine, rewound }
  const upsert = (id: string, no: number | undefined) => {
    let prev = live.get(id)
    if (prev === undefined && gone.has(id)) {
      prev = gone.get(id)
      gone.delete(id)
      rewound.delete(id)
    }
    live.set(id, no ?? prev ?? -2)
  }
  const remove = (id: string, byRewind: boolean) => {
    gone.set(id, live.get(id)!)
    live.delete(id)
    if (byRewind) rewound.add(id)
  }
  // Diagnostics belong to the second pass, which reports every bad line once.
  const quiet = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes }
  for await (const line of readLines(quiet, file, { source: 'gemini', transient: true })) {
    const buf = line.buf
    const id = fastId(buf)
    if (id !== undefined) {
      upsert(id, line.no)
      continue
    }
    const isSet = buf.subarray(0, SET_PREFIX.length).equals(SET_PREFIX)
    if (isSet && buf.length > 4096 && buf.indexOf(MESSAGES_KEY) < 0) continue
    const v = parse(buf)
    if (!isObj(v)) continue
    if (typeof v.$rewindTo === 'string' || buf.subarray(0, REWIND_PREFIX.length).equals(REWIND_PREFIX)) {
      const target = String(v.$rewindTo)
      const cut = live.has(target)
      let found = false
      for (const k of [...live.keys()]) {
        if (k === target) found = true
        if (found || !cut) remove(k, true)
      }
    } else if (isObj(v.$set)) {
      const set = v.$set
      if (typeof set.summary === 'string') out.summary = set.summary
      if (typeof set.lastUpdated === 'string') out.lastUpdated = set.lastUpdated
      if (Array.isArray(set.messages)) {
        for (const k of [...live.keys()]) remove(k, false)
        for (const m of set.messages) if (isObj(m) && typeof m.id === 'string') upsert(m.id, undefined)
      }
    } else if (typeof v.id === 'string' && typeof v.type === 'string') upsert(v.id, line.no)
  }
  for (const [k, v] of gone) live.set(k, v)
  return out
}
