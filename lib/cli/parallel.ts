/**
 * `convert --jobs N`: sessions read, transformed and written by N threads at
 * once (this one and N - 1 workers), for sinks whose sessions share nothing (a harness's
 * `independentSessions`). One core reads and serializes at about half the
 * speed of a bare parse-and-stringify loop, and a history is thousands of
 * small independent sessions: the second core is the rest of the speed.
 *
 * The main thread keeps discovery, the report, the progress display and
 * the diagnostics, and runs one job itself; each job runs the same stages as a sequential run
 * (every session salvaged on its own, as a middle session of a sequential
 * run is), and asks the main thread for sessions a few at a time, so a
 * worker that draws big sessions does not hold the others back. Each
 * session is written and committed by exactly one worker; what any sink
 * guarantees for one session holds for each.
 *
 * This module is also the workers' entry: a Worker started on it (or on
 * the CLI bundle that contains it) with `workerData[MARK]` runs `work`.
 */
import { availableParallelism } from 'node:os'
import { resolve as resolvePath } from 'node:path'
import { isMainThread, MessageChannel, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads'
import { Transform } from 'node:stream'
import { portableContext, type PortableContext, type StoreContext } from '../context.js'
import { asDiagnostic, Diagnostics, fromDiagnostic, type Diagnostic } from '../diagnostics.js'
import { FerryError, NotWrittenError, UsageError } from '../errors.js'
import { getHarness } from '../harness/registry.js'
import type { Harness, SessionInfo, WrittenSession } from '../harness/types.js'
import { readableOf } from '../io/drain.js'
import { sweepOnExit } from '../io/atomic.js'
import type { FerryRecord } from '../model.js'
import { pipeline } from '../io/pipeline.js'
import type { ResolvedRef } from '../harness/refs.js'
import { salvageRecords, salvageThrough } from './salvage.js'
import type { Args } from './options.js'
import { bytesOf, readSession } from './sources.js'
import { buildTransforms, transformsPerSession } from './transforms.js'

const MARK = 'ferryConvertWorker'

/** Below this much input, starting workers (about 0.2 s of CPU each) costs more than it saves. */
const AUTO_MIN_SESSIONS = 64
const AUTO_MIN_BYTES = 16 * 1024 * 1024
/** More workers than this only contend for the disk. */
const AUTO_MAX_JOBS = 4

export interface Parallel {
  jobs: number
  resolved: ResolvedRef[]
  /** The read options of each source harness (plain data: they are sent to the workers). */
  readOpts: Record<string, Record<string, unknown>>
  /** The command line's joined argv: each worker builds its own transform stages from it. */
  rawArgs: string[]
}

/** The sessions shared out among `jobs` workers, with each source harness's read options. */
export function parallelPlan(jobs: number, resolved: ResolvedRef[], rawArgs: string[], readOpts: (harness: string) => Record<string, unknown>): Parallel {
  const ids = new Set(resolved.map((r) => r.session.harness || r.harness.id))
  return { jobs, resolved, rawArgs, readOpts: Object.fromEntries([...ids].map((id) => [id, readOpts(id)])) }
}

/** `--jobs`: a positive whole number, or absent (chosen here). */
export function jobsFlag(argv: Args): number | undefined {
  const v = argv.jobs
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new UsageError(`--jobs: not a positive whole number: ${String(v)}`)
  return v
}

/**
 * How many workers a run gets: 1 (the sequential run) unless the sink's sessions are independent at
 * this `--out` kind, every transform works session by session, and there is more than one session;
 * then `--jobs`, or by default the CPU count for a run big enough to gain from it.
 */
export async function jobsFor(argv: Args, to: Harness, outKind: string, resolved: ResolvedRef[], rawArgs: string[]): Promise<number> {
  const asked = jobsFlag(argv)
  if (asked === 1 || resolved.length < 2 || argv['dry-run'] === true) return 1
  if (!to.independentSessions || outKind !== 'dir') return 1
  if (!(await transformsPerSession(rawArgs))) return 1
  if (asked !== undefined) return Math.min(asked, resolved.length)
  if (resolved.length < AUTO_MIN_SESSIONS || bytesOf(resolved) < AUTO_MIN_BYTES) return 1
  return Math.max(1, Math.min(availableParallelism(), AUTO_MAX_JOBS, resolved.length))
}

interface Item {
  harness: string
  session: SessionInfo
}

interface Setup {
  [MARK]: true
  ctx: PortableContext
  to: string
  sinkOpts: Record<string, unknown>
  readOpts: Record<string, Record<string, unknown>>
  rawArgs: string[]
  progress: boolean
}

type FromWorker =
  | { t: 'next' }
  | { t: 'written'; ws: WrittenSession }
  | { t: 'diag'; d: Diagnostic }
  | { t: 'progress'; records: number; bytes: number }
  | { t: 'not-written' }
  | { t: 'fatal'; d: Diagnostic }

export interface ParallelEvents {
  written(ws: WrittenSession): void
  /** Records and source bytes passed since the last call (only asked for with a progress display). */
  progress?(records: number, bytes: number): void
}

/**
 * Writes every session of `plan` into `to`'s sink in `plan.jobs` jobs, one on this thread and the
 * rest in workers. Resolves when all have finished; sets exit code 1 when a sink could not write a
 * session (reported as diagnostics, as in a sequential run) and throws the first error that stopped
 * a job, after the others finished.
 */
export async function writeInWorkers(ctx: StoreContext, plan: Parallel, to: string, sinkOpts: Record<string, unknown>, on: ParallelEvents): Promise<void> {
  const queue: Item[] = plan.resolved.map((r) => ({ harness: r.harness.id, session: r.session }))
  let next = 0
  let fatal: Diagnostic | null = null
  const setup: Setup = {
    [MARK]: true,
    ctx: portableContext(ctx),
    to,
    sinkOpts,
    readOpts: plan.readOpts,
    rawArgs: plan.rawArgs,
    progress: Boolean(on.progress),
  }
  // Small batches near the end, so the last sessions are shared out rather than left to one worker.
  const batch = (): Item[] => {
    const n = fatal ? 0 : Math.max(1, Math.min(8, Math.ceil((queue.length - next) / (2 * plan.jobs))))
    const items = queue.slice(next, next + n)
    next += items.length
    return items
  }
  // A signal ends the process from this thread, and the workers' temp files must still go: the
  // workers are stopped first (they make temp files synchronously, so none is still being made),
  // then the signal is raised again for the exit hooks, which sweep --out DIR (sweepOnExit).
  if (typeof sinkOpts.out === 'string') sweepOnExit(resolvePath(sinkOpts.out))
  const workers: Worker[] = []
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  const unhook = () => {
    for (const sig of signals) process.off(sig, onSignal)
  }
  let stopping = false
  const onSignal = (sig: NodeJS.Signals) => {
    // A repeat (a terminal's Ctrl-C also reaches the launcher, which passes it on: lib/cli/relaunch.ts)
    // waits for the workers too: the exit hooks must not sweep while one may still make a temp file.
    if (stopping) return
    stopping = true
    // Alive until the signal, raised again, ends the process (nothing else may end it first).
    setInterval(() => {}, 1 << 30)
    void Promise.allSettled(workers.map((w) => w.terminate())).then(() => {
      unhook()
      process.kill(process.pid, sig)
    })
  }
  for (const sig of signals) process.on(sig, onSignal)
  const serve = (port: MessagePort | Worker) =>
    port.on('message', (m: FromWorker) => {
      if (m.t === 'next') port.postMessage(batch())
      else if (m.t === 'written') on.written(m.ws)
      else if (m.t === 'diag') ctx.diagnostics.report(m.d)
      else if (m.t === 'progress') on.progress?.(m.records, m.bytes)
      else if (m.t === 'not-written') process.exitCode = 1
      else if (m.t === 'fatal') fatal ??= m.d
    })
  // No resourceLimits of their own: the CLI's startup flags size every thread's heap (lib/cli/relaunch.ts;
  // see docs/performance.md, "convert --jobs workers").
  const run = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: setup })
      workers.push(w)
      serve(w)
      w.once('error', reject)
      w.once('exit', (code) => (code === 0 || stopping ? resolve() : reject(new FerryError(`a convert worker stopped with exit code ${code}`))))
    })
  // One of the N jobs runs on this thread, which otherwise only hands out sessions: a worker's isolate
  // (its heap and its own copy of the code) is the largest part of a parallel run's memory.
  const here = async () => {
    const { port1, port2 } = new MessageChannel()
    serve(port2)
    // `work` closes its end when done; messages already posted still arrive before this end's close.
    const closed = new Promise((resolve) => port2.once('close', resolve))
    await work(setup, port1)
    await closed
  }
  const ended = await Promise.allSettled([here(), ...Array.from({ length: plan.jobs - 1 }, run)])
  if (stopping) await new Promise<never>(() => {})
  unhook()
  const crashed = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected')
  const first = fatal as Diagnostic | null
  if (first) throw fromDiagnostic(first)
  if (crashed) throw crashed.reason
}

