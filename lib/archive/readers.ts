/**
 * `ferry archive`'s reader threads: the sessions a first archive (or a big
 * update) must read are read, and their rows prepared (stored parts,
 * indexed text), by worker threads, while the main thread only writes
 * them into SQLite. One core does both at about half the speed of a bare
 * parse-and-stringify loop; split, the write and the read overlap.
 *
 * Sessions are dealt round robin (session i to reader i mod N) and each
 * reader sends its sessions in order, so the writer takes them in the
 * plan's order without reordering anything. A reader runs at most WINDOW
 * batches ahead of the writer, so memory stays bounded however big the
 * history. Diagnostics travel inside the session they belong to, so the
 * writer counts them against it as when it reads the session itself.
 *
 * A session new to the archive also has its blocks sealed here (seal.ts): the
 * writer, whose one thread limits a first archive, then compresses nothing.
 *
 * A batch's row text (the packed record, see store/pack.ts, and the indexed words) travels as
 * UTF-8 in chunks, transferred to the writer and back once written: the
 * writer binds those bytes as they are and never makes strings of them. As
 * cloned strings they were most of what the writer's heap allocated (about
 * twice the history's size), and a first archive's writer heap grew with it.
 *
 * This module is also the readers' entry: a reader is started on
 * `import.meta.url`, which is this module in the compiled tree
 * (dist/lib/archive/readers.js) and the CLI bundle (dist/ferry.mjs) in the
 * CLI; either way its last line sees `workerData[MARK]` and runs `read`.
 * The bundle only defines the CLI (bin/ferry.js starts it), so a thread
 * that loads it runs nothing else.
 */
import { availableParallelism } from 'node:os'
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads'
import { portableContext, type PortableContext, type StoreContext } from '../context.js'
import { asDiagnostic, Diagnostics, fromDiagnostic, type Diagnostic } from '../diagnostics.js'
import { FerryError } from '../errors.js'
import { getHarness } from '../harness/registry.js'
import { BlockSealer } from './seal.js'
import { drain, sessionEvents, type ReadAhead, type ReadAheadFactory, type ReadItem, type SealedBlock, type SessionEvent } from './sync.js'
import type { Row, RowText } from './store/store.js'

const MARK = 'ferryArchiveReader'

/** Batches a reader may send before the writer has taken them. */
const WINDOW = 32
/**
 * And at most this many bytes of row text ahead: what the writer has
 * received but not yet written is held for it. Row text as strings in the
 * writer's heap had to be held to 2 Mi UTF-16 units (a few sessions with
 * megabyte lines among 32 batches held tens of MB there); as bytes in
 * chunks it costs only the chunks, and a wider window lets the reader go
 * on while the writer commits: 8 MiB took the bench's first archive from
 * about 23 s to 20–22 s.
 */
const WINDOW_BYTES = 8 * 1024 * 1024
/**
 * Row text travels in chunks of this size, sent back once written and used
 * again: a reader then allocates buffers of one size, a window's worth,
 * rather than one per batch (a tenth of the bench's batches are bigger
 * than a chunk, up to 6 MB). A span bigger than a chunk gets a buffer of
 * its own, not kept.
 */
const CHUNK = 256 * 1024
/**
 * A reader seals (compresses) the blocks it starts (seal.ts) while it has
 * had to wait for the writer (its window full) within this many batches:
 * the writer is then what limits the run. Otherwise the writer keeps up
 * and this reader limits it, so the writer seals. Either way the one that
 * has time compresses, and the two balance.
 */
const WRITER_BEHIND = WINDOW
/** Chunks a reader keeps for reuse: more than a window's worth. */
const POOL_MAX = 40

/**
 * A reader's heap is capped when its thread starts (`resourceLimits`): each
 * reader is a heap of its own, and V8 lets an uncapped one grow far past what
 * it keeps live (see docs/performance.md, "archive reader threads"). A
 * young-generation size on Node's command line (the CLI gives one:
 * lib/cli/relaunch.ts) overrides this one. So readers get only sessions
 * whose lines are known to fit: plain files up to 8 MiB, zstd ones up to
 * 1 MiB; a bigger session is read by the writer itself, in plan order, under
 * no cap.
 */
