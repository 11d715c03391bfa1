/**
 * The shared shape of every sink: a Writable of FerryRecords that cuts the
 * stream into sessions and hands each one to a per-session writer that the
 * harness provides. It handles the stream rules once (preamble records,
 * header-less sessions, `end` records, errors) so harness sinks only know
 * their own format.
 *
 * Sink policy (the same for every harness, through the CLI and the library):
 * a session that cannot be written (it exists and `force` is off, its id or
 * path is unsafe, an I/O error) is aborted, so nothing of it is left under a
 * final name; it is reported once as a diagnostic with its code, the rest of
 * its records are skipped, and the sink goes on with the next session. When
 * the stream has ended and any session failed, the sink fails with a
 * NotWrittenError listing them: the library's pipeline() rejects with it, the
 * CLI exits 1. Sessions written before and after a failed one stay written.
 *
 * A session is committed only on its `end` record. One that the input leaves
 * without it (the stream was cut, even at a line boundary; the next session
 * began) is incomplete: it is aborted and reported as `incomplete`, never
 * committed as if it were whole.
 */
import { Writable } from 'node:stream'
import type { StoreContext } from '../context.js'
import type { Code } from '../codes.js'
import { asFerryError, FerryError, NotWrittenError, type SessionFailure } from '../errors.js'
import { located } from '../io/atomic.js'
import { FERRY_FORMAT, isObj, parseSessionKey, type BoundaryRec, type EndRec, type FerryRecord, type MessageRec, type SessionRec } from '../model.js'
import type { WrittenSession } from './types.js'
import { recordProblem, withHeaderDefaults } from '../interchange/validate.js'

type Written = WrittenSession | WrittenSession[] | void

/**
 * A commit still under way (its data fsynced in the background, its name made
 * after): the sink goes on with the next session meanwhile, reports it in
 * order once it settles, and waits for every one before it finishes.
 */
export interface Deferred {
  later: Promise<Written>
}

export interface SessionWriter {
  /** One record of the open session (never `session`, `end` or `stream`). */
  write(rec: FerryRecord): void | Promise<void>
  /** The session is complete: commit it (rename into place) and say what was written, now or `later`. */
  finish(end?: EndRec): Promise<Written | Deferred>
  /** Something failed: remove every temp file of this session. */
  abort(err?: unknown): Promise<void>
  /** The final path being written (a file or a session folder): where a write error that names no file is reported. */
  readonly destination?: string
}

const WRITTEN_KINDS = new Set<string>(['message', 'boundary', 'native'])

/** A `native` whose format is not a string is not any writer's native: the record is written as modelled. */
function wellFormedNative(rec: FerryRecord): FerryRecord {
  const n = (rec as { native?: unknown }).native
  if (n === undefined) return rec
  if (n !== null && typeof n === 'object' && typeof (n as { format?: unknown }).format === 'string') return rec
  const { native: _drop, ...rest } = rec as FerryRecord & { native?: unknown }
  return rest as FerryRecord
}

export type OpenSession = (header: SessionRec) => Promise<SessionWriter>

export interface SessionSinkOptions {
  /** Called once after the last session, before 'finish' (e.g. to write a document footer). */
  close?: () => Promise<WrittenSession[] | void>
  /** Called when the sink is destroyed with an error. */
  destroy?: (err: unknown) => Promise<void>
  /** Pass records of kinds this version does not know to the writer (the interchange stream copies them; native writers cannot). */
  unknownKinds?: boolean
  /** The sink keeps records as they are (the interchange stream, the archive): no boundary becomes a note. */
  verbatim?: boolean
}

/**
 * A Writable that emits 'written' (WrittenSession) for each committed session,
 * and 'session-error' (FerryError, sid) for each session it could not write.
 */
export class SessionSink extends Writable {
  private current: SessionWriter | null = null
  private currentCwd: string | undefined
  private currentSid: string | null = null
  private skipSid: string | null = null
  /** A writer still being opened: destroy waits for it so its temp files are removed too. */
  private opening: Promise<SessionWriter> | null = null
  readonly failures: SessionFailure[] = []
  /** Why each session of this run was not written (its code), so its sub-agents can share its fate. */
  private readonly failedWith = new Map<string, Code>()
  /** Deferred commits, oldest first, each reported when it and every one before it settled. */
  private pending: Promise<void> = Promise.resolve()
  /** Sessions whose deferred commit has not settled yet (a sub-agent of one waits for its parent's fate). */
  private readonly unsettled = new Set<string>()

  constructor(
    private readonly ctx: StoreContext,
    /** The harness this sink writes, named in reports. */
    readonly harness: string,
    private readonly openSession: OpenSession,
    private readonly opts: SessionSinkOptions = {},
  ) {
    super({ objectMode: true, highWaterMark: 64 })
  }

