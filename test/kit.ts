/**
 * The test kit: the one set of operations every test uses. It lays out real
 * files as the agents lay them out, builds contexts over them, and runs the
 * real code: a harness's reader and sink through the registry, the compiled
 * CLI as a child process, real OS pipes between CLI processes. Nothing here
 * stands in for ferry's own code.
 *
 * - Paths: `ROOT`, `FERRY` (bin/ferry.js), `FIXTURES`.
 * - Load: `SLOWDOWN` (FERRY_TEST_SLOWDOWN, set by test/run.mjs from the
 *   machine's load), `scaled(ms)`, `fileTimeout(t, ms)`, `timedOutNote(ms)`.
 * - Files: `tempDir(t)`, `jsonl(text)`, `files(dir)`, `tree(dir)`, `zstd(file)`,
 *   `rollouts(dir)`, `gen(home, …)` (bench/gen.mjs), `sampleHome(t)`.
 * - Records: `complete(records)`, `collect(iterable)`.
 * - A harness: `kit(id)` gives the same operations for every harness:
 *   `home(t, …variants)` (a temp copy of fixtures/<id>/… laid out as the
 *   agent lays it out), `empty(t)`, `ctx(dir)` (createContext pointing at
 *   it), `discover`, `resolve`, `read`, `readSettled`, `write`,
 *   `writeSettled`, `cli(dir)` (the CLI flags naming the same store).
 * - The CLI: `ferry(args, opts)`, `spawnFerry(args, opts)` (for signals),
 *   `pipe(stages, opts)` (ferry | ferry | …), `sh(cmd, opts)` (a shell line
 *   with `$FERRY`).
 */
// Sinks map tool names through the vocabularies the registry registers.
import '../lib/harness/registry.js'
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { createContext, type StoreContext } from '../lib/context.js'
import { Diagnostics } from '../lib/diagnostics.js'
import { NotWrittenError } from '../lib/errors.js'
import { collect } from '../lib/io/pipeline.js'
import { getHarness } from '../lib/harness/registry.js'
import type { Harness, SessionInfo, WrittenSession } from '../lib/harness/types.js'
import type { FerryRecord } from '../lib/model.js'
// @ts-ignore plain JS fixture builders, shared with the sample-store scripts
import { createDb as createOpencodeDb, insertDocument, idMaker } from '../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { archivedSession, demoSession, richSessions } from '../fixtures/opencode/scenarios.mjs'
// @ts-ignore
import { createDb as createZCodeDb } from '../fixtures/zcode/zcode-db.mjs'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const FERRY = join(ROOT, 'bin', 'ferry.js')
export const FIXTURES = join(ROOT, 'fixtures')

/** What every `t` passed to the kit has (a tap Test). */
export interface T {
  teardown: (fn: () => void) => void
}

// ---------------------------------------------------------------- load

/**
 * How much slower than a quiet machine this run is expected to be: set by
 * test/run.mjs from the load average (FERRY_TEST_SLOWDOWN, at least 1).
 * Every timeout the kit applies is multiplied by it.
 */
export const SLOWDOWN: number = (() => {
  const v = Number(process.env.FERRY_TEST_SLOWDOWN)
  return Number.isFinite(v) && v >= 1 ? v : 1
})()

/** A timeout in ms for a quiet machine, scaled to this one. */
export const scaled = (ms: number): number => Math.round(ms * SLOWDOWN)

/** The words a timed-out wait fails with. */
export const timedOutNote = (ms: number): string => `timed out after ${Math.round(scaled(ms) / 1000)}s (×${SLOWDOWN} for load)`

/**
 * A test file's own timeout (for files that need more than the runner's
 * default): `ms` on a quiet machine, scaled. Tells tap's runner (the root
 * test's setTimeout does) and leaves a comment test/run.mjs reads to word the
 * failure if it expires.
 */
export function fileTimeout(t: { setTimeout: (n: number) => void; comment: (...m: unknown[]) => void }, ms: number): void {
  t.setTimeout(scaled(ms))
  t.comment(`ferry-timeout ${scaled(ms)} ${SLOWDOWN}`)
}

// ---------------------------------------------------------------- files

