/**
 * The archive's writer thread: `ferry archive` reads and parses sessions on
 * the main thread and hands their rows here, where every SQLite write
 * happens on a connection of its own, so the two halves use both cores
 * instead of taking turns on one. The transactions are the ones the main
 * thread asks for (one per batch of sessions, BEGIN IMMEDIATE in WAL), in
 * the order it asks, so a kill at any moment still loses at most the open
 * batch.
 *
 * Messages in are arrays of ops (WriterOp); each array is acknowledged once
 * written, which is what keeps the main thread from reading far ahead (the
 * rows in flight are bounded). A record the archive refuses (an id already
 * archived in another session) fails its session only, as it does in
 * process; anything else (lock, disk full) ends the run: reported once,
 * the open batch rolled back.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads'
import { openArchive, type ArchiveDb } from './db.js'
import { ArchiveWriter, type Provenance, type RecordRow } from './store.js'
import type { EndRec, SessionRec } from '../model.js'

export type WriterOp =
  | ['begin']
  | ['known']
  | ['open', number, SessionRec, Provenance, boolean, string]
  | ['row', number, RecordRow]
  | ['close', number, EndRec | undefined, boolean, string | null]
  | ['forget', string]
  | ['seen', string]
  | ['commit']
  | ['gone', string, string[]]
  | ['end']

export interface SessionResult {
  added: number
  changed: number
  newSessions: number
  /** Why the archive refused a record of this session (it is then not fingerprinted). */
  refused?: string
}

export type WriterReply =
  | { type: 'ack' }
  | { type: 'known'; known: Array<[string, string | null, boolean]> }
  | { type: 'done'; results: Array<[number, SessionResult]>; gone: number }
  | { type: 'error'; message: string; code?: string; name?: string }

export interface WriterData {
  ferryArchiveWriter: true
  path: string
  waitMs: number
  gen: number
}

/**
 * The ops applied to one connection, with each session's results kept by
 * its tag (the sync's plan index). The writer thread runs this; so does the
 * main thread itself where no thread can be started.
 */
export class OpWriter {
  readonly results = new Map<number, SessionResult>()
  gone = 0
  private w: ArchiveWriter | null = null
  /** The session whose records the archive refused: its other rows are dropped. */
  private refused = -1
  private top = ''

  constructor(private readonly open: () => ArchiveWriter) {}

  private res(tag: number): SessionResult {
    let r = this.results.get(tag)
    if (!r) this.results.set(tag, (r = { added: 0, changed: 0, newSessions: 0 }))
    return r
  }

  /** Applies one op; `known` answers with what is stored. */
  apply(op: WriterOp): Array<[string, string | null, boolean]> | undefined {
    const w = (this.w ??= this.open())
    switch (op[0]) {
      case 'begin':
        w.begin()
        break
      case 'known': {
        const known: Array<[string, string | null, boolean]> = []
        for (const [sid, k] of w.storedAll()) known.push([sid, k.fingerprint, k.gone])
        return known
      }
      case 'open':
        if (w.openSession(op[2], op[3]) && !op[4]) this.res(op[1]).newSessions++
        this.top = op[5]
        break
      case 'row':
        if (this.refused === op[1]) break
        try {
          w.writeRow(op[2])
        } catch (err) {
          if ((err as { code?: string }).code !== 'invalid-input') throw err
          this.refused = op[1]
          this.res(op[1]).refused ??= (err as Error).message
          // As when the read fails: the session keeps what was written, but no fingerprint, so the next run reads it again.
          w.forget(this.top)
        }
        break
      case 'close': {
        const bad = this.refused === op[1]
        const c = w.finishSession(op[2], { complete: op[3] && !bad, fingerprint: bad ? null : op[4] })
        const r = this.res(op[1])
        r.added += c.added
        r.changed += c.changed
        break
      }
      case 'forget':
        w.forget(op[1])
        break
      case 'seen':
        w.seenUnchanged(op[1])
        break
      case 'commit':
        w.commit()
        w.begin()
        break
      case 'gone':
        this.gone += w.markGone(op[1], new Set(op[2]))
        break
      case 'end':
        w.commit()
        break
    }
    return undefined
  }

  rollback(): void {
    this.w?.rollback()
  }
}

function run(): void {
  const port = parentPort
  if (isMainThread || !port || !(workerData as { ferryArchiveWriter?: unknown })?.ferryArchiveWriter) return
  const { path, waitMs, gen } = workerData as WriterData
  let db: ArchiveDb | null = null
  const ops = new OpWriter(() => {
    db = openArchive(path, { waitMs })
    return new ArchiveWriter(db, path, waitMs, gen)
  })
  let failed = false
  port.on('message', (batch: WriterOp[]) => {
    if (failed) return
    try {
      for (const op of batch) {
        const known = ops.apply(op)
        if (known) port.postMessage({ type: 'known', known } satisfies WriterReply)
        if (op[0] === 'end') {
          ;(db as ArchiveDb | null)?.close()
          db = null
          port.postMessage({ type: 'done', results: [...ops.results], gone: ops.gone } satisfies WriterReply)
        }
      }
      port.postMessage({ type: 'ack' } satisfies WriterReply)
    } catch (err) {
      failed = true
      ops.rollback()
      const e = err as { message?: string; code?: string; name?: string }
      port.postMessage({ type: 'error', message: String(e?.message ?? err), code: e?.code, name: e?.name } satisfies WriterReply)
    }
  })
}

run()
