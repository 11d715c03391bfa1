/**
 * First pass over a transcript: a compact index of the `uuid`/`parentUuid`
 * graph (ids and flags only, never message bodies) and the active branch.
 *
 * Leaf choice follows the 2.1.332 loader (claude-code.md §3): the `leafUuid`
 * of the newest `last-prompt` record when it names a known entry, else the
 * last chain entry in file order (sidechain entries excluded in main files).
 * The walk crosses compaction boundaries through `logicalParentUuid`, so the
 * history before a compaction is part of the conversation we emit (marked by a
 * boundary record), and guards against cycles.
 *
 * Newer builds keep part of the history through a compaction
 * (`compactMetadata.preservedMessages {anchorUuid, uuids}` or `preservedSegment
 * {headUuid, anchorUuid, tailUuid}` on the last boundary): on load the client
 * relinks the kept entries after the anchor (the summary) and drops the other
 * entries before the boundary. The index does the same relinking for the
 * active branch, while the walk back over the boundary follows the original
 * links, so the dropped turns still come out, before the boundary.
 */
import { openChunks } from '../../io/bytes.js'
import { isObj } from '../../model.js'
import { cappedSplitter, LineReporter, type LineContext } from '../../io/line-file.js'
import { scanTop, str } from '../../io/json-bytes.js'
import { ByteInterner } from '../../io/byte-interner.js'
import { UuidTable } from './uuid-table.js'

export const CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment'])

/** What a compaction kept (claude-code.md §3, `compact_boundary`). */
interface Preserved {
  anchor?: string
  uuids?: string[]
  head?: string
  tail?: string
}

function preservedOf(line: Buffer): Preserved | undefined {
  let obj: unknown
  try {
    obj = JSON.parse(line.toString('utf8'))
  } catch {
    return undefined
  }
  const cm = (obj as { compactMetadata?: unknown } | null)?.compactMetadata
  if (typeof cm !== 'object' || cm === null) return undefined
  const { preservedMessages: pm, preservedSegment: ps } = cm as Record<string, unknown>
  const o = (v: unknown): Record<string, unknown> | undefined => (isObj(v) ? v : undefined)
  const m = o(pm)
  const g = o(ps)
  if (!m && !g) return undefined
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined)
  // The client prefers the list to the segment walk (and so do we).
  if (m && Array.isArray(m.uuids)) return { anchor: s(m.anchorUuid), uuids: m.uuids.filter((u): u is string => typeof u === 'string') }
  return { anchor: s(g?.anchorUuid), head: s(g?.headUuid), tail: s(g?.tailUuid) }
}

const KEYS = new Set([
  'type', 'subtype', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'leafUuid',
  'timestamp', 'cwd', 'version', 'gitBranch', 'customTitle', 'aiTitle', 'summary', 'sourceToolAssistantUUID',
])

const MESSAGE_KEY = Buffer.from('"message":{')
const ID_KEY = Buffer.from('"id":"')
const CONTENT_KEY = Buffer.from('"content":')
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Where the API message id of an assistant line is (`"id":"msg_…"` in the
 * first 400 bytes of its `message` object, before `content`): the id's byte
 * range in `line`, or undefined. The index interns those bytes off the heap
 * (ByteInterner) rather than keeping a string per assistant line alive for
 * the whole read.
 */
function apiIdRange(line: Buffer): [number, number] | undefined {
  const at = line.indexOf(MESSAGE_KEY)
  if (at < 0) return undefined
  const from = at + MESSAGE_KEY.length
  const head = line.subarray(from, Math.min(line.length, from + 400))
  const content = head.indexOf(CONTENT_KEY)
  const window = content < 0 ? head : head.subarray(0, content)
  // Same as /"id":"([^"\\]{1,200})"/ on the decoded window: the first occurrence whose value qualifies.
  for (let k = window.indexOf(ID_KEY); k >= 0; k = window.indexOf(ID_KEY, k + 1)) {
    const start = k + ID_KEY.length
    let i = start
    while (i < window.length && window[i] !== QUOTE && window[i] !== BACKSLASH) i++
    if (i >= window.length || window[i] !== QUOTE || i === start) continue
    // More than 200 bytes may still be at most 200 characters (non-ASCII).
    if (i - start <= 200 || window.toString('utf8', start, i).length <= 200) return [from + start, from + i]
  }
  return undefined
}

const DEFINED = 1
const SIDECHAIN = 2
const BOUNDARY = 4
const ACTIVE = 8
const ASSISTANT = 16
/** A user line that answers a tool call (`sourceToolAssistantUUID`). */
const RESULT = 32