/** A temp directory removed when the test ends. */
export function tempDir(t: T, prefix = 'ferry-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Parses a JSON-lines string into objects (blank lines ignored). */
export function jsonl(text: string): any[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
}

/** JSON lines where only empty lines are skipped (a line of blanks fails to parse). */
export function lines(text: string): any[] {
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
}

/** Relative paths of every file under dir, sorted (none when it does not exist). */
export function files(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`)
      else out.push(`${rel}${e.name}`)
    }
  }
  if (existsSync(dir)) walk(dir, '')
  return out.sort()
}

/** Every file under dir (relative path → bytes), optionally leaving some out. */
export function tree(dir: string, skip: RegExp = /^$/): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name
      if (skip.test(rel)) continue
      if (e.isDirectory()) walk(rel)
      else out.set(rel, readFileSync(join(dir, rel)))
    }
  }
  if (statSync(dir).isDirectory()) walk('')
  return out
}

/** Codex rollout files (plain or .zst) under dir, absolute and sorted. */
export function rollouts(dir: string): string[] {
  return existsSync(dir) ? files(dir).filter((f) => /(^|\/)rollout-[^/]*\.jsonl(\.zst)?$/.test(f)).map((f) => join(dir, f)) : []
}

/** Compresses a file with the real zstd(1); returns the .zst path. */
export function zstd(file: string, keep = true): string {
  execFileSync('zstd', ['-q', '-3', '-f', ...(keep ? ['-k'] : ['--rm']), file])
  return `${file}.zst`
}

/** Whether a program is on PATH (answers `--version`). */
export function has(cmd: string): boolean {
  return spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0
}

export interface GenOptions {
  harness: 'claude' | 'codex' | string
  seed: string
  sessions?: number
  lines?: number
  /** bench/gen.mjs --big (one session of about this size, e.g. 128M). */
  big?: string
}

/** Generates sessions as the agent lays them out into `home` (bench/gen.mjs, deterministic per seed). */
export function gen(home: string, o: GenOptions): string {
  const args = [join(ROOT, 'bench', 'gen.mjs'), '--harness', o.harness, '--out', home, '--seed', o.seed, '--quiet']
  if (o.sessions !== undefined) args.push('--sessions', String(o.sessions))
  if (o.lines !== undefined) args.push('--lines-per-session', String(o.lines))
  if (o.big !== undefined) args.push('--big', o.big)
  execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  return home
}

/** A temp copy of the sample HOME (fixtures/home: one session in every harness's store). */
export function sampleHome(t: T): string {
  const home = join(tempDir(t, 'ferry-home-'), 'home')
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  return home
}

// ---------------------------------------------------------------- records

/**
 * Closes every session of a hand-built record list with its `end` record
 * where it has none: sinks commit a session only on its end (#11 defect 5).
 */
export function complete<T extends { kind: string; sid?: unknown }>(records: T[]): T[] {
  const out: T[] = []
  let open: string | null = null
  const close = () => {
    if (open !== null) out.push({ kind: 'end', sid: open, id: `${open}:end`, complete: true } as unknown as T)
    open = null
  }
  for (const r of records) {
    const sid = typeof r.sid === 'string' ? r.sid : null
    if (r.kind === 'end') {
      if (sid === open) open = null
      out.push(r)
      continue
    }
    if (r.kind === 'session' || (sid !== null && sid !== open && r.kind !== 'stream')) close()
    if (sid !== null && r.kind !== 'stream') open = sid
    out.push(r)
  }
  close()
  return out
}

/** Every item of a record stream or an async iterable (lib's own). */
export { collect }

// ---------------------------------------------------------------- contexts

export interface ContextOptions {
  /** The HOME the stores are under. */
  home: string
  /** A store root given for one harness (what its root flag does). */
  roots?: Record<string, string>
  /** More environment (the context sees only PATH=/nonexistent, HOME and this). */
  env?: NodeJS.ProcessEnv
  maxLineBytes?: number
}

/**
 * A context over a HOME as the CLI builds one for `--home`: the environment is
 * only HOME, a PATH where no agent is found (the real clients are never
 * started) and what the test adds; diagnostics collected, not printed.
 */
export function context(o: ContextOptions): StoreContext {
  const home = resolve(o.home)
  return createContext({
    env: { PATH: '/nonexistent', HOME: home, ...o.env },
    roots: o.roots ?? {},
    diagnostics: new Diagnostics({ stream: null }),
    ...(o.maxLineBytes ? { maxLineBytes: o.maxLineBytes } : {}),
  })
}

// ---------------------------------------------------------------- harnesses

/** How a harness's fixtures are laid out: each variant makes a store in `dest` as the agent does. */
interface Layout {
  /** `home`: the variants are HOMEs; `root`: they are the store root itself (what the root flag names). */
  store: 'home' | 'root'
  variants: Record<string, (dest: string) => void>
  /** The variants `home(t)` lays out when given none. */
  default: string[]
}

const copy = (rel: string) => (dest: string) => cpSync(join(FIXTURES, rel), dest, { recursive: true })

/** One database of OpenCode 1.18.33's shape holding every scenario (fixtures/opencode/scenarios.mjs). */
function opencodeScenarios(home: string) {
  const dir = join(home, '.local/share/opencode')
  mkdirSync(dir, { recursive: true })
  const db = createOpencodeDb(join(dir, 'opencode.db'))
  const ids = idMaker()
  const demo = demoSession(ids)
  const rich = richSessions(ids)
  const arch = archivedSession(ids)
  insertDocument(db, demo)
  insertDocument(db, rich.parent, { rawParts: { [rich.badPart]: '{"type":"text","text":"cut off' } })
  insertDocument(db, rich.child)
  insertDocument(db, arch, { archived: 1795800009000 })
  db.close()
  return { home, db: join(dir, 'opencode.db'), demo, rich, arch }
}

const LAYOUTS: Record<string, Layout> = {
  'claude-code': { store: 'home', variants: { home: copy('claude-code/home') }, default: ['home'] },
  codex: { store: 'home', variants: { classic: copy('codex/classic'), codemode: copy('codex/codemode'), legacy: copy('codex/legacy') }, default: ['classic'] },
  cursor: {
    store: 'home',
    variants: {
      home: copy('cursor/home'),
      // Every Cursor store (transcripts, chats, the IDE's databases), generated.
      stores: (dest) => {
        const r = spawnSync(process.execPath, [join(FIXTURES, 'cursor', 'make-fixtures.mjs'), dest], { cwd: ROOT })
        if (r.status !== 0) throw new Error(String(r.stderr))
      },
    },
    default: ['home'],
  },
  grok: { store: 'root', variants: { v1: copy('grok/v1'), v02: copy('grok/v02'), edge: copy('grok/edge') }, default: ['v1'] },
  opencode: {
    store: 'home',
    variants: { scenarios: (dest) => void opencodeScenarios(dest), sample: copy('home/.local') },
    default: ['scenarios'],
  },
  zcode: {
    store: 'home',
    variants: {
      home: copy('zcode/home'),
      // An empty, migrated database: what ZCode's first run leaves.
      empty: (dest) => createZCodeDb(join(dest, '.zcode', 'cli', 'db', 'db.sqlite')).close(),
    },
    default: ['home'],
  },
  ferry: { store: 'home', variants: {}, default: [] },
}

/** Ids and places in the committed fixtures (read them in place, or copy them with `kit(id).home(t)`). */
export const FIXTURE = {
  claudeCode: {
    home: join(FIXTURES, 'claude-code', 'home'),
    project: join(FIXTURES, 'claude-code', 'home', '.claude', 'projects', '-home-dev-demo-app'),
    feature: '3f1c9a2e-5b7d-4c1e-9a3f-000000000001',
    /** A session with a torn line. */
    damaged: '7c1e4b2d-9f3a-4e5b-8c7d-000000000002',
    agent: 'a1b2c3d4e5f607182',
    /** The session longLineSession() writes. */
    long: '5a0b7c3d-1e2f-4a5b-8c6d-000000000005',
  },
  codex: {
    classic: '019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b',
    codemode: '019a4a2b-1000-7abc-8def-0123456789ab',
    legacy: '5973b6c0-94b8-487b-a530-2aeb6098ae0e',
    archived: '0199a0b1-2c3d-7e4f-8a5b-6c7d8e9f0a1b',
  },
  grok: { root: join(FIXTURES, 'grok') },
} as const

/**
 * A three-entry Claude Code transcript as the client writes it, with a
 * file-history snapshot of about `bytes` as its second line, written into
 * `home`'s store (session FIXTURE.claudeCode.long); returns its path.
 */
export function longLineSession(home: string, bytes: number): string {
  const LONG_ID = FIXTURE.claudeCode.long
  const dir = join(home, '.claude', 'projects', '-home-dev-demo-app')
  mkdirSync(dir, { recursive: true })
  const env = { isSidechain: false, userType: 'external', cwd: '/home/dev/demo-app', sessionId: LONG_ID, version: '2.1.332', gitBranch: 'main' }
  const u = (n: number) => `5a0b7c3d-0000-4000-8000-00000000000${n}`
  const entries = [
    { parentUuid: null, ...env, type: 'user', message: { role: 'user', content: 'Print the log.' }, uuid: u(1), timestamp: '2026-11-04T08:00:00.000Z' },
    { type: 'file-history-snapshot', messageId: u(1), snapshot: { messageId: u(1), trackedFileBackups: { 'build.log': { backupFileName: null, version: 1, content: 'x'.repeat(bytes) } }, timestamp: '2026-11-04T08:00:00.500Z' }, isSnapshotUpdate: false },
    { parentUuid: u(1), ...env, type: 'assistant', message: { id: 'msg_syn_L1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Here it is.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } }, uuid: u(2), timestamp: '2026-11-04T08:00:01.000Z' },
    { parentUuid: u(2), ...env, type: 'user', message: { role: 'user', content: 'Thanks.' }, uuid: u(3), timestamp: '2026-11-04T08:00:02.000Z' },
  ]
  const path = join(dir, `${LONG_ID}.jsonl`)
  writeFileSync(path, entries.map((e) => JSON.stringify(e) + '\n').join(''))
  return path
}

/** A HOME holding OpenCode's database with every scenario, and the scenarios (their ids and documents). */
export function opencodeHome(t: T) {
  return opencodeScenarios(join(tempDir(t, 'ferry-oc-'), 'home'))
}

export interface ReadSettled {
  recs: FerryRecord[]
  /** What the reader threw after `recs`, if it did. */
  error?: any
}

export interface WriteSettled {
  written: WrittenSession[]
  /** `session-error` events. */
  errors: unknown[]
  /** The sink policy's rejection: sessions not written. */
  rejected?: NotWrittenError
}

export interface WriteOpts {
  /** Close sessions without an `end` (default: true; the sink commits on it). */
  complete?: boolean
  [k: string]: unknown
}

/** The same operations for every harness, over its fixtures and through the registry. */
export interface HarnessKit {
  id: string
  /** The registry's harness. */
  h: Harness
  /** fixtures/<id>: the committed fixtures (read them, never write them). */
  fixtures: string
  /** Whether `home`/`empty`/`ctx` directories are HOMEs or store roots. */
  store: 'home' | 'root'
  /** A temp copy of the named fixture variants (default: the harness's usual one) laid out as the agent does. */
  home(t: T, ...variants: string[]): string
  /** An empty temp HOME (or root). */
  empty(t: T): string
  /** A context pointing at `dir` (a HOME, or for a root-layout harness its store root). */
  ctx(dir: string, opts?: { env?: NodeJS.ProcessEnv; maxLineBytes?: number; roots?: Record<string, string> }): StoreContext
  discover(ctx: StoreContext, opts?: { all?: boolean }): Promise<SessionInfo[]>
  resolve(ctx: StoreContext, ref: string): Promise<SessionInfo>
  /** Every record of a session (by ref or info); throws what the reader throws. */
  read(ctx: StoreContext, ref: string | SessionInfo, opts?: Record<string, unknown>): Promise<FerryRecord[]>
  /** Every record a reader gives before it ends or throws, and what it threw. */
  readSettled(ctx: StoreContext, ref: string | SessionInfo, opts?: Record<string, unknown>): Promise<ReadSettled>
  /** Writes through the harness's sink; rejects as the pipeline does (NotWrittenError for the sink policy). */
  write(ctx: StoreContext, recs: FerryRecord[], opts?: WriteOpts): Promise<WrittenSession[]>
  /** Writes through the sink; sessions the policy refused come back in `rejected`. */
  writeSettled(ctx: StoreContext, recs: FerryRecord[], opts?: WriteOpts): Promise<WriteSettled>
  /** The CLI arguments naming the store at `dir` (`--home DIR`, or the root flag). */
  cli(dir: string): string[]
}

/** The kit for one harness, by registry id. */
export function kit(id: string): HarnessKit {
  const h = getHarness(id)
  const layout = LAYOUTS[id] ?? { store: 'home', variants: {}, default: [] }
  const ctx: HarnessKit['ctx'] = (dir, opts = {}) =>
    layout.store === 'root'
      ? context({ home: '/nonexistent-home', roots: { [id]: dir, ...opts.roots }, ...(opts.env ? { env: opts.env } : {}), ...(opts.maxLineBytes ? { maxLineBytes: opts.maxLineBytes } : {}) })
      : context({ home: dir, ...opts })
  const resolveRef = async (c: StoreContext, ref: string): Promise<SessionInfo> => {
    const info = await h.resolve!(c, ref)
    if (!info) throw new Error(`${id}: not found: ${ref}`)
    return info
  }
  const readSettled: HarnessKit['readSettled'] = async (c, ref, opts = {}) => {
    const info = typeof ref === 'string' ? await resolveRef(c, ref) : ref
    const recs: FerryRecord[] = []
    try {
      for await (const r of h.read!(c, info, opts)) recs.push(r as FerryRecord)
      return { recs }
    } catch (error) {
      return { recs, error }
    }
  }
  const writeSettled: HarnessKit['writeSettled'] = async (c, recs, opts = {}) => {
    const { complete: close = true, ...sinkOpts } = opts
    const sink = h.sink!(c, sinkOpts)
    const written: WrittenSession[] = []
    const errors: unknown[] = []
    sink.on('written', (w: WrittenSession) => written.push(w))
    sink.on('session-error', (e: unknown) => errors.push(e))
    try {
      await pipeline(Readable.from(close ? complete(recs) : recs, { objectMode: true }), sink)
    } catch (err) {
      if (!(err instanceof NotWrittenError)) throw err
      return { written, errors, rejected: err }
    }
    return { written, errors }
  }
  return {
    id,
    h,
    fixtures: join(FIXTURES, id),
    store: layout.store,
    home(t, ...variants) {
      const dest = join(tempDir(t, `ferry-${id}-`), layout.store)
      mkdirSync(dest, { recursive: true })
      for (const v of variants.length ? variants : layout.default) {
        const make = layout.variants[v]
        if (!make) throw new Error(`${id}: no fixture variant ${v} (${Object.keys(layout.variants).join(', ')})`)
        make(dest)
      }
      return dest
    },
    empty(t) {
      const dest = join(tempDir(t, `ferry-${id}-`), layout.store)
      mkdirSync(dest, { recursive: true })
      return dest
    },
    ctx,
    async discover(c, opts = {}) {
      return collect(h.discover!(c, opts))
    },
    resolve: resolveRef,
    async read(c, ref, opts = {}) {
      const { recs, error } = await readSettled(c, ref, opts)
      if (error) throw error
      return recs
    },
    readSettled,
    async write(c, recs, opts = {}) {
      const { written, rejected } = await writeSettled(c, recs, opts)
      if (rejected) throw rejected
      return written
    },
    writeSettled,
    cli(dir) {
      if (layout.store === 'home') return ['--home', dir]
      if (!h.store.flag) throw new Error(`${id}: a root layout needs the harness's root flag`)
      return ['--home', '/nonexistent-home', `--${h.store.flag.name}`, dir]
    },
  }
}

