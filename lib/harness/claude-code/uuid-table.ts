/**
 * Entry uuid → node number, for the chain index of a long session. Claude
 * Code's entry ids are canonical lowercase UUIDs: each is kept as 16 bytes in
 * an open-addressed table (about 40 bytes an entry with the slack, against
 * about 150 for a Map of 36-character strings). The index is what a long
 * session's read keeps for the whole file, and V8 lets the heap grow in
 * proportion to what stays live, so this is what peak memory follows. An id
 * of any other shape goes to a plain Map. Nodes are numbered 0, 1, 2, … in
 * the order they are first seen.
 */
export class UuidTable {
  /** Four 32-bit words a slot; a slot is free while its node is -1. Small at first: most sessions are. */
  private words = new Uint32Array(4 * 64)
  private slotNode = new Int32Array(64).fill(-1)
  /** node → its slot (-1: the node's id is in `other`). */
  private nodeSlot = new Int32Array(64)
  private readonly other = new Map<string, number>()
  private used = 0
  private count = 0
  /** Scratch for the id being looked up. */
  private readonly key = new Uint32Array(4)

  get size(): number {
    return this.count
  }

  get(uuid: string): number | undefined {
    if (!parseUuid(uuid, this.key)) return this.other.get(uuid)
    const n = this.slotNode[this.find(this.key)]!
    return n < 0 ? undefined : n
  }

  has(uuid: string): boolean {
    return this.get(uuid) !== undefined
  }

  /** The node of `uuid`, numbered next when it is new. */
  intern(uuid: string): number {
    if (!parseUuid(uuid, this.key)) {
      let n = this.other.get(uuid)
      if (n === undefined) {
        n = this.newNode(-1)
        this.other.set(uuid, n)
      }
      return n
    }
    let slot = this.find(this.key)
    const n = this.slotNode[slot]!
    if (n >= 0) return n
    if ((this.used + 1) * 2 > this.slotNode.length) {
      this.grow()
      slot = this.find(this.key)
    }
    this.words.set(this.key, slot * 4)
    this.used++
    const m = this.newNode(slot)
    this.slotNode[slot] = m
    return m
  }

  /** The id of node `n` (as it was given). */
  nameOf(n: number): string | undefined {
    if (n < 0 || n >= this.count) return undefined
    const slot = this.nodeSlot[n]!
    if (slot >= 0) return formatUuid(this.words, slot * 4)
    for (const [u, m] of this.other) if (m === n) return u
    return undefined
  }

  /** Every [id, node], in node order. */
  *entries(): IterableIterator<[string, number]> {
    const names = new Map<number, string>()
    for (const [u, m] of this.other) names.set(m, u)
    for (let n = 0; n < this.count; n++) {
      const slot = this.nodeSlot[n]!
      yield [slot >= 0 ? formatUuid(this.words, slot * 4) : names.get(n)!, n]
    }
  }

  private newNode(slot: number): number {
    const n = this.count++
    if (n >= this.nodeSlot.length) {
      const s = new Int32Array(this.nodeSlot.length * 2)
      s.set(this.nodeSlot)
      this.nodeSlot = s
    }
    this.nodeSlot[n] = slot
    return n
  }

  /** The slot holding `key`, or the free slot where it would go (linear probing). */
  private find(key: Uint32Array): number {
    const mask = this.slotNode.length - 1
    let h = Math.imul(key[0]! ^ key[2]!, 0x9e3779b1) ^ Math.imul(key[1]! ^ key[3]!, 0x85ebca77)
    h ^= h >>> 15
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      if (this.slotNode[slot]! < 0) return slot
      const o = slot * 4
      const w = this.words
      if (w[o] === key[0] && w[o + 1] === key[1] && w[o + 2] === key[2] && w[o + 3] === key[3]) return slot
    }
  }

  private grow(): void {
    const oldWords = this.words
    const oldNodes = this.slotNode
    this.words = new Uint32Array(oldWords.length * 2)
    this.slotNode = new Int32Array(oldNodes.length * 2).fill(-1)
    const key = new Uint32Array(4)
    for (let s = 0; s < oldNodes.length; s++) {
      const n = oldNodes[s]!
      if (n < 0) continue
      key.set(oldWords.subarray(s * 4, s * 4 + 4))
      const slot = this.find(key)
      this.words.set(key, slot * 4)
      this.slotNode[slot] = n
      this.nodeSlot[n] = slot
    }
  }
}

/** Dashes of the canonical 8-4-4-4-12 form. */
const DASHES = [8, 13, 18, 23]

/** Fills `out` with the 128 bits of a canonical lowercase UUID; false for any other string. */
function parseUuid(s: string, out: Uint32Array): boolean {
  if (s.length !== 36) return false
  let word = 0
  let digits = 0
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i)
    if (DASHES.includes(i)) {
      if (c !== 45) return false
      continue
    }
    let v: number
    if (c >= 48 && c <= 57) v = c - 48
    else if (c >= 97 && c <= 102) v = c - 87
    else return false
    word = (word << 4) | v
    if (++digits % 8 === 0) {
      out[digits / 8 - 1] = word >>> 0
      word = 0
    }
  }
  return true
}

const HEX = '0123456789abcdef'

function formatUuid(words: Uint32Array, o: number): string {
  let s = ''
  for (let w = 0; w < 4; w++) {
    const v = words[o + w]!
    for (let shift = 28; shift >= 0; shift -= 4) {
      if (DASHES.includes(s.length)) s += '-'
      s += HEX[(v >>> shift) & 15]
    }
  }
  return s
}