export interface ChainSummary {
  /** Bytes covered by the pass; the second pass reads exactly these. */
  bytes: number
  lines: number
  firstTs?: string
  lastTs?: string
  cwd?: string
  version?: string
  gitBranch?: string
  customTitle?: string
  aiTitle?: string
  /** Summary text of the active leaf, when a `summary` record names it. */
  summary?: string
  danglingParent?: string
  /** 0-based numbers of the lines over the cap (skipped; the second pass reports them). */
  overlong: number[]
}

/** What the second pass needs of the index: which lines are on the active branch, and the client's relinking. */
export class ActiveChain {
  constructor(
    readonly info: ChainSummary,
    /** Lines whose uuid repeats an earlier line's (they get line-based ids). */
    readonly dupLines: ReadonlySet<number>,
    /** Entries a compaction kept: uuid → the parent the client gives them on load. */
    readonly kept: ReadonlyMap<string, string>,
    /** The entry the kept ones follow (the summary, or the boundary itself). */
    readonly keptAnchor: string | undefined,
    /** Entries after the boundary whose parent the client relinks to the last kept entry. */
    readonly relinked: ReadonlyMap<string, string>,
    /** One bit a line: the line defines an entry of the active branch. */
    private readonly active: Uint8Array,
  ) {}

  /** Whether line `no` (0-based) defines an entry of the active branch (its first definition: see dupLines). */
  isActiveLine(no: number): boolean {
    return (((this.active[no >> 3] ?? 0) >> (no & 7)) & 1) === 1
  }
}

export class ChainIndex {
  private readonly nodes = new UuidTable()
  private parent = new Int32Array(1024)
  private flags = new Uint8Array(1024)
  private readonly logical = new Map<number, number>()
  /** Assistant node → its API message id's number in `apiIds` (-1: none): the lines of one response share it (one line per content block). */
  private apiOf = new Int32Array(1024).fill(-1)
  /** Node → the line that defined it. */
  private lineOf = new Int32Array(1024)
  private readonly apiIds = new ByteInterner()
  /** Lines whose uuid repeats an earlier line's (they get line-based ids). */
  readonly dupLines = new Set<number>()
  private count = 0
  private lastNode = -1
  private lastPromptLeaf: string | undefined
  private readonly summaries = new Map<string, string>()
  /** Definition order of each node (its position among the chain lines). */
  private order = new Int32Array(1024)
  private defined = 0
  /** The last compaction boundary in file order, and what it kept (if anything). */
  private lastBoundary = -1
  private preserved: Preserved | undefined
  /** Entries a compaction kept: uuid → the parent the client gives them on load. Empty without one. */
  readonly kept = new Map<string, string>()
  /** The entry the kept ones follow (the summary, or the boundary itself). */
  keptAnchor: string | undefined
  /** Entries after the boundary whose parent the client relinks to the last kept entry. */
  readonly relinked = new Map<string, string>()
  readonly info: ChainSummary = { bytes: 0, lines: 0, overlong: [] }

  private node(uuid: string): number {
    const n = this.nodes.intern(uuid)
    if (n < this.count) return n
    this.count = n + 1
    if (n >= this.parent.length) {
      const p = new Int32Array(this.parent.length * 2)
      p.set(this.parent)
      this.parent = p
      const f = new Uint8Array(this.flags.length * 2)
      f.set(this.flags)
      this.flags = f
      const o = new Int32Array(this.order.length * 2)
      o.set(this.order)
      this.order = o
      const a = new Int32Array(this.apiOf.length * 2).fill(-1)
      a.set(this.apiOf)
      this.apiOf = a
      const l = new Int32Array(this.lineOf.length * 2)
      l.set(this.lineOf)
      this.lineOf = l
    }
    this.parent[n] = -1
    return n
  }

