/**
 * Sealing a session's blocks where its rows are made: a reader thread
 * groups the rows it reads into blocks by the writer's own rule (a
 * session's consecutive rows, up to BLOCK_BYTES) and compresses each, so
 * the writer, when it is what limits the run, only stores them. Each row
 * that went into a block carries its index there (`bidx`), and the sealed
 * block follows its last row (`SealedBlock`). The writer checks that its
 * own block holds the same rows at the same indexes before it takes the
 * sealed one, and otherwise seals its own (store.ts, `takeBlock`).
 *
 * Whether a block is sealed here is decided as it starts (`here`): when the
 * writer keeps up with this reader, the reader is what limits the run, and
 * its rows go without an index; the writer then fills and seals that block
 * itself, at the same row (the same rule on the same bytes).
 */
import { BLOCK_BYTES, BlockBuilder } from './store/pack.js'
import type { Row } from './store/store.js'
import type { SealedBlock, SessionEvent } from './sync.js'

export class BlockSealer {
  private sid: string | null = null
  /** The block being filled here, or null when the writer fills this one. */
  private block: BlockBuilder | null = null
  /** Bytes of the current block (sealed here or not): where it ends. */
  private bytes = 0
  private open = false

  constructor(private readonly here: () => boolean = () => true) {}

  /** A batch of one read's events, with each sealed block after its last row. */
  take(evs: SessionEvent[]): SessionEvent[] {
    const out: SessionEvent[] = []
    for (const e of evs) {
      if ('data' in e) {
        const row = e as Row
        // Only the rows the writer writes into the open session (its own ids, not a fork's inherited ones).
        if (this.sid !== null && row.sid === this.sid && typeof row.id === 'string' && row.id.startsWith(`${this.sid}:`)) {
          if (!this.open) {
            this.open = true
            this.block = this.here() ? new BlockBuilder() : null
          }
          const plain = row.data.subarray(1)
          this.bytes += plain.length
          if (this.block) row.bidx = this.block.add(plain, true)
          out.push(row)
          if (this.bytes >= BLOCK_BYTES) this.end(out)
          continue
        }
      } else if (e.kind === 'session') {
        // A block holds one session's rows.
        this.end(out)
        this.sid = e.sid
      }
      out.push(e)
    }
    return out
  }

  /** The last block of the read (at its end, or where it failed: rows already sent point at it). */
  flush(): SessionEvent[] {
    const out: SessionEvent[] = []
    this.end(out)
    return out
  }

  private end(out: SessionEvent[]): void {
    const b = this.block
    this.block = null
    this.open = false
    this.bytes = 0
    if (b?.rows.length) out.push({ kind: 'block', rows: b.rows.length, blob: b.seal() } satisfies SealedBlock)
  }
}