const READER_OLD_SPACE_MB = 64
const READER_YOUNG_SPACE_MB = 8
const READER_MAX_PLAIN = 8 * 1024 * 1024
const READER_MAX_ZSTD = 1024 * 1024
const AUTO_MIN_SESSIONS = 32
const AUTO_MIN_BYTES = 16 * 1024 * 1024
/**
 * A reader is handed its sessions this many at a time, asking for the next
 * slice when it starts on one. All of them in its start-up data (as before)
 * put every session's discovery info into its capped heap at once: 50,000
 * of them (100,000 sessions, two readers) were more than the 64 MB, and
 * every session failed.
 */
const SLICE = 64

interface Setup {
  [MARK]: true
  ctx: PortableContext
}

/** The writer's answer to a reader's `more`: its next sessions (none: there are no more). */
interface Slice {
  items: ReadItem[]
}

/**
 * A row or sealed block in transit: its byte fields are byte lengths (-1:
 * null); the bytes are in the batch's chunks, where `Placement` put them.
 */
type Packed<T> = { [K in keyof T]: K extends 'data' | 'text' | 'blob' ? number : T[K] }
type Shipped = Packed<Row> | Packed<SealedBlock> | Exclude<SessionEvent, Row | SealedBlock>
type FromReader = { t: 'batch' | 'done'; j: number; evs: Shipped[]; chunks?: ArrayBuffer[]; fail?: Diagnostic }
type ToReader = 'ack' | ArrayBuffer[] | Slice

const ROW_FIELDS = ['data', 'text'] as const
const BLOCK_FIELDS = ['blob'] as const
const NO_FIELDS = [] as const

/** The fields of an event that travel in the chunks. */
function fieldsOf(e: SessionEvent | Shipped): readonly string[] {
  return 'data' in e ? ROW_FIELDS : e.kind === 'block' ? BLOCK_FIELDS : NO_FIELDS
}

/**
 * Where each span of a batch goes, by the same rule on both sides, so only
 * lengths travel: spans in row order, packed into the current chunk; one
 * that does not fit starts the next chunk; one bigger than a chunk has a
 * chunk of its own (the current one stays current); an empty one none.
 */
class Placement {
  /** Chunks placed so far. */
  count = 0
  private cur = -1
  private at = 0

  /** [chunk, offset] of the next span of `n` bytes (n > 0). */
  place(n: number): [number, number] {
    if (n > CHUNK) return [this.count++, 0]
    if (this.cur < 0 || this.at + n > CHUNK) {
      this.cur = this.count++
      this.at = 0
    }
    const off = this.at
    this.at += n
    return [this.cur, off]
  }

  /** The current chunk and its first free byte, and how many are free. */
  tail(): [number, number, number] {
    return this.cur < 0 ? [-1, 0, 0] : [this.cur, this.at, CHUNK - this.at]
  }
}

/** Lays a batch's row text into chunks (from `pool` where one is free); returns the bytes laid. */
function pack(evs: SessionEvent[], pool: ArrayBuffer[]): { evs: Shipped[]; chunks?: ArrayBuffer[]; bytes: number } {
  if (!evs.some((e) => fieldsOf(e).length)) return { evs: evs as Shipped[], bytes: 0 }
  const chunks: Buffer[] = []
  const where = new Placement()
  let bytes = 0
  const into = (n: number): [Buffer, number] => {
    const [c, off] = where.place(n)
    if (c === chunks.length) chunks.push(Buffer.from(n > CHUNK ? new ArrayBuffer(n) : (pool.pop() ?? new ArrayBuffer(CHUNK))))
    return [chunks[c]!, off]
  }
  /** Lays one span; its length in bytes. */
  const lay = (v: string | Uint8Array): number => {
    if (v.length === 0) return 0
    if (typeof v !== 'string') {
      const [b, off] = into(v.byteLength)
      b.set(v, off)
      return v.byteLength
    }
    // At most 3 bytes per UTF-16 unit: a string is measured only when that might not fit.
    const [c, off, free] = where.tail()
    if (v.length * 3 <= free) {
      const n = chunks[c]!.write(v, off, 'utf8')
      where.place(n)
      return n
    }
    const n = Buffer.byteLength(v, 'utf8')
    const [b, o] = into(n)
    b.write(v, o, 'utf8')
    return n
  }
  const out = evs.map((e): Shipped => {
    const fields = fieldsOf(e)
    if (!fields.length) return e as Shipped
    const row = { ...e } as unknown as Record<string, unknown>
    for (const f of fields) {
      const v = (e as unknown as Record<string, RowText | null>)[f]!
      const n = v === null ? -1 : lay(v)
      if (n > 0) bytes += n
      row[f] = n
    }
    return row as unknown as Shipped
  })
  return { evs: out, chunks: chunks.map((b) => b.buffer as ArrayBuffer), bytes }
}