  /** Feeds one line (already split). `allowSidechain`: a sub-agent file, where every entry is a sidechain. */
  add(line: Buffer, no: number, allowSidechain: boolean): void {
    const f = scanTop(line, KEYS)
    if (!f) return
    const type = str(f.type)
    const ts = str(f.timestamp)
    if (ts) {
      this.info.firstTs ??= ts
      this.info.lastTs = ts
    }
    switch (type) {
      case 'last-prompt': {
        const leaf = str(f.leafUuid)
        if (leaf) this.lastPromptLeaf = leaf
        return
      }
      case 'custom-title':
        this.info.customTitle = str(f.customTitle) ?? this.info.customTitle
        return
      case 'ai-title':
        this.info.aiTitle = str(f.aiTitle) ?? this.info.aiTitle
        return
      case 'summary': {
        const leaf = str(f.leafUuid)
        const s = str(f.summary)
        if (leaf && s) this.summaries.set(leaf, s)
        return
      }
    }
    if (type === undefined || !CHAIN_TYPES.has(type)) return
    const uuid = str(f.uuid)
    if (!uuid) return
    this.info.cwd ??= str(f.cwd)
    this.info.version ??= str(f.version)
    this.info.gitBranch ??= str(f.gitBranch)
    const n = this.node(uuid)
    if (this.flags[n]! & DEFINED) {
      this.dupLines.add(no)
      return
    }
    let fl = DEFINED
    if (f.isSidechain === true) fl |= SIDECHAIN
    if (type === 'assistant') {
      fl |= ASSISTANT
      const api = apiIdRange(line)
      if (api) this.apiOf[n] = this.apiIds.intern(line, api[0], api[1])
    } else if (type === 'user' && str(f.sourceToolAssistantUUID)) fl |= RESULT
    const parent = str(f.parentUuid)
    if (parent && parent !== uuid) this.parent[n] = this.node(parent)
    if (type === 'system' && str(f.subtype) === 'compact_boundary') {
      fl |= BOUNDARY
      const lp = str(f.logicalParentUuid)
      if (lp && lp !== uuid) this.logical.set(n, this.node(lp))
      if (allowSidechain || !(fl & SIDECHAIN)) {
        this.lastBoundary = n
        this.preserved = preservedOf(line)
      }
    }
    this.flags[n] = fl
    this.lineOf[n] = no
    this.order[n] = this.defined++
    if (allowSidechain || !(fl & SIDECHAIN)) this.lastNode = n
  }

  /**
   * Marks the active branch; call once after the last line. What it returns
   * is all the second pass needs: the builder, with its id table, can go
   * before the records are read.
   */
  finish(): ActiveChain {
    let leaf = -1
    if (this.lastPromptLeaf !== undefined) {
      const n = this.nodes.get(this.lastPromptLeaf)
      if (n !== undefined && this.flags[n]! & DEFINED) leaf = n
    }
    if (leaf < 0) leaf = this.lastNode
    let leafUuid: string | undefined
    if (leaf >= 0) leafUuid = this.nodes.nameOf(leaf)
    if (leafUuid) this.info.summary = this.summaries.get(leafUuid)
    const original = this.relink()
    let n = leaf
    let before = false
    while (n >= 0 && this.flags[n]! & DEFINED && !(this.flags[n]! & ACTIVE)) {
      this.flags[n]! |= ACTIVE
      let next = before ? (original.get(n) ?? this.parent[n]!) : this.parent[n]!
      if (next < 0 && this.flags[n]! & BOUNDARY) {
        next = this.logical.get(n) ?? -1
        if (n === this.lastBoundary && original.size) before = true
      }
      // Before the boundary the kept entries are already on the branch (after it): step over them.
      if (before) for (let guard = 0; next >= 0 && original.has(next) && guard <= original.size; guard++) next = original.get(next)!
      if (next >= 0 && !(this.flags[next]! & DEFINED)) {
        this.info.danglingParent = this.nodes.nameOf(next)
        break
      }
      n = next
    }
    this.activateParallel()
    const active = new Uint8Array((this.info.lines >> 3) + 1)
    for (let m = 0; m < this.count; m++) {
      if ((this.flags[m]! & (DEFINED | ACTIVE)) !== (DEFINED | ACTIVE)) continue
      const no = this.lineOf[m]!
      if (no >> 3 < active.length) active[no >> 3]! |= 1 << (no & 7)
    }
    return new ActiveChain(this.info, this.dupLines, this.kept, this.keptAnchor, this.relinked, active)
  }

