/**
 * The Codex source: a rollout (plain or `.jsonl.zst`) as an object-mode
 * Readable of common records.
 *
 * Bytes flow from `openBytes` (zstd decoded in small slices) into a
 * LineSplitter and the mapper synchronously, inside the byte stream's
 * 'data' handler; records are pushed straight into this Readable, and the
 * byte stream is paused whenever push() asks us to stop. No promise or
 * iterator step per line: that is what keeps it near the raw-loop speed.
 */
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { FerryError } from '../../errors.js'
import { openBytes } from '../../io/bytes.js'
import { LineSplitter } from '../../io/lines.js'
import { sessionKey, type FerryRecord } from '../../model.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import { RolloutMapper } from './mapping.js'

export class RolloutSource extends Readable {
  private bytes: Readable | null = null
  private started = false
  private pendingError: Error | null = null
  private readonly ctx: StoreContext
  private readonly info: SessionInfo
  private readonly opts: ReadOptions

  constructor(ctx: StoreContext, info: SessionInfo, opts: ReadOptions = {}) {
    super({ objectMode: true, highWaterMark: 64 })
    this.ctx = ctx
    this.info = info
    this.opts = opts
  }

  override _read(): void {
    if (this.pendingError) return this.failWhenDrained()
    if (!this.started) {
      this.started = true
      this.start().catch((err: Error) => this.destroy(err))
      return
    }
    this.bytes?.resume()
  }

  private async start(): Promise<void> {
    const file = this.info.path
    const { stream, compressed } = await openBytes(file)
    this.bytes = stream
    const mapper = new RolloutMapper({
      sid: sessionKey('codex', this.info.id),
      nativeId: this.info.id,
      file,
      compressed,
      native: this.opts.native === true,
      diagnostics: this.ctx.diagnostics,
      ...(this.info.title ? { title: this.info.title } : {}),
      ...(this.info.model ? { model: this.info.model } : {}),
      ...(this.info.archived ? { archived: true } : {}),
      push: (rec: FerryRecord) => {
        if (!this.push(rec)) stream.pause()
      },
    })
    const maxLineBytes = this.ctx.maxLineBytes
    const splitter = new LineSplitter({
      ...(maxLineBytes ? { maxLineBytes } : {}),
      onLine: (buf, no) => mapper.line(buf, no),
      onOverlong: (no, n) => {
        mapper.skipped++
        this.ctx.diagnostics.error('line-too-long', `line of ${n} bytes exceeds the line cap, skipped`, { file, line: no + 1 })
      },
    })
    stream.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk)
      } catch (err) {
        stream.destroy()
        this.destroy(err as Error)
      }
    })
    stream.on('end', () => {
      // A torn last line (crash mid-write) is reported by the mapper and skipped.
      splitter.end()
      mapper.finish(true)
      this.push(null)
    })
    stream.on('error', (err: Error) => {
      // Everything decoded before the bad frame has been mapped; the partial last line is dropped.
      mapper.finish(false)
      const offset = err instanceof FerryError ? err.position?.offset : undefined
      this.pendingError = new FerryError(
        `${err.message} (compressed data ends or breaks inside line ${splitter.lineNo + 1}; every complete line before it was read)`,
        { code: err instanceof FerryError ? err.code : 'unreadable', position: { file, line: splitter.lineNo + 1, ...(offset === undefined ? {} : { offset }) }, cause: err },
      )
      this.failWhenDrained()
    })
  }

  /** Fails only once every record pushed before the error has been consumed. */
  private failWhenDrained(): void {
    if (this.destroyed || !this.pendingError) return
    if (this.readableLength === 0) {
      const err = this.pendingError
      this.pendingError = null
      this.destroy(err)
      return
    }
    setTimeout(() => this.failWhenDrained(), 5)
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.bytes?.destroy()
    cb(err)
  }
}

export function readRollout(ctx: StoreContext, info: SessionInfo, opts: ReadOptions = {}): Readable {
  return new RolloutSource(ctx, info, opts)
}