// ---------------------------------------------------------------- the CLI

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Killed by the kit's timeout (its stderr ends saying so). */
  timedOut?: boolean
}

export interface RunOptions {
  input?: string | Buffer
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Kill after this many ms on a quiet machine (scaled by SLOWDOWN; default 60 s): the test fails on a hang, saying so. */
  timeout?: number
}

const cliEnv = (env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', ...env })

/** Collects a child's output until it closes, killing it (and saying so on its stderr) after the scaled timeout. */
function settle(child: ChildProcess, what: string, timeout: number | undefined): Promise<RunResult> {
  return new Promise((res, rej) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout?.on('data', (b: Buffer) => out.push(b))
    child.stderr?.on('data', (b: Buffer) => err.push(b))
    let timedOut = false
    const limit = timeout ?? 60_000
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, scaled(limit))
    child.on('error', rej)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const stderr = Buffer.concat(err).toString('utf8') + (timedOut ? `\n[test kit] ${what}: ${timedOutNote(limit)}, killed\n` : '')
      res({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr, ...(timedOut ? { timedOut } : {}) })
    })
  })
}

/** Runs `node bin/ferry.js ...args` and collects its output. */
export function ferry(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [FERRY, ...args], { cwd: opts.cwd ?? ROOT, env: cliEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] })
  const done = settle(child, `ferry ${args.join(' ')}`.slice(0, 200), opts.timeout)
  child.stdin!.on('error', () => {})
  child.stdin!.end(opts.input ?? '')
  return done
}