/** The rows back, their text as views of the batch's chunks (valid until the chunks go back to their reader). */
function unpack(m: FromReader): SessionEvent[] {
  const chunks = m.chunks
  if (!chunks) return m.evs as SessionEvent[]
  const where = new Placement()
  const none = new Uint8Array(0)
  return m.evs.map((e): SessionEvent => {
    const fields = fieldsOf(e)
    if (!fields.length) return e as SessionEvent
    const row = e as unknown as Record<string, unknown>
    for (const f of fields) {
      const n = row[f] as number
      if (n < 0) row[f] = null
      else if (n === 0) row[f] = none
      else {
        const [c, off] = where.place(n)
        row[f] = new Uint8Array(chunks[c]!, off, n)
      }
    }
    return row as unknown as SessionEvent
  })
}

/**
 * The factory `syncArchive` asks: reader threads for a run big enough to gain from them (or the
 * `--jobs` asked for: readers besides the writer; 1 reads in the writer's thread).
 */
export function archiveReaders(jobs: number | undefined): ReadAheadFactory {
  return (ctx, items, bytes) => {
    const n = jobs === 1 ? 0 : (jobs ?? (items.length >= AUTO_MIN_SESSIONS && bytes >= AUTO_MIN_BYTES && availableParallelism() > 1 ? Math.min(availableParallelism() - 1, 2) : 0))
    return n < 1 ? null : readers(ctx, items, n)
  }
}

interface Slot {
  w: Worker
  queue: FromReader[]
  wake: (() => void) | null
  crashed: unknown
  ended: boolean
}

function fitsReader(item: ReadItem): boolean {
  return item.bytes <= (item.session.path.endsWith('.zst') ? READER_MAX_ZSTD : READER_MAX_PLAIN)
}

function readers(ctx: StoreContext, items: ReadItem[], n: number): ReadAhead | null {
  // Item → its place among the threaded ones (-1: the writer reads it).
  const place = new Int32Array(items.length).fill(-1)
  const threaded: ReadItem[] = []
  items.forEach((it, i) => {
    if (!fitsReader(it)) return
    place[i] = threaded.length
    threaded.push(it)
  })
  n = Math.min(n, threaded.length)
  if (n < 1) return null
  const base = portableContext(ctx)
  const slots: Slot[] = Array.from({ length: n }, (_, k) => {
    const share = threaded.filter((_, i) => i % n === k)
    let given = 0
    const w = new Worker(new URL(import.meta.url), {
      workerData: { [MARK]: true, ctx: base } satisfies Setup,
      resourceLimits: { maxOldGenerationSizeMb: READER_OLD_SPACE_MB, maxYoungGenerationSizeMb: READER_YOUNG_SPACE_MB },
    })
    const slot: Slot = { w, queue: [], wake: null, crashed: null, ended: false }
    const poke = () => {
      const f = slot.wake
      slot.wake = null
      f?.()
    }
    w.on('message', (m: FromReader | 'more') => {
      if (m !== 'more') return void (slot.queue.push(m), poke())
      const items = share.slice(given, given + SLICE)
      given += items.length
      w.postMessage({ items } satisfies Slice)
    })
    w.once('error', (err) => ((slot.crashed = err), poke()))
    w.once('exit', () => ((slot.ended = true), poke()))
    return slot
  })
  async function take(slot: Slot): Promise<FromReader> {
    for (;;) {
      const m = slot.queue.shift()
      if (m) return m
      if (slot.crashed) throw new FerryError(`an archive reader thread failed: ${asDiagnostic(slot.crashed).message} (--jobs 1 reads without threads)`, { code: 'internal' })
      if (slot.ended) throw new FerryError('an archive reader thread ended early', { code: 'internal' })
      await new Promise<void>((res) => (slot.wake = res))
    }
  }
  async function* session(i: number): AsyncGenerator<SessionEvent[]> {
    const k = place[i]!
    if (k < 0) {
      const { src, session } = items[i]!
      yield* sessionEvents(drain(getHarness(src).read!(ctx, session as never, { native: true })))
      return
    }
    const slot = slots[k % n]!
    const j = Math.floor(k / n)
    for (;;) {
      const m = await take(slot)
      if (m.t === 'batch') slot.w.postMessage('ack')
      try {
        // What is left of an earlier session the writer stopped taking (it failed while writing).
        if (m.j < j) continue
        if (m.evs.length) yield unpack(m)
      } finally {
        // Written (SQLite copied what it keeps): the chunks go back for the reader's next batches.
        const back = m.chunks?.filter((c) => c.byteLength === CHUNK)
        if (back?.length && !slot.ended) slot.w.postMessage(back, back)
      }
      if (m.t === 'done') {
        if (m.fail) throw fromDiagnostic(m.fail)
        return
      }
    }
  }
  return {
    threads: n,
    session,
    close: async () => {
      await Promise.all(slots.map((s) => s.w.terminate()))
    },
  }
}

