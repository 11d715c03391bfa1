/**
 * Short byte strings → dense numbers 0, 1, 2, … in first-seen order, held
 * off the JS heap: the bytes in one growing pool, the lookup in an
 * open-addressed table of typed arrays. An index that keeps one id per line
 * of a long file (the API message ids of a Claude Code session) would
 * otherwise keep a string per line alive for the whole read, and V8 lets
 * the heap grow in proportion to what stays live. Equality is exact (the
 * bytes are compared), the hash only picks the slot.
 */
export class ByteInterner {
  private pool = Buffer.allocUnsafe(4096)
  private poolUsed = 0
  /** id → where its bytes start in `pool`, and how many. */
  private start = new Int32Array(64)
  private length = new Int32Array(64)
  /** slot → id, -1 while free. */
  private slots = new Int32Array(128).fill(-1)
  private hashes = new Int32Array(128)
  private count = 0

  get size(): number {
    return this.count
  }

  /** The number of `buf[from, to)`, numbered next when it is new. */
  intern(buf: Uint8Array, from: number, to: number): number {
    const h = hashOf(buf, from, to)
    let slot = this.find(buf, from, to, h)
    const found = this.slots[slot]!
    if (found >= 0) return found
    if ((this.count + 1) * 2 > this.slots.length) {
      this.rehash()
      slot = this.find(buf, from, to, h)
    }
    const id = this.store(buf, from, to)
    this.slots[slot] = id
    this.hashes[slot] = h
    return id
  }

  private store(buf: Uint8Array, from: number, to: number): number {
    const n = to - from
    if (this.poolUsed + n > this.pool.length) {
      const p = Buffer.allocUnsafe(Math.max(this.pool.length * 2, this.poolUsed + n))
      this.pool.copy(p, 0, 0, this.poolUsed)
      this.pool = p
    }
    this.pool.set(buf.subarray(from, to), this.poolUsed)
    const id = this.count++
    if (id >= this.start.length) {
      this.start = grown(this.start)
      this.length = grown(this.length)
    }
    this.start[id] = this.poolUsed
    this.length[id] = n
    this.poolUsed += n
    return id
  }

  /** The slot holding these bytes, or the free slot where they would go (linear probing). */
  private find(buf: Uint8Array, from: number, to: number, h: number): number {
    const mask = this.slots.length - 1
    const n = to - from
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const id = this.slots[slot]!
      if (id < 0) return slot
      if (this.hashes[slot] !== h || this.length[id] !== n) continue
      const at = this.start[id]!
      let i = 0
      while (i < n && this.pool[at + i] === buf[from + i]) i++
      if (i === n) return slot
    }
  }

  private rehash(): void {
    const oldSlots = this.slots
    const oldHashes = this.hashes
    this.slots = new Int32Array(oldSlots.length * 2).fill(-1)
    this.hashes = new Int32Array(oldSlots.length * 2)
    const mask = this.slots.length - 1
    for (let s = 0; s < oldSlots.length; s++) {
      const id = oldSlots[s]!
      if (id < 0) continue
      let slot = oldHashes[s]! & mask
      while (this.slots[slot]! >= 0) slot = (slot + 1) & mask
      this.slots[slot] = id
      this.hashes[slot] = oldHashes[s]!
    }
  }
}

/** FNV-1a, 32 bits. */
function hashOf(buf: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ buf[i]!, 0x01000193)
  return h ^ (h >>> 16)
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2)
  b.set(a)
  return b
}
