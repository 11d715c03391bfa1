/**
 * `continue`: read one session, write it into another harness's real store
 * (remapping a missing cwd), remember the copy for idempotence, and return
 * the command that resumes it in the target agent.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { xdgDir, type StoreContext } from '../context.js'
import { FerryError, NotWrittenError, UsageError } from '../errors.js'
import type { FerryRecord } from '../model.js'
import { mapRecords, pipeline } from '../io/pipeline.js'
import { resolveRef } from '../harness/refs.js'
import { getHarness } from '../harness/registry.js'
import type { Harness, WrittenSession } from '../harness/types.js'

export interface ResumeCommand {
  argv: string[]
  cwd: string
}

export interface ContinueOptions {
  /** Directory to resume in; default: the session's own cwd when it exists, else the current directory. */
  cwd?: string
  /** Write a fresh copy even when an unchanged one exists. */
  fresh?: boolean
  /** Where the idempotence index lives; default $XDG_STATE_HOME/ferry (or ~/.local/state/ferry). */
  stateDir?: string
  /** Directory used when the session's cwd is missing; default process.cwd(). */
  fallbackCwd?: string
}

export interface ContinueResult {
  written: WrittenSession
  command: ResumeCommand
  /** True when an unchanged earlier copy was reused instead of writing. */
  reused: boolean
  /** Messages for stderr (cwd remapped, a newer copy written, …). */
  notes: string[]
}

/** The resume command of `h` for a written session, from its `resumeHint` (`claude --resume <id>`). */
export function resumeCommand(h: Harness, id: string, cwd: string): ResumeCommand {
  if (!h.resumeHint) throw new UsageError(`${h.name} (${h.id}) has no resume command`)
  return { argv: h.resumeHint.split(/\s+/).map((a) => a.replace('<id>', id)), cwd }
}

/** The binary a harness's resume command runs. */
export function resumeBinary(h: Harness): string | undefined {
  return h.resumeHint?.split(/\s+/)[0]
}

/**
 * A shell line for a resume command: `cd DIR && claude --resume ID`; with the step a written
 * session still needs first (an import the client was not there to run), both, in order.
 */
export function commandLine(c: ResumeCommand, before?: ResumeCommand): string {
  const q = (s: string) => (/^[\w@%+=:,./=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
  const resume = `cd ${q(c.cwd)} && ${c.argv.map(q).join(' ')}`
  if (!before) return resume
  const first = `cd ${q(before.cwd)} && ${before.argv.map(q).join(' ')}`
  return before.cwd === c.cwd ? `${first} && ${c.argv.map(q).join(' ')}` : `${first} && ${resume}`
}

interface IndexEntry {
  fingerprint: string
  written: WrittenSession
  cwd: string
  at: string
}
type Index = Record<string, IndexEntry[]>

/**
 * The target home's $XDG_STATE_HOME/ferry/continued.json (or under its
 * ~/.local/state): the index belongs with the stores it points into, so a
 * `--home B` run never answers with a copy made under another home.
 */
function defaultIndexFile(ctx: StoreContext): string {
  return join(xdgDir(ctx, 'state'), 'ferry/continued.json')
}

/** Whether the copy an index entry names is still a session of the target store, under its root. */
async function stillThere(ctx: StoreContext, target: Harness, e: IndexEntry): Promise<boolean> {
  const root = resolve(target.root(ctx))
  const p = resolve(e.written.path)
  if (p !== root && !p.startsWith(root.endsWith(sep) ? root : root + sep)) return false
  if (!existsSync(p)) return false
  const found = await resolveRef(ctx, `${target.id}:${e.written.id}`).catch(() => null)
  return found?.harness.id === target.id && found.session.id === e.written.id
}

function loadIndex(file: string): Index {
  if (!existsSync(file)) return {}
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown
    return v && typeof v === 'object' ? (v as Index) : {}
  } catch {
    return {}
  }
}

function saveIndex(file: string, idx: Index): void {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(idx, null, 1) + '\n')
  renameSync(tmp, file)
}

function fingerprint(path: string | undefined, info: { updated_at?: string; message_count?: number }): string {
  const h = createHash('sha256')
  if (path && existsSync(path)) {
    const st = statSync(path)
    h.update(`${st.size}:${st.mtimeMs}`)
  }
  h.update(`${info.updated_at ?? ''}:${info.message_count ?? ''}`)
  return h.digest('hex').slice(0, 16)
}