export interface Spawned {
  child: ChildProcess
  /** How it ended (its exit code, or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /**
   * kill -9 of the command as a user's kill of its process group: ferry runs a streaming command in a
   * second Node process (lib/cli/relaunch.ts), which would otherwise outlive the launcher for a moment.
   */
  killGroup(): void
}

/**
 * Starts `node bin/ferry.js ...args` for a test to signal or watch as it runs:
 * stdin, stdout and stderr are ignored unless asked for (`stdin: 'pipe'` to
 * feed it, `output: 'pipe'` to read it).
 */
export function spawnFerry(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: 'ignore' | 'pipe'; output?: 'ignore' | 'pipe' } = {}): Spawned {
  const out = opts.output ?? 'ignore'
  // A process group of its own, so killGroup reaches the launcher and the command it started.
  const child = spawn(process.execPath, [FERRY, ...args], { cwd: opts.cwd ?? ROOT, env: cliEnv(opts.env), stdio: [opts.stdin ?? 'ignore', out, out], detached: true })
  child.stdin?.on('error', () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('close', (code, signal) => res({ code, signal })))
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  return { child, exited, killGroup }
}

/**
 * A pipe of ferry processes, `ferry a | ferry b | …`, over real OS pipes:
 * each stage's stdout is the next one's stdin. Gives every stage's result
 * (the last one's stdout is the pipe's output; the others' stdout is empty).
 */
