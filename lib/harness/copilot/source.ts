/**
 * Reading one Copilot CLI session: the main agent's events of `events.jsonl`
 * as one session, then each sub-agent's events (interleaved in the same log,
 * told apart by `agentId`) as a session of its own linked to the call that
 * started it, as the other harnesses give sub-agents.
 *
 * Flat memory: the first pass maps the main agent's lines and notes, per
 * sub-agent, only where its lines are (first and last line, byte range); each
 * sub-agent is then read from that byte range only. Problems are reported by
 * the first pass only. With `native: true` the files beside the log
 * (`workspace.yaml`, `checkpoints/`, rewind snapshots) follow the main
 * session as `native` records, so the writer can put the directory back
 * byte for byte.
 */
import { filesUnder } from '../../io/files-under.js'
import { createReadStream } from 'node:fs'
import { lstat, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { openBytes } from '../../io/bytes.js'
import { destroyWhenDrained } from '../../io/drain.js'
import { LineReporter, type LineContext } from '../../io/line-file.js'
import { LineSplitter } from '../../io/lines.js'
import { FerryError } from '../../errors.js'
import { recordId, sessionKey, type FerryRecord, type NativeRec } from '../../model.js'
import type { SessionInfo } from '../types.js'
import { EventMapper, type MapperOptions } from './events.js'
import type { ReadOpts } from './flags.js'
import { EVENTS_FILE, HARNESS } from './paths.js'

/** Side files bigger than this are not carried (reported). */
const SIDE_CAP = 64 * 1024 * 1024
/** ferry's own temp names are never carried. */
const NOT_SIDE = /(^|\/)\.ferry-tmp-[^/]*$/

class CountingReporter extends LineReporter {
  overlongLines = 0
  override overlong(no: number, bytes: number): void {
    this.overlongLines++
    super.overlong(no, bytes)
  }
}

const quietly = (ctx: StoreContext): LineContext => ({ diagnostics: new Diagnostics({ stream: null }), maxLineBytes: ctx.maxLineBytes })

export function read(ctx: StoreContext, info: SessionInfo, opts: ReadOpts = {}): Readable {
  return new EventLogSource(ctx, info, opts)
}

/**
 * The log as records, mapped synchronously inside the byte stream's 'data' handler (no promise per
 * line: what keeps it near the raw loop's speed, as the Codex reader does); the byte stream pauses
 * whenever push() asks to stop. Phases: the main agent over the whole log, then each sub-agent over
 * its byte range.
 */
class EventLogSource extends Readable {
  private bytes: Readable | null = null
  private started = false
  private readonly sid: string
  private readonly base: Omit<MapperOptions, 'reporter' | 'agentId'>

  constructor(
    private readonly ctx: StoreContext,
    private readonly info: SessionInfo,
    private readonly opts: ReadOpts,
  ) {
    super({ objectMode: true, highWaterMark: 64 })
    this.sid = sessionKey(HARNESS, info.id)
    const file = info.path
    this.base = {
      sid: this.sid,
      nativeId: info.id,
      file,
      native: opts.native === true,
      push: (r: FerryRecord) => {
        if (!this.push(r)) this.bytes?.pause()
      },
      info: {
        ...(info.cwd ? { cwd: info.cwd } : {}),
        ...(info.title ? { title: info.title, title_source: info.title_source ?? 'first_prompt' } : {}),
        ...(info.model ? { model: info.model } : {}),
        ...(info.created_at ? { created_at: info.created_at } : {}),
        ...(info.agent_version ? { agent_version: info.agent_version } : {}),
      },
      warn: (detail: string, line: number) => ctx.diagnostics.warn('unsupported', detail, { file, line: line + 1 }, HARNESS),
    }
  }

  override _read(): void {
    if (!this.started) {
      this.started = true
      this.run().catch((err: Error) => destroyWhenDrained(this, err))
      return
    }
    this.bytes?.resume()
  }

  private async run(): Promise<void> {
    const file = this.info.path
    const reporter = new CountingReporter(this.ctx, HARNESS, file)
    const main = new EventMapper({ ...this.base, reporter, agentId: null })
    const { stream } = await openBytes(file)
    await this.phase(stream, main, reporter, 0, 0)
    main.skipped += reporter.overlongLines
    main.finish(true, this.opts.native === true ? await sideFiles(this.ctx, this.sid, dirname(file), this.info.agent_version) : [])
    const quiet = new LineReporter(quietly(this.ctx), HARNESS, file)
    for (const span of main.agents.values()) {
      const sub = new EventMapper({ ...this.base, reporter: quiet, agentId: span.agentId, parentSid: this.sid })
      const range = createReadStream(file, { start: span.startByte, end: span.endByte - 1, highWaterMark: 256 * 1024 })
      await this.phase(range, sub, quiet, span.firstLine, span.startByte)
      sub.finish(true)
    }
    this.bytes = null
    this.push(null)
  }

  /** Maps every line of `stream`, whose first line is line `firstLine` at byte `startByte` of the log. */
  private phase(stream: Readable, mapper: EventMapper, reporter: LineReporter, firstLine: number, startByte: number): Promise<void> {
    this.bytes = stream
    let pos = startByte
    let ending = false
    const splitter = new LineSplitter({
      maxLineBytes: this.ctx.maxLineBytes,
      onLine: (buf, no) => {
        mapper.line(buf, no + firstLine, pos, ending)
        pos += buf.length + 1
      },
      onOverlong: (no, bytes) => {
        reporter.overlong(no + firstLine, bytes)
        pos += bytes + 1
      },
    })
    return new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        try {
          splitter.push(chunk)
        } catch (err) {
          stream.destroy()
          reject(err)
        }
      })
      stream.on('end', () => {
        // Whatever end() flushes is the last line without its newline: a torn one is reported as such.
        ending = true
        try {
          splitter.end()
          resolve()
        } catch (err) {
          reject(err)
        }
      })
      stream.on('error', (err: Error) => {
        const line = splitter.lineNo + firstLine + 1
        reject(new FerryError(`${err.message} (read failed inside line ${line}; every complete line before it was read)`, { code: 'unreadable', source: HARNESS, position: { file: this.info.path, line }, cause: err }))
      })
    })
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.bytes?.destroy()
    cb(err)
  }
}