  /**
   * Plays the client's relinking of what the last compaction kept (the
   * 2.1.332 loader): the kept entries, in order, follow the anchor; an entry
   * that followed the anchor follows the last kept one instead, and so does
   * an entry after the boundary whose parent the client drops. Returns the
   * original parents of the kept entries (empty: nothing kept, or a list the
   * client would not use either).
   */
  private relink(): Map<number, number> {
    const original = new Map<number, number>()
    const p = this.preserved
    const b = this.lastBoundary
    if (!p || b < 0) return original
    const known = (u: string | undefined) => u !== undefined && this.nodes.has(u) && (this.flags[this.nodes.get(u)!]! & DEFINED) !== 0
    let uuids = p.uuids
    if (!uuids) {
      // Segment: from the tail back through the parents to the head.
      const walk: string[] = []
      const seen = new Set<number>()
      let n = p.tail !== undefined && known(p.tail) ? this.nodes.get(p.tail)! : -1
      let u = p.tail
      while (n >= 0 && !seen.has(n)) {
        seen.add(n)
        walk.push(u!)
        if (u === p.head) break
        n = this.parent[n]!
        u = n >= 0 ? this.nodes.nameOf(n) : undefined
        if (!known(u)) n = -1
      }
      if (walk.at(-1) !== p.head) return original
      uuids = walk.reverse()
    }
    // Like the client: a kept entry that is not there means no relinking at all.
    if (!uuids.length || !uuids.every(known) || !known(p.anchor)) return original
    const ids = uuids.map((u) => this.nodes.get(u)!)
    const anchor = this.nodes.get(p.anchor!)!
    const tail = ids.at(-1)!
    const keptSet = new Set(ids)
    for (const [i, n] of ids.entries()) {
      if (!original.has(n)) original.set(n, this.parent[n]!)
      this.parent[n] = i === 0 ? anchor : ids[i - 1]!
      this.kept.set(uuids[i]!, i === 0 ? p.anchor! : uuids[i - 1]!)
    }
    this.keptAnchor = p.anchor
    const bOrder = this.order[b]!
    const tailUuid = uuids.at(-1)!
    for (const [u, n] of this.nodes.entries()) {
      if (!(this.flags[n]! & DEFINED) || keptSet.has(n)) continue
      const par = this.parent[n]!
      const dropped = par >= 0 && this.order[n]! > bOrder && this.flags[par]! & DEFINED && this.order[par]! < bOrder && !keptSet.has(par) && !(this.flags[n]! & BOUNDARY)
      if (par === anchor || dropped) {
        this.parent[n] = tail
        this.relinked.set(u, tailUuid)
      }
    }
    return original
  }

  /**
   * Parallel tool calls (claude-code.md): one response with several
   * tool_use blocks is stored as one assistant line per block (same API
   * message id, chained), and each tool_result line points at the line of
   * its own call, in completion order; the next entry follows the last
   * result. Walking back from the leaf therefore misses the calls and
   * results of the other branches. Like the client's loader, the lines of
   * an active response and the results answering them are active too.
   */
  private activateParallel(): void {
    if (!this.apiIds.size) return
    const activeApi = new Uint8Array(this.apiIds.size)
    let any = false
    for (let n = 0; n < this.count; n++) {
      const id = this.apiOf[n]!
      if (id >= 0 && this.flags[n]! & ACTIVE) {
        activeApi[id] = 1
        any = true
      }
    }
    if (!any) return
    // Siblings chain off each other: repeat until none joins (bounded by the number of lines).
    for (let changed = true; changed; ) {
      changed = false
      for (let n = 0; n < this.count; n++) {
        const id = this.apiOf[n]!
        if (id < 0) continue
        const f = this.flags[n]!
        const p = this.parent[n]!
        if (!(f & ACTIVE) && f & DEFINED && activeApi[id] && p >= 0 && this.flags[p]! & ACTIVE) {
          this.flags[n] = f | ACTIVE
          changed = true
        }
      }
    }
    for (let n = 0; n < this.count; n++) {
      const f = this.flags[n]!
      if (f & ACTIVE || !(f & RESULT) || !(f & DEFINED)) continue
      const p = this.parent[n]!
      if (p >= 0 && this.flags[p]! & ACTIVE && this.flags[p]! & ASSISTANT && this.apiOf[p]! >= 0 && activeApi[this.apiOf[p]!]) this.flags[n] = f | ACTIVE
    }
  }

  isActive(uuid: string): boolean {
    const n = this.nodes.get(uuid)
    return n !== undefined && (this.flags[n]! & ACTIVE) !== 0
  }

  get size(): number {
    return this.count
  }
}

/**
 * Notes over-long lines without reporting them: the second pass reads the
 * same bytes through readLines, which reports each one once, in file order
 * with the other problems of the file.
 */
class OverlongNoter extends LineReporter {
  constructor(ctx: LineContext, file: string, private readonly into: number[]) {
    super(ctx, 'claude-code', file)
  }

  override overlong(no: number): void {
    this.into.push(no)
  }
}

/**
 * Runs the first pass over a whole file, synchronously per chunk (only the
 * top-level scalars of each line are scanned), with the run's line cap.
 */
export async function buildIndex(ctx: LineContext, path: string, allowSidechain: boolean): Promise<ActiveChain> {
  const idx = new ChainIndex()
  const splitter = cappedSplitter(
    ctx,
    new OverlongNoter(ctx, path, idx.info.overlong),
    (buf, no) => {
      if (buf.length) idx.add(buf, no, allowSidechain)
    },
    true,
  )
  // add() keeps nothing of a line's bytes, so one reused read buffer does.
  const { chunks } = await openChunks(path)
  for await (const chunk of chunks) splitter.push(chunk)
  splitter.end()
  idx.info.bytes = splitter.bytes
  idx.info.lines = splitter.lineNo
  return idx.finish()
}
