/**
 * Where each zstd frame ends in a compressed stream, and the content
 * checksum it carries (the low 32 bits of the XXH64 of its decompressed
 * bytes, RFC 8878 §3.1.1), found from the frame and block headers alone.
 * fzstd does not check that checksum; the decoder that drives it hashes what
 * fzstd gives back for each frame and compares at the frame's end, as
 * zstd(1) and Node's own decoder do. Skippable frames are passed over.
 */
import xxhash from 'xxhash-wasm'

export interface FrameEnd {
  /** Offset in the chunk just after the frame's last byte. */
  at: number
  /** The checksum the frame carries, or null when it has none. */
  checksum: number | null
}

type State = 'magic' | 'skipSize' | 'fhd' | 'blockHeader' | 'checksum' | 'lost'

const ZSTD_MAGIC = 0xfd2fb528

export class FrameTracker {
  private state: State = 'magic'
  private need = 4
  private acc: number[] = []
  private skip = 0
  /** What comes once `skip` bytes are passed. */
  private then: 'magic' | 'blockHeader' | 'afterBlock' = 'magic'
  private hasChecksum = false
  private last = false

  /** The frames that end inside `chunk`. */
  feed(chunk: Uint8Array): FrameEnd[] {
    const ends: FrameEnd[] = []
    let i = 0
    while (i < chunk.length && this.state !== 'lost') {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i)
        this.skip -= n
        i += n
        if (this.skip === 0) this.afterSkip(ends, i)
        continue
      }
      this.acc.push(chunk[i++]!)
      if (this.acc.length < this.need) continue
      const b = this.acc
      this.acc = []
      this.step(b, ends, i)
    }
    return ends
  }

  private expect(state: State, need: number): void {
    this.state = state
    this.need = need
  }

  private skipThen(n: number, then: 'magic' | 'blockHeader' | 'afterBlock', ends: FrameEnd[], at: number): void {
    this.then = then
    this.skip = n
    if (n === 0) this.afterSkip(ends, at)
  }

  private afterSkip(ends: FrameEnd[], at: number): void {
    if (this.then === 'magic') this.expect('magic', 4)
    else if (this.then === 'blockHeader') this.expect('blockHeader', 3)
    else if (!this.last) this.expect('blockHeader', 3)
    else if (this.hasChecksum) this.expect('checksum', 4)
    else {
      ends.push({ at, checksum: null })
      this.expect('magic', 4)
    }
  }

  private step(b: number[], ends: FrameEnd[], at: number): void {
    switch (this.state) {
      case 'magic': {
        const m = (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0
        if (m === ZSTD_MAGIC) this.expect('fhd', 1)
        else if ((m & 0xfffffff0) >>> 0 === 0x184d2a50) this.expect('skipSize', 4)
        // Not a frame: the decoder reports it; nothing more to track.
        else this.state = 'lost'
        return
      }
      case 'skipSize':
        this.skipThen((b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0, 'magic', ends, at)
        return
      case 'fhd': {
        const fhd = b[0]!
        const fcsFlag = fhd >> 6
        const single = (fhd >> 5) & 1
        this.hasChecksum = ((fhd >> 2) & 1) === 1
        const did = [0, 1, 2, 4][fhd & 3]!
        const fcs = [single ? 1 : 0, 2, 4, 8][fcsFlag]!
        this.skipThen((single ? 0 : 1) + did + fcs, 'blockHeader', ends, at)
        return
      }
      case 'blockHeader': {
        const h = b[0]! | (b[1]! << 8) | (b[2]! << 16)
        this.last = (h & 1) === 1
        const type = (h >> 1) & 3
        if (type === 3) {
          this.state = 'lost'
          return
        }
        this.skipThen(type === 1 ? 1 : h >>> 3, 'afterBlock', ends, at)
        return
      }
      case 'checksum':
        ends.push({ at, checksum: (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0 })
        this.expect('magic', 4)
        return
      default:
        return
    }
  }
}

export interface Hasher {
  update(b: Uint8Array): void
  /** The low 32 bits of the XXH64 (seed 0) of everything given since the last call, and start again. */
  take(): number
}

let api: Awaited<ReturnType<typeof xxhash>> | null = null
let loading: Promise<void> | null = null

/** Loads the hash's WebAssembly once (a few ms); `hasher()` works after it. */
export function loadHasher(): Promise<void> {
  loading ??= xxhash().then((a) => {
    api = a
  })
  return loading
}

export function hasherReady(): boolean {
  return api !== null
}

export function hasher(): Hasher {
  if (!api) throw new Error('loadHasher() first')
  const a = api
  let h = a.create64(0n)
  return {
    update: (b) => {
      h.update(b)
    },
    take: () => {
      const d = h.digest()
      h = a.create64(0n)
      return Number(d & 0xffffffffn)
    },
  }
}