  override _write(rec: FerryRecord, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.skipSid !== null && rec.kind !== 'session' && rec.kind !== 'stream' && (rec as { sid?: unknown }).sid === this.skipSid) return cb()
    const sid = rec.kind === 'session' ? rec.sid : (this.currentSid ?? String((rec as { sid?: unknown }).sid ?? ''))
    this.handle(rec).then(
      () => cb(),
      (err: unknown) => this.sessionFailed(err, sid).then(() => cb(), (e: Error) => cb(e)),
    )
  }

  private async sessionFailed(err: unknown, sid: string): Promise<void> {
    const w = this.current
    this.current = null
    this.currentSid = null
    await w?.abort(err)
    this.reportFailure(w?.destination ? located(err, w.destination) : err, sid)
    this.skipSid = sid
  }

  private reportFailure(err: unknown, sid: string): void {
    const e = asFerryError(err, 'write-failed')
    this.failures.push({ sid, error: e })
    this.failedWith.set(sid, e.code)
    this.ctx.diagnostics.error(e.code, `${sid}: not written: ${e.message}`, e.position, this.harness)
    this.emit('session-error', e, sid)
  }

  private async handle(rec: FerryRecord): Promise<void> {
    // Records handed in by a library caller never went through the stream parser's shape check.
    const problem = typeof (rec as { kind?: unknown })?.kind === 'string' ? recordProblem(rec as never) : 'not a ferry record (an object with a "kind")'
    if (problem) {
      if (rec?.kind === 'session') throw new FerryError(problem, { code: 'bad-record', source: this.harness })
      this.ctx.diagnostics.error('bad-record', `${problem}; skipped`, undefined, this.harness)
      return
    }
    rec = withHeaderDefaults(rec as unknown as Record<string, unknown>, 'ferry') as unknown as FerryRecord
    switch (rec.kind) {
      case 'stream':
        return
      case 'session':
        await this.cutShort()
        this.skipSid = null
        this.currentSid = rec.sid
        this.currentCwd = typeof rec.cwd === 'string' ? rec.cwd : undefined
        await this.parentGate(rec)
        this.current = await this.open(rec)
        return
      case 'end':
        if (!this.current || rec.sid !== this.currentSid) return
        // The read stopped inside this session (an `incomplete` warning, see salvage in the CLI): not the whole session.
        // A plain `complete: false` (lines skipped, read to the end) is still written: the good records are the point.
        {
          const cut = rec.warnings?.find((w) => w?.code === 'incomplete')
          if (cut) return this.cutShort(cut.detail)
        }
        await this.finishCurrent(rec)
        return
      default: {
        const sid = (rec as { sid?: unknown }).sid
        if (typeof sid !== 'string' || sid === '') return
        // Kinds of a later minor version are ignored here, once, as the stream format says (never a writer's TypeError).
        if (!WRITTEN_KINDS.has(rec.kind) && !this.opts.unknownKinds) return
        rec = wellFormedNative(rec)
        if (!this.opts.verbatim && rec.kind === 'boundary' && rec.type === 'compaction' && rec.replaces_history === false && !ownNative(rec, this.harness)) rec = compactionNoteRecord(rec)
        if (!this.current || sid !== this.currentSid) {
          // Header-less session (lenient mode): open one with what the record tells us.
          await this.cutShort()
          const { harness, nativeId } = parseSessionKey(sid)
          const header: SessionRec = {
            kind: 'session',
            ferry: FERRY_FORMAT,
            sid,
            id: `${sid}:session`,
            source: { harness: harness || 'ferry', locator: {} },
            native_id: nativeId,
          }
          this.currentSid = sid
          this.current = await this.open(header)
        }
        await this.current.write(rec)
      }
    }
  }

  /**
   * A sub-agent whose parent this run could not write would land in the store
   * as a stray top-level session (and a later complete run would add it again
   * under its parent): it shares its parent's fate, with the parent's code.
   * A parent that already exists is the exception: the sub-agent goes under
   * the stored parent (each writer resolves it), so a re-run after a run cut
   * between the two completes the store.
   */
  private async parentGate(header: SessionRec): Promise<void> {
    const link = (header as { parent?: { kind?: unknown; sid?: unknown } }).parent
    if (!link || link.kind !== 'subagent' || typeof link.sid !== 'string') return
    if (this.unsettled.has(link.sid)) await this.pending
    const code = this.failedWith.get(link.sid)
    if (code === undefined || code === 'exists') return
    throw new FerryError(`its parent session ${link.sid} was not written`, { code, source: this.harness })
  }

  private async open(header: SessionRec): Promise<SessionWriter> {
    const p = this.openSession(header)
    this.opening = p
    try {
      return await p
    } finally {
      this.opening = null
    }
  }

  /** The open session ends without its `end` record: abort and report it. */
  private async cutShort(why?: string): Promise<void> {
    if (!this.current) return
    const sid = this.currentSid ?? ''
    const msg = why ? `the input is incomplete (${why}); not committed` : 'the input ended before its end record (cut short?); not committed'
    await this.sessionFailed(new FerryError(msg, { code: 'incomplete' }), sid)
  }

  private async finishCurrent(end?: EndRec): Promise<void> {
    const w = this.current
    if (!w) return
    const done = await w.finish(end)
    const cwd = this.currentCwd
    const sid = this.currentSid ?? ''
    this.current = null
    this.currentSid = null
    this.currentCwd = undefined
    const report = (written: Written) => {
      for (const ws of Array.isArray(written) ? written : written ? [written] : []) this.emit('written', ws.cwd || !cwd ? ws : { ...ws, cwd })
    }
    if (!isDeferred(done)) {
      // Reports keep the input's order: a direct commit after deferred ones waits for them.
      if (this.unsettled.size === 0) return report(done)
      this.pending = this.pending.then(() => report(done))
      return
    }
    this.unsettled.add(sid)
    done.later.catch(() => undefined) // Handled below, in order; not an unhandled rejection meanwhile.
    this.pending = this.pending
      .then(() => done.later.then(report, (err: unknown) => this.reportFailure(err, sid)))
      .finally(() => this.unsettled.delete(sid))
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.cutShort()
      .then(() => this.pending)
      .then(() => this.opts.close?.())
      .then((more) => {
        for (const ws of more ?? []) this.emit('written', ws)
        cb(this.failures.length ? new NotWrittenError(this.failures) : null)
      }, (err: Error) => cb(err))
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const w = this.current
    const opening = this.opening
    this.current = null
    // Sessions already complete are committed (as before a failure without deferral); only the open one is aborted.
    this.pending
      .then(() => w?.abort(err))
      .then(() => opening?.then((o) => o.abort(err), () => undefined))
      .then(() => (err ? this.opts.destroy?.(err) : undefined))
      .then(() => cb(err), () => cb(err))
  }
}

