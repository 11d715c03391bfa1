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
import { createReadStream } from 'node:fs'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import type { StoreContext } from '../../context.js'
import { Diagnostics } from '../../diagnostics.js'
import { readableOf } from '../../io/drain.js'
import { LineReporter, readLines, type LineContext } from '../../io/line-file.js'
import { LineSplitter } from '../../io/lines.js'
import { recordId, sessionKey, type FerryRecord, type NativeRec } from '../../model.js'
import type { SessionInfo } from '../types.js'
import { EventMapper, type AgentSpan } from './events.js'
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
  return readableOf(records(ctx, info, opts))
}

async function* records(ctx: StoreContext, info: SessionInfo, opts: ReadOpts): AsyncGenerator<FerryRecord> {
  const file = info.path
  const sid = sessionKey(HARNESS, info.id)
  const native = opts.native === true
  const reporter = new CountingReporter(ctx, HARNESS, file)
  let out: FerryRecord[] = []
  const push = (r: FerryRecord) => void out.push(r)
  const base = {
    sid,
    nativeId: info.id,
    file,
    native,
    push,
    info: {
      ...(info.cwd ? { cwd: info.cwd } : {}),
      ...(info.title ? { title: info.title, title_source: info.title_source ?? 'first_prompt' } : {}),
      ...(info.model ? { model: info.model } : {}),
      ...(info.created_at ? { created_at: info.created_at } : {}),
      ...(info.agent_version ? { agent_version: info.agent_version } : {}),
    },
  }
  const warn = (detail: string, line: number) => ctx.diagnostics.warn('unsupported', detail, { file, line: line + 1 }, HARNESS)
  const main = new EventMapper({ ...base, reporter, agentId: null, warn })
  for await (const l of readLines(ctx, file, { source: HARNESS })) {
    main.line(l.buf, l.no, l.offset, l.unterminated === true)
    if (out.length) {
      yield* out
      out = []
    }
  }
  main.skipped += reporter.overlongLines
  main.finish(true, native ? await sideFiles(ctx, sid, dirname(file), info.agent_version) : [])
  yield* out
  out = []
  // The session's cwd and version, as its header gave them, for the sub-agents' headers.
  const header = { ...base.info }
  for (const span of main.agents.values()) {
    const sub = new EventMapper({ ...base, info: header, reporter: new LineReporter(quietly(ctx), HARNESS, file), agentId: span.agentId, parentSid: sid, warn })
    for await (const l of lineRange(ctx, file, span)) {
      sub.line(l.buf, l.no, l.offset)
      if (out.length) {
        yield* out
        out = []
      }
    }
    sub.finish(true)
    yield* out
    out = []
  }
}

/**
 * The lines of one sub-agent's span of the log (its first line to its last), numbered as in the whole
 * file. Only the span is read, so sub-agents cost the bytes they cover, not the log before them.
 */
async function* lineRange(ctx: StoreContext, file: string, span: AgentSpan): AsyncGenerator<{ buf: Buffer; no: number; offset: number }> {
  let batch: Array<{ buf: Buffer; no: number; offset: number }> = []
  let pos = span.startByte
  const splitter = new LineSplitter({
    maxLineBytes: ctx.maxLineBytes,
    onLine: (buf, no) => {
      batch.push({ buf, no: no + span.firstLine, offset: pos })
      pos += buf.length + 1
    },
    onOverlong: (_no, bytes) => {
      pos += bytes + 1
    },
  })
  const stream = createReadStream(file, { start: span.startByte, end: span.endByte - 1, highWaterMark: 256 * 1024 })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      splitter.push(chunk)
      if (batch.length) {
        const out = batch
        batch = []
        yield* out
      }
    }
    splitter.end()
    yield* batch
  } finally {
    stream.destroy()
  }
}

/** Relative paths of the files beside the log, depth-first, sorted; symlinks are not followed. */
async function sideList(dir: string, sub = '', depth = 0): Promise<string[]> {
  if (depth > 4) return []
  let ents
  try {
    ents = await readdir(join(dir, sub), { withFileTypes: true })
  } catch {
    return []
  }
  const out: string[] = []
  for (const e of ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = sub ? `${sub}/${e.name}` : e.name
    if (rel === EVENTS_FILE || NOT_SIDE.test(rel)) continue
    if (e.isDirectory()) out.push(...(await sideList(dir, rel, depth + 1)))
    else if (e.isFile()) out.push(rel)
  }
  return out
}

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