export async function pipe(stages: string[][], opts: RunOptions = {}): Promise<RunResult[]> {
  const children: ChildProcess[] = []
  for (const [i, args] of stages.entries()) {
    const prev = children[i - 1]
    children.push(spawn(process.execPath, [FERRY, ...args], { cwd: opts.cwd ?? ROOT, env: cliEnv(opts.env), stdio: [prev ? prev.stdout! : 'pipe', 'pipe', 'pipe'] }))
    // The next stage holds the read end now: this process keeps no copy (a stage whose reader is gone sees EPIPE, as in a shell).
    prev?.stdout!.destroy()
  }
  const results = children.map((c, i) => settle(c, `ferry ${stages[i]!.join(' ')}`.slice(0, 200), opts.timeout))
  const first = children[0]!
  first.stdin!.on('error', () => {})
  first.stdin!.end(opts.input ?? '')
  return Promise.all(results)
}

/** Runs a shell line in bash (real pipes, redirections) with `$FERRY` the CLI. */
export function sh(cmd: string, opts: RunOptions = {}): Promise<RunResult> {
  const child = spawn('bash', ['-c', cmd], { cwd: opts.cwd ?? ROOT, env: { ...cliEnv(opts.env), FERRY: `${process.execPath} ${FERRY}` }, stdio: ['pipe', 'pipe', 'pipe'] })
  const done = settle(child, `sh ${cmd}`.slice(0, 200), opts.timeout ?? 120_000)
  child.stdin!.on('error', () => {})
  child.stdin!.end(opts.input ?? '')
  return done
}
