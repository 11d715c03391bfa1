/**
 * The Codex source: a rollout (plain or `.jsonl.zst`) as an object-mode
 * Readable of common records.
 *
 * Bytes flow from `openBytes` (zstd decoded in small slices) into the
 * shared capped splitter (lib/io/line-file.ts: the run's --max-line-bytes,
 * over-long lines reported there) and the mapper synchronously, inside the
 * byte stream's 'data' handler; records are pushed straight into this
 * Readable, and the byte stream is paused whenever push() asks us to stop.
 * No promise or iterator step per line: that is what keeps it near the
 * raw-loop speed of readLines' async iteration.
 */
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { FerryError } from '../../errors.js'
import { openBytes } from '../../io/bytes.js'
import { destroyWhenDrained } from '../../io/drain.js'
import { cappedSplitter, LineReporter } from '../../io/line-file.js'
import { sessionKey, type FerryRecord } from '../../model.js'
import type { ReadOptions, SessionInfo } from '../types.js'
import type { ReadOpts } from './flags.js'
import { RolloutMapper } from './mapping.js'
import { withInherited } from './fork.js'

/** The shared reports, plus a count of over-long lines for the `end` record's `skipped_lines`. */
class CountingReporter extends LineReporter {
  overlongLines = 0
  override overlong(no: number, bytes: number): void {
    this.overlongLines++
    super.overlong(no, bytes)
  }
}

export class RolloutSource extends Readable {
  private bytes: Readable | null = null
  private started = false
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
    if (!this.started) {
      this.started = true
      this.start().catch((err: Error) => destroyWhenDrained(this, err))
      return
    }
    this.bytes?.resume()
  }

  private async start(): Promise<void> {
    const file = this.info.path
    const { stream, compressed } = await openBytes(file)
    this.bytes = stream
    const reporter = new CountingReporter(this.ctx, 'codex', file)
    const mapper = new RolloutMapper({
      sid: sessionKey('codex', this.info.id),
      nativeId: this.info.id,
      file,
      compressed,
      native: this.opts.native === true,
      reporter,
      ...(this.info.title ? { title: this.info.title } : {}),
      ...(this.info.title_source ? { titleSource: this.info.title_source } : {}),
      ...(this.info.model ? { model: this.info.model } : {}),
      ...(this.info.archived ? { archived: true } : {}),
      push: (rec: FerryRecord) => {
        if (!this.push(rec)) stream.pause()
      },
    })
    let ending = false
    const splitter = cappedSplitter(this.ctx, reporter, (buf, no) => mapper.line(buf, no, ending))
    stream.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk)
      } catch (err) {
        stream.destroy()
        destroyWhenDrained(this, err as Error)
      }
    })
    stream.on('end', () => {
      // Whatever end() flushes is the last line without its newline: a torn one is reported as such.
      ending = true
      splitter.end()
      mapper.skipped += reporter.overlongLines
      mapper.finish(true)
      this.push(null)
    })
    stream.on('error', (err: Error) => {
      // Everything decoded before the bad frame has been mapped; the partial last line is dropped.
      mapper.skipped += reporter.overlongLines
      mapper.finish(false)
      const offset = err instanceof FerryError ? err.position?.offset : undefined
      const located = new FerryError(
        `${err.message} (${compressed ? 'compressed data ends or breaks' : 'read failed'} inside line ${splitter.lineNo + 1}; every complete line before it was read)`,
        { code: err instanceof FerryError ? err.code : 'unreadable', source: 'codex', position: { file, line: splitter.lineNo + 1, ...(offset === undefined ? {} : { offset }) }, cause: err },
      )
      destroyWhenDrained(this, located)
    })
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.bytes?.destroy()
    cb(err)
  }
}

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  // A fork (forked_from_id) may inherit its parent's history (fork.ts); any other rollout reads alone.
  if (info.fork_of) return Readable.from(withInherited(ctx, info, opts, (i) => new RolloutSource(ctx, i, opts)), { objectMode: true, highWaterMark: 64 })
  return new RolloutSource(ctx, info, opts)
}