/** Relative paths of the files beside the log (lib/io/files-under.ts). */
const sideList = (dir: string): Promise<string[]> => filesUnder(dir, (rel) => rel === EVENTS_FILE || NOT_SIDE.test(rel))

async function sideFiles(ctx: StoreContext, sid: string, dir: string, version: string | undefined): Promise<NativeRec[]> {
  const out: NativeRec[] = []
  for (const rel of await sideList(dir)) {
    const path = join(dir, rel)
    try {
      const st = await lstat(path)
      if (st.size > SIDE_CAP) {
        ctx.diagnostics.warn('side-file', `file beside the session larger than ${SIDE_CAP} bytes not carried`, { file: path }, HARNESS)
        continue
      }
      const bytes = await readFile(path)
      const text = bytes.toString('utf8')
      const utf8 = Buffer.from(text, 'utf8').equals(bytes)
      out.push({
        kind: 'native',
        sid,
        id: recordId(sid, `file:${rel}`),
        native_type: `${HARNESS}/file`,
        native: { format: `${HARNESS}/file${version ? `@${version}` : ''}`, file: rel, raw: utf8 ? text : bytes.toString('base64') },
        ...(utf8 ? {} : { x: { 'copilot.encoding': 'base64' } }),
      })
    } catch (err) {
      ctx.diagnostics.warn('side-file', `file beside the session not read: ${(err as Error).message}`, { file: path }, HARNESS)
    }
  }
  return out
}
