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
 */
import { fileLines } from './file-lines.js'
import { scanTop, str } from './scan.js'

export const CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment'])

const KEYS = new Set([
  'type', 'subtype', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'leafUuid',
  'timestamp', 'cwd', 'version', 'gitBranch', 'customTitle', 'aiTitle', 'summary',
])

const DEFINED = 1
const SIDECHAIN = 2
const BOUNDARY = 4
const ACTIVE = 8

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
}

export class ChainIndex {
  private readonly nodes = new Map<string, number>()
  private parent = new Int32Array(1024)
  private flags = new Uint8Array(1024)
  private readonly logical = new Map<number, number>()
  /** Lines whose uuid repeats an earlier line's (they get line-based ids). */
  readonly dupLines = new Set<number>()
  private count = 0
  private lastNode = -1
  private lastPromptLeaf: string | undefined
  private readonly summaries = new Map<string, string>()
  readonly info: ChainSummary = { bytes: 0, lines: 0 }

  private node(uuid: string): number {
    let n = this.nodes.get(uuid)
    if (n !== undefined) return n
    n = this.count++
    if (n >= this.parent.length) {
      const p = new Int32Array(this.parent.length * 2)
      p.set(this.parent)
      this.parent = p
      const f = new Uint8Array(this.flags.length * 2)
      f.set(this.flags)
      this.flags = f
    }
    this.parent[n] = -1
    this.nodes.set(uuid, n)
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
    const parent = str(f.parentUuid)
    if (parent && parent !== uuid) this.parent[n] = this.node(parent)
    if (type === 'system' && str(f.subtype) === 'compact_boundary') {
      fl |= BOUNDARY
      const lp = str(f.logicalParentUuid)
      if (lp && lp !== uuid) this.logical.set(n, this.node(lp))
    }
    this.flags[n] = fl
    if (allowSidechain || !(fl & SIDECHAIN)) this.lastNode = n
  }

  /** Marks the active branch; call once after the last line. */
  finish(): void {
    let leaf = -1
    if (this.lastPromptLeaf !== undefined) {
      const n = this.nodes.get(this.lastPromptLeaf)
      if (n !== undefined && this.flags[n]! & DEFINED) leaf = n
    }
    if (leaf < 0) leaf = this.lastNode
    let leafUuid: string | undefined
    if (leaf >= 0) for (const [u, n] of this.nodes) if (n === leaf) leafUuid = u
    if (leafUuid) this.info.summary = this.summaries.get(leafUuid)
    let n = leaf
    while (n >= 0 && this.flags[n]! & DEFINED && !(this.flags[n]! & ACTIVE)) {
      this.flags[n]! |= ACTIVE
      let next = this.parent[n]!
      if (next < 0 && this.flags[n]! & BOUNDARY) next = this.logical.get(n) ?? -1
      if (next >= 0 && !(this.flags[next]! & DEFINED)) {
        for (const [u, m] of this.nodes) if (m === next) this.info.danglingParent = u
        break
      }
      n = next
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

/** Runs the first pass over a whole file. */
export async function buildIndex(path: string, allowSidechain: boolean, maxLineBytes?: number): Promise<ChainIndex> {
  const idx = new ChainIndex()
  let bytes = 0
  let lines = 0
  for await (const l of fileLines(path, maxLineBytes === undefined ? {} : { maxLineBytes })) {
    lines = l.no + 1
    bytes += (l.overlong ?? l.buf.length) + (l.unterminated ? 0 : 1)
    if (!l.overlong && l.buf.length) idx.add(l.buf, l.no, allowSidechain)
  }
  idx.info.bytes = bytes
  idx.info.lines = lines
  idx.finish()
  return idx
}