/** The worker: its share of the sessions through the run's stages into its own sink. */
async function work(setup: Setup, port: MessagePort): Promise<void> {
  const diagnostics = new Diagnostics({ stream: null })
  diagnostics.report = (d: Diagnostic) => port.postMessage({ t: 'diag', d } satisfies FromWorker)
  const ctx: StoreContext = { ...setup.ctx, diagnostics }
  try {
    const transforms = await buildTransforms(setup.rawArgs)
    const sink = getHarness(setup.to).sink!(ctx, setup.sinkOpts)
    sink.on('written', (ws: WrittenSession) => port.postMessage({ t: 'written', ws } satisfies FromWorker))
    const salvaged = salvageThrough(readableOf(sessions(ctx, setup, port)), setup.progress ? [counting(port), ...transforms] : transforms)
    try {
      await pipeline(salvaged.source, sink)
    } catch (err) {
      if (!(err instanceof NotWrittenError)) throw err
      port.postMessage({ t: 'not-written' } satisfies FromWorker)
    }
    const failure = salvaged.failure()
    if (failure) port.postMessage({ t: 'fatal', d: asDiagnostic(failure) } satisfies FromWorker)
  } catch (err) {
    port.postMessage({ t: 'fatal', d: asDiagnostic(err) } satisfies FromWorker)
  }
  port.close()
}

