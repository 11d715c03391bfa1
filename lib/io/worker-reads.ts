/**
 * Reads spread over a second thread: when a listing has thousands of files to open and parse (a first `ferry
 * ls`, no cache yet), a worker takes a share of them so two cores work instead of one. The work is a task
 * defined at a module's top level (`workerTask`); the worker is started on that module, whose top level then
 * serves the task. Calls go to the worker while it has fewer than two batches waiting and are run on this thread
 * otherwise, so each thread takes what it has time for. Nothing is started for a short listing: the worker's
 * start (an isolate, the code compiled again) costs more than reading a few hundred files.
 */
import { availableParallelism, loadavg } from 'node:os'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

/** A task: a function of a string (a path) and plain options, whose result is plain JSON (no Date, no undefined in arrays). */
export interface WorkerTask<O, R> {
  name: string
  module: URL
  run: (arg: string, opts: O) => Promise<R>
}

interface Request {
  id: number
  args: string[]
}

type Outcome = { v: unknown } | { e: Record<string, unknown> }

/** The results as JSON text: one string crosses threads for far less than a clone of many small objects. */
interface Reply {
  id: number
  json: string
}

/** What the worker is told at its start. */
interface Start {
  ferryWorkerTask: string
  opts: unknown
}

/** An error as it crosses threads: its message and its own fields (code, path, syscall), as `reason()` reads them. */
function errorOut(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) }
  const o: Record<string, unknown> = { message: err.message }
  for (const [k, v] of Object.entries(err)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) o[k] = v
  return o
}

function errorIn(o: Record<string, unknown>): Error {
  return Object.assign(new Error(String(o.message)), o)
}

/**
 * Defines a task (call it at the top level of `module`, given as `new URL(import.meta.url)` there). In a worker
 * started for it, this also serves it: batches of arguments in, their results (or errors) out, in order.
 */
export function workerTask<O, R>(name: string, module: URL, run: (arg: string, opts: O) => Promise<R>): WorkerTask<O, R> {
  const start = workerData as Start | undefined
  if (!isMainThread && parentPort && start?.ferryWorkerTask === name) {
    const port = parentPort
    port.on('message', (req: Request) => {
      void (async () => {
        const results: Outcome[] = []
        for (const a of req.args) {
          try {
            results.push({ v: await run(a, start.opts as O) })
          } catch (err) {
            results.push({ e: errorOut(err) })
          }
        }
        port.postMessage({ id: req.id, json: JSON.stringify(results) } satisfies Reply)
      })()
    })
  }
  return { name, module, run }
}

/**
 * Whether a second thread would have a core to itself: two cores or more, and fewer runnable processes than
 * cores over the last minute. On a busy machine the worker only adds its start and its share of the contention
 * (docs/performance.md, "`ls` third round (issue #49)").
 */
function coreFree(): boolean {
  const cores = availableParallelism()
  return cores > 1 && loadavg()[0]! < cores - 0.5
}

/** Calls made before a worker is started: fewer files are read sooner than a worker starts. */
export const SPREAD_AFTER = 256
/** Calls posted to the worker at once. */
const BATCH = 16
/**
 * Calls in flight while reads are spread: the worker's two batches, and this thread's own reads made while it
 * waits for the oldest of them (results come out in order).
 */
export const CAPACITY = 8 * BATCH

interface Waiting {
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
  arg: string
}

/** A task's calls, run here or on a worker started once `startAfter` calls have been made (when a core is free). */
export class SpreadReads<O, R> {
  private worker: Worker | undefined
  private failed = false
  private calls = 0
  private batch: Waiting[] = []
  private readonly sent = new Map<number, Waiting[]>()
  private outstanding = 0
  private nextId = 0
  private sincePause = 0

  constructor(
    private readonly task: WorkerTask<O, R>,
    private readonly opts: O,
    private readonly startAfter: number,
    /** Asked once, at the `startAfter`th call: whether to start the worker. */
    private readonly canStart: () => boolean = coreFree,
  ) {}

  /** Whether calls may be waiting on the worker (a caller keeps that many more in flight). */
  get spread(): boolean {
    return this.worker !== undefined
  }

  read(arg: string): Promise<R> {
    const k = this.calls++
    if (k === this.startAfter && !this.failed && this.canStart()) this.start()
    // The worker takes a call while it has less than two batches to do; this thread runs the rest, and lets the
    // worker's answers in (`due`, `pause`) often enough that it is given more before it runs dry.
    this.sincePause++
    if (!this.worker || this.outstanding >= 2 * BATCH) return this.task.run(arg, this.opts)
    this.outstanding++
    return new Promise<R>((resolve, reject) => {
      this.batch.push({ resolve: resolve as (v: unknown) => void, reject, arg })
      if (this.batch.length >= BATCH) this.flush()
    })
  }

  /** Whether the caller should `pause` now: the worker is running and a batch of calls was made since the last pause. */
  get due(): boolean {
    return this.worker !== undefined && this.sincePause >= BATCH
  }

  /** Posts what waits to be sent and lets the worker's answers in (one turn of the event loop). */
  pause(): Promise<void> {
    this.sincePause = 0
    this.flush()
    return new Promise((resolve) => setImmediate(resolve))
  }

  /** Posts the calls not yet sent (before waiting for one of them). */
  flush(): void {
    if (!this.worker || this.batch.length === 0) return
    const id = this.nextId++
    this.sent.set(id, this.batch)
    this.worker.ref()
    this.worker.postMessage({ id, args: this.batch.map((w) => w.arg) } satisfies Request)
    this.batch = []
  }

  /** Stops the worker; calls still waiting on it are never answered (the caller has stopped listening). */
  close(): void {
    const w = this.worker
    this.worker = undefined
    if (w) void w.terminate()
  }

  private start(): void {
    let w: Worker
    try {
      w = new Worker(this.task.module, { workerData: { ferryWorkerTask: this.task.name, opts: this.opts } satisfies Start })
    } catch {
      this.failed = true
      return
    }
    this.worker = w
    w.on('message', (m: Reply) => {
      const waiting = this.sent.get(m.id)
      if (!waiting) return
      this.sent.delete(m.id)
      this.outstanding -= waiting.length
      // Idle, it must not keep the process alive (a consumer that stopped early never closes it).
      if (this.sent.size === 0) w.unref()
      const results = JSON.parse(m.json) as Outcome[]
      waiting.forEach((c, i) => {
        const r = results[i]
        if (r && 'v' in r) c.resolve(r.v)
        else c.reject(errorIn(r?.e ?? { message: 'no result from the worker' }))
      })
    })
    // A worker that fails (or cannot load): what it held is run here, and nothing more is sent to it.
    const fail = () => {
      if (this.worker !== w) return
      this.worker = undefined
      this.failed = true
      const left = [...[...this.sent.values()].flat(), ...this.batch]
      this.sent.clear()
      this.batch = []
      this.outstanding = 0
      for (const c of left) this.task.run(c.arg, this.opts).then(c.resolve, c.reject)
    }
    w.on('error', fail)
    w.on('exit', fail)
  }
}
