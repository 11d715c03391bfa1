/**
 * The shared shape of every sink: a Writable of FerryRecords that cuts the
 * stream into sessions and hands each one to a per-session writer that the
 * harness provides. It handles the stream rules once (preamble records,
 * header-less sessions, `end` records, errors) so harness sinks only know
 * their own format.
 */
import { Writable } from 'node:stream'
import { FERRY_FORMAT, parseSessionKey, type EndRec, type FerryRecord, type SessionRec } from '../model.js'
import type { WrittenSession } from './types.js'

export const REDACTED_SUFFIX = ' [redacted]'

export interface SessionWriter {
  /** One record of the open session (never `session`, `end` or `stream`). */
  write(rec: FerryRecord): void | Promise<void>
  /** The session is complete: commit it (rename into place) and say what was written. */
  finish(end?: EndRec): Promise<WrittenSession | WrittenSession[] | void>
  /** Something failed: remove every temp file of this session. */
  abort(err?: unknown): Promise<void>
}

export type OpenSession = (header: SessionRec) => Promise<SessionWriter>

export interface SessionSinkOptions {
  /** Called once after the last session, before 'finish' (e.g. to write a document footer). */
  close?: () => Promise<WrittenSession[] | void>
  /** Called when the sink is destroyed with an error. */
  destroy?: (err: unknown) => Promise<void>
  /**
   * One session failed (exists already, invalid): return true to skip it and
   * go on with the next session; otherwise the whole sink fails.
   */
  onSessionError?: (err: unknown, sid: string) => boolean
}

/**
 * A Writable that emits 'written' (WrittenSession) for each committed session,
 * and 'session-error' (err, sid) for a session it skipped, when anyone listens.
 */
export class SessionSink extends Writable {
  private current: SessionWriter | null = null
  private currentSid: string | null = null
  private readonly openSession: OpenSession
  private readonly opts: SessionSinkOptions

  constructor(open: OpenSession, opts: SessionSinkOptions = {}) {
    super({ objectMode: true, highWaterMark: 64 })
    this.openSession = open
    this.opts = opts
  }

  private skipSid: string | null = null
  private redacted = false

  override _write(rec: FerryRecord, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.skipSid !== null && 'sid' in rec && rec.sid === this.skipSid && rec.kind !== 'session') return cb()
    const sid = this.currentSid ?? ('sid' in rec ? rec.sid : '')
    this.handle(rec).then(() => cb(), (err: Error) => this.sessionFailed(err, 'sid' in rec && rec.kind === 'session' ? rec.sid : sid).then(() => cb(), (e: Error) => cb(e)))
  }

  private async sessionFailed(err: Error, sid: string): Promise<void> {
    const w = this.current
    this.current = null
    this.currentSid = null
    await w?.abort(err)
    // A listener on 'session-error' (the CLI has one) turns one bad session into a report, not a failed run.
    const handled = this.opts.onSessionError?.(err, sid) ?? (this.listenerCount('session-error') > 0 && this.emit('session-error', err, sid))
    if (!handled) throw err
    this.skipSid = sid
  }

  private async handle(rec: FerryRecord): Promise<void> {
    switch (rec.kind) {
      case 'stream':
        return
      case 'session':
        this.skipSid = null
        this.redacted = rec.redacted === true
        await this.finishCurrent()
        this.current = await this.openSession(this.redacted ? { ...rec, title: this.redactedTitle(rec.title) ?? '[redacted]' } : rec)
        this.currentSid = rec.sid
        return
      case 'end':
        if (this.current && rec.sid === this.currentSid) await this.finishCurrent(rec.title === undefined ? rec : { ...rec, title: this.redactedTitle(rec.title)! })
        return
      default:
        if (!this.current || rec.sid !== this.currentSid) {
          // Header-less session (lenient mode): open one with what the record tells us.
          await this.finishCurrent()
          const { harness, nativeId } = parseSessionKey(rec.sid)
          const header: SessionRec = {
            kind: 'session',
            ferry: FERRY_FORMAT,
            sid: rec.sid,
            id: `${rec.sid}:session`,
            source: { harness: harness || 'ferry', locator: {} },
            native_id: nativeId,
          }
          this.current = await this.openSession(header)
          this.currentSid = rec.sid
        }
        await this.current.write(rec)
    }
  }

  /**
   * A redacted session is marked in the title every agent shows, because its
   * tool inputs are not what really ran.
   */
  private redactedTitle(title: string | undefined): string | undefined {
    if (!this.redacted || title === undefined || title.endsWith(REDACTED_SUFFIX)) return title
    return title + REDACTED_SUFFIX
  }

  private async finishCurrent(end?: EndRec): Promise<void> {
    const w = this.current
    if (!w) return
    this.current = null
    this.currentSid = null
    const written = await w.finish(end)
    for (const ws of Array.isArray(written) ? written : written ? [written] : []) this.emit('written', ws)
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.finishCurrent()
      .then(() => this.opts.close?.())
      .then((more) => {
        for (const ws of more ?? []) this.emit('written', ws)
        cb()
      }, (err: Error) => cb(err))
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const w = this.current
    this.current = null
    Promise.resolve()
      .then(() => w?.abort(err))
      .then(() => (err ? this.opts.destroy?.(err) : undefined))
      .then(() => cb(err), () => cb(err))
  }
}