/** The sessions the main thread hands out, the next batch asked for before this one runs out. */
async function* sessions(ctx: StoreContext, setup: Setup, port: MessagePort): AsyncGenerator<FerryRecord> {
  const pending: Item[] = []
  let asked: Promise<Item[]> | null = null
  let last = false
  const ask = () =>
    new Promise<Item[]>((resolve) => {
      port.once('message', resolve)
      port.postMessage({ t: 'next' } satisfies FromWorker)
    })
  for (;;) {
    if (pending.length <= 1 && !asked && !last) asked = ask()
    if (pending.length === 0) {
      if (!asked) return
      const got = await asked
      asked = null
      if (got.length === 0) last = true
      pending.push(...got)
      continue
    }
    const item = pending.shift()!
    const r = { harness: getHarness(item.harness), session: item.session }
    const read = readSession(ctx, r, setup.readOpts[item.session.harness || item.harness] ?? {})
    // Every session is salvaged on its own, as a middle session of a sequential run: reported, closed incomplete, the next one read.
    yield* salvageRecords(read, (err) => ctx.diagnostics.report(asDiagnostic(err)))
  }
}

/** Records and source bytes for the main thread's progress display, in batches. */
function counting(port: MessagePort): Transform {
  let records = 0
  let bytes = 0
  const send = () => {
    if (records) port.postMessage({ t: 'progress', records, bytes } satisfies FromWorker)
    records = bytes = 0
  }
  return new Transform({
    objectMode: true,
    transform(rec: FerryRecord, _enc, cb) {
      const raw = (rec as { native?: { raw?: unknown } }).native?.raw
      if (typeof raw === 'string') bytes += raw.length
      if (++records === 256) send()
      cb(null, rec)
    },
    flush(cb) {
      send()
      cb()
    },
  })
}

if (!isMainThread && parentPort && (workerData as Partial<Setup> | null)?.[MARK]) void work(workerData as Setup, parentPort)