/** The reader: its share of the sessions, in order, as the writer's events. */
async function read(setup: Setup, port: MessagePort): Promise<void> {
  let pending: SessionEvent[] = []
  const diagnostics = new Diagnostics({ stream: null })
  diagnostics.report = (d: Diagnostic) => void pending.push({ kind: 'diagnostic', diagnostic: d })
  const ctx: StoreContext = { ...setup.ctx, diagnostics }
  let inFlight = 0
  let inFlightBytes = 0
  // Batches sent, and how many had been when this reader last waited for the writer (its window full).
  let sent = 0
  let waited = -Infinity
  // The writer was behind this reader lately: this reader seals the next block, else the writer does.
  const sealHere = () => sent - waited <= WRITER_BEHIND
  // The bytes of each batch not yet acknowledged (acks come in order).
  const sizes: number[] = []
  // Batch buffers the writer is done with.
  const pool: ArrayBuffer[] = []
  let resume: (() => void) | null = null
  // Sessions handed over and not yet read, and the answer to the `more` asked for (one at a time).
  const todo: ReadItem[] = []
  let asked: ((items: ReadItem[]) => void) | null = null
  let ended = false
  const more = () => new Promise<ReadItem[]>((res) => ((asked = res), port.postMessage('more')))
  let next: Promise<ReadItem[]> | null = null
  port.on('message', (m: ToReader) => {
    if (typeof m === 'object' && 'items' in m) {
      const res = asked
      asked = null
      res?.(m.items)
      return
    }
    if (m !== 'ack') {
      for (const c of m) if (pool.length < POOL_MAX) pool.push(c)
      return
    }
    inFlight--
    inFlightBytes -= sizes.shift() ?? 0
    if (inFlight >= WINDOW || inFlightBytes >= WINDOW_BYTES) return
    const r = resume
    resume = null
    r?.()
  })
  const send = async (t: 'batch' | 'done', j: number, evs: SessionEvent[], fail?: Diagnostic) => {
    const p = pack(evs, pool)
    port.postMessage({ t, j, evs: p.evs, ...(p.chunks ? { chunks: p.chunks } : {}), ...(fail ? { fail } : {}) } satisfies FromReader, p.chunks ?? [])
    if (t !== 'batch') return
    sizes.push(p.bytes)
    inFlightBytes += p.bytes
    sent++
    if (++inFlight >= WINDOW || inFlightBytes >= WINDOW_BYTES) {
      waited = sent
      await new Promise<void>((r) => (resume = r))
    }
  }
  for (let j = 0; ; j++) {
    if (!todo.length && !ended) {
      const got = await (next ?? more())
      next = null
      if (got.length) todo.push(...got)
      else ended = true
    }
    const item = todo.shift()
    if (!item) break
    // The next slice is asked for as the last of this one starts, so it is there when that is done.
    if (!todo.length && !ended && !next) next = more()
    const { src, session } = item
    const sealer = item.fresh ? new BlockSealer(sealHere) : null
    let fail: Diagnostic | undefined
    try {
      for await (const read of sessionEvents(drain(getHarness(src).read!(ctx, session as never, { native: true })))) {
        const evs = sealer ? sealer.take(read) : read
        const out = pending.length ? [...pending, ...evs] : evs
        pending = []
        await send('batch', j, out)
      }
    } catch (err) {
      fail = asDiagnostic(err)
    }
    // The last block: also after a failure, the rows sent point at it.
    const evs = sealer ? [...pending, ...sealer.flush()] : pending
    pending = []
    await send('done', j, evs, fail)
  }
  port.close()
}

if (!isMainThread && parentPort && (workerData as Partial<Setup> | null)?.[MARK]) void read(workerData as Setup, parentPort)