/** Continues session `ref` in harness `to`. */
export async function continueSession(ctx: StoreContext, ref: string, to: string, opts: ContinueOptions = {}): Promise<ContinueResult> {
  const target = getHarness(to)
  // Checked before anything is written: a store with no resume command (the archive) is not an agent to continue in.
  if (!target.sink || target.kind !== 'store' || !target.resumeHint) throw new UsageError(`${target.name} (${target.id}) cannot be continued into: it has no resume command`)
  const { harness, session } = await resolveRef(ctx, ref)
  if (harness.id === target.id) throw new UsageError(`${ref} is already a ${target.name} session: resume it there (${resumeCommand(target, session.id, session.cwd ?? '.').argv.join(' ')})`)
  const notes: string[] = []
  let cwd = opts.cwd ?? session.cwd
  if (!cwd || !existsSync(cwd)) {
    const fb = opts.fallbackCwd ?? process.cwd()
    if (!opts.cwd) notes.push(`session directory ${cwd ?? '(none)'} does not exist here; continuing in ${fb} (pass --cwd DIR to choose)`)
    else notes.push(`--cwd ${cwd} does not exist; continuing in ${fb}`)
    cwd = fb
  }
  const key = `${harness.id}:${session.id}>${target.id}@${cwd}`
  const fp = fingerprint(session.path, session)
  const file = opts.stateDir != null ? join(opts.stateDir, 'continued.json') : defaultIndexFile(ctx)
  const idx = loadIndex(file)
  // A stream on stdin has no file to fingerprint: one piped stream is not another, so nothing is reused or recorded for it.
  const fromStdin = ref === '-'
  const prior = fromStdin ? [] : (idx[key] ?? []).filter((e) => existsSync(e.written.path))
  let same = prior.find((e) => e.fingerprint === fp)
  // A copy is reused only when the target store still holds it (a deleted ZCode session keeps its db file).
  if (same && !opts.fresh && !(await stillThere(ctx, target, same))) same = undefined
  if (same && !opts.fresh) {
    notes.push(`unchanged since ${same.at}: reusing ${target.id}:${same.written.id} (pass --new for a fresh copy)`)
    return { written: same.written, command: resumeCommand(target, same.written.id, cwd), reused: true, notes }
  }
  // A fresh copy gets its own id: the sink derives ids from the source sid.
  // --new is also the way past a copy the index does not know (from stdin, or a session of that id `write` put there).
  const suffix = prior.length > 0 || opts.fresh ? `#${createHash('sha256').update(`${fp}:${Date.now()}:${prior.length}`).digest('hex').slice(0, 8)}` : ''
  const source = harness.read!(ctx, session, { native: false })
  const remap = mapRecords((rec: FerryRecord) => {
    const r = suffix && 'sid' in rec ? ({ ...rec, sid: rec.sid + suffix } as FerryRecord) : rec
    if (r.kind === 'session') return { ...r, cwd, ...(suffix ? { native_id: r.native_id + suffix } : {}) } as FerryRecord
    return r
  })
  const sink = target.sink(ctx, {})
  const written: WrittenSession[] = []
  sink.on('written', (ws: WrittenSession) => written.push(ws))
  try {
    await pipeline(source, remap, sink)
  } catch (err) {
    // The target holds a session with this copy's id that no `continue` wrote: say the flag continue has for it.
    if (err instanceof NotWrittenError && !opts.fresh && err.failures.every((f) => f.error.code === 'exists')) {
      const at = err.failures[0]!.error.position
      throw new FerryError(`${ref}: the ${target.name} store already holds a session with this copy's id: pass --new for a fresh copy`, { code: 'exists', source: target.id, ...(at ? { position: at } : {}) })
    }
    throw err
  }
  const main = written[0]
  if (!main) throw new UsageError(`${ref}: nothing was written`)
  if (prior.length > 0 && !same) notes.push(`the source grew since the last copy; wrote a new session ${main.id} (newer than ${prior.map((e) => e.written.id).join(', ')})`)
  if (!fromStdin) {
    idx[key] = [...prior, { fingerprint: fp, written: main, cwd, at: new Date().toISOString() }]
    saveIndex(file, idx)
  }
  return { written: main, command: resumeCommand(target, main.id, cwd), reused: false, notes }
}
