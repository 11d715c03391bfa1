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
 * This module is also the readers' entry (see parallel.ts for why the
 * bundle can be a worker's entry).
 */
import { availableParallelism } from 'node:os'
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads'
import { portableContext, type PortableContext, type StoreContext } from '../context.js'
import { Diagnostics, type Diagnostic } from '../diagnostics.js'
import { FerryError } from '../errors.js'
import { getHarness } from '../harness/registry.js'
import { drain, sessionEvents, type ReadAhead, type ReadAheadFactory, type ReadItem, type SessionEvent } from '../archive/sync.js'
import { asDiagnostic, fromDiagnostic } from './failure.js'

const MARK = 'ferryArchiveReader'

/** Batches a reader may send before the writer has taken them. */
const WINDOW = 32
/**
 * And at most this much row text (UTF-16 units of body, raw, native and
 * indexed text) ahead: what the writer has received but not yet written
 * sits in its heap, and a few sessions with megabyte lines among 32
 * batches held tens of MB there. By hand on the bench's 10,000 sessions,
 * 2 Mi units took 268–280 MiB at peak against 290–293 for 32 batches
 * alone, at the same speed (the writer's commits still overlap the reads).
 */
const WINDOW_UNITS = 2 * 1024 * 1024

function rowUnits(evs: SessionEvent[]): number {
  let n = 0
  for (const e of evs) if ('body' in e) n += e.body.length + (e.raw?.length ?? 0) + (e.native?.length ?? 0) + e.text.length
  return n
}

/**
 * A reader's heap is capped (V8 otherwise lets an idle-live, fast-allocating
 * thread's heap grow to about 100 MB, and each reader is a heap of its own).
 * So readers get only sessions whose lines are known to fit: plain files up
 * to 8 MiB, zstd ones up to 1 MiB; a bigger session is read by the writer
 * itself, in plan order, under no cap.
 */
const READER_OLD_SPACE_MB = 64
const READER_YOUNG_SPACE_MB = 8
const READER_MAX_PLAIN = 8 * 1024 * 1024
const READER_MAX_ZSTD = 1024 * 1024
const AUTO_MIN_SESSIONS = 32
const AUTO_MIN_BYTES = 16 * 1024 * 1024

interface Setup {
  [MARK]: true
  ctx: PortableContext
  items: ReadItem[]
}

type FromReader = { t: 'batch'; j: number; evs: SessionEvent[] } | { t: 'done'; j: number; evs: SessionEvent[]; fail?: Diagnostic }

/**
 * The factory `syncArchive` asks: reader threads for a run big enough to gain from them (or the
 * `--jobs` asked for: readers besides the writer; 1 reads in the writer's thread).
 */
export function archiveReaders(jobs: number | undefined): ReadAheadFactory {
  return (ctx, items, bytes) => {
    if (jobs === 1) return null
    const n = jobs ?? (items.length >= AUTO_MIN_SESSIONS && bytes >= AUTO_MIN_BYTES && availableParallelism() > 1 ? Math.min(availableParallelism() - 1, 2) : 0)
    if (n < 1) return null
    return readers(ctx, items, n)
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
    const w = new Worker(new URL(import.meta.url), {
      workerData: { [MARK]: true, ctx: base, items: share } satisfies Setup,
      resourceLimits: { maxOldGenerationSizeMb: READER_OLD_SPACE_MB, maxYoungGenerationSizeMb: READER_YOUNG_SPACE_MB },
    })
    const slot: Slot = { w, queue: [], wake: null, crashed: null, ended: false }
    const poke = () => {
      const f = slot.wake
      slot.wake = null
      f?.()
    }
    w.on('message', (m: FromReader) => (slot.queue.push(m), poke()))
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
      // What is left of an earlier session the writer stopped taking (it failed while writing).
      if (m.j < j) continue
      if (m.evs.length) yield m.evs
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
  let inFlightUnits = 0
  // The units of each batch not yet acknowledged (acks come in order).
  const sizes: number[] = []
  let resume: (() => void) | null = null
  port.on('message', () => {
    inFlight--
    inFlightUnits -= sizes.shift() ?? 0
    if (inFlight >= WINDOW || inFlightUnits >= WINDOW_UNITS) return
    const r = resume
    resume = null
    r?.()
  })
  const send = async (m: FromReader) => {
    port.postMessage(m)
    if (m.t !== 'batch') return
    const u = rowUnits(m.evs)
    sizes.push(u)
    inFlightUnits += u
    if (++inFlight >= WINDOW || inFlightUnits >= WINDOW_UNITS) await new Promise<void>((r) => (resume = r))
  }
  for (let j = 0; j < setup.items.length; j++) {
    const { src, session } = setup.items[j]!
    let fail: Diagnostic | undefined
    try {
      for await (const evs of sessionEvents(drain(getHarness(src).read!(ctx, session as never, { native: true })))) {
        const out = pending.length ? [...pending, ...evs] : evs
        pending = []
        await send({ t: 'batch', j, evs: out })
      }
    } catch (err) {
      fail = asDiagnostic(err)
    }
    const evs = pending
    pending = []
    await send({ t: 'done', j, evs, ...(fail ? { fail } : {}) })
  }
  port.close()
}

if (!isMainThread && parentPort && (workerData as Partial<Setup> | null)?.[MARK]) void read(workerData as Setup, parentPort)