/** Whether a record carries this harness's own native unit (it is then written verbatim). */
function ownNative(rec: FerryRecord, harness: string): boolean {
  const f = (rec as { native?: { format?: unknown } }).native?.format
  return typeof f === 'string' && f.startsWith(`${harness}/`)
}

/**
 * A compaction that left the earlier turns as the live history (its summary cannot be read), in a
 * target that would write it as its own compaction record and resume from there: a visible note
 * in the conversation instead, with the boundary's honest summary. The turns before it stay live.
 */
function compactionNoteRecord(b: BoundaryRec): MessageRec {
  return { kind: 'message', sid: b.sid, id: b.id, role: 'user', ts: b.ts ?? null, blocks: [{ type: 'text', text: b.summary?.trim() || compactionNote(undefined) }], x: { 'ferry.note': 'compaction' } }
}

function isDeferred(v: Written | Deferred): v is Deferred {
  return isObj(v) && 'later' in v
}

/**
 * A compaction in a target with no compaction record of its own: the visible text that stands for
 * it, so it is never silent (the summary, or a note that the source kept none readable).
 */
export function compactionNote(summary: string | undefined): string {
  return summary?.trim()
    ? `[The conversation was compacted here. Summary of the earlier part:]\n${summary.trim()}`
    : '[ferry] The conversation was compacted here and the source kept no readable summary; the turns before this point are kept above.'
}

/**
 * Another agent's compaction, in a target that keeps every turn and has no compaction record: the
 * summary message passes, history the compaction kept besides it (Codex's replacement history: the
 * earlier prompts again) is dropped since the turns are all there, and where no message carries the
 * summary a note stands for it, so the compaction is never silent.
 */
export class CompactionSpan {
  private b: { summary?: string } | null = null
  private noted = false

  /** A compaction starts; gives the note of an earlier one nothing carried, if any. */
  start(b: { summary?: string }): string | null {
    const n = this.pending()
    this.b = b
    this.noted = false
    return n
  }

  /** For the next message: a note to write before it (or null), and whether to write the message. */
  message(m: { context?: boolean | null; context_kind?: string | null; blocks: ReadonlyArray<{ type: string; text?: string }> }): [string | null, boolean] {
    const b = this.b
    if (!b) return [null, true]
    const note = this.noted ? null : compactionNote(b.summary)
    if (m.context === true && m.context_kind === 'summary') {
      const s = b.summary?.trim()
      this.noted = true
      // With no summary on the boundary, the summary message is the summary.
      if (!s || m.blocks.some((x) => x.type === 'text' && (x.text ?? '').includes(s))) return [null, true]
      return [note, false]
    }
    this.b = null
    return [note, true]
  }

  /** At the end of the session: the note of a compaction nothing followed. */
  end(): string | null {
    return this.pending()
  }

  private pending(): string | null {
    const n = this.b && !this.noted ? compactionNote(this.b.summary) : null
    this.b = null
    return n
  }
}
