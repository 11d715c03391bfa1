/**
 * The harness contract suite. Every registered harness passes it by adding
 * one line to contract.test.ts and one fixture with its expectations manifest
 * (`fixtures/<dir>/contract.json`). Each clause is a real test on a temp copy
 * of the fixture (the committed files are never touched), through the
 * registry, the library, and real child processes for CLI behaviour.
 *
 * What differs by format is declared, never guessed from the id:
 * - `kind` (the registry's): the interchange stream has no store, so the
 *   store clauses (absent store, discovery, resolve by id) do not apply;
 * - `roundTrip`: the same-harness native round trip is byte-identical file by
 *   file (`bytes`) or equal record by record (`records`);
 * - `storage`: line files (which file of a session to damage) or SQLite rows
 *   (the torn/over-long line clauses do not apply; unknown rows are planted);
 * - `cannot`: any other clause the harness cannot do, with the reason. A
 *   clause is never skipped silently: it shows up as a skip with that reason.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename, dirname, join, relative } from 'node:path'
import type { Test } from 'tap'
import Database from 'better-sqlite3'
import { createContext, type StoreContext } from '../../lib/context.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { NotWrittenError } from '../../lib/errors.js'
import { getHarness, storeEnvVars } from '../../lib/harness/registry.js'
import type { Harness, SessionInfo, WrittenSession } from '../../lib/harness/types.js'
import { stringify } from '../../lib/interchange/stringify.js'
import { pipeline } from '../../lib/io/pipeline.js'
import type { FerryRecord, MessageRec, SessionRec } from '../../lib/model.js'
import { FIXTURES, context, ferry, files, kit, tempDir } from '../kit.js'

export type Clause =
  | 'absent-store'
  | 'discovery'
  | 'resolve-by-id'
  | 'resolve-by-prefix'
  | 'resolve-by-path'
  | 'resolve-unknown'
  | 'stream-shape'
  | 'native-round-trip'
  | 'fixpoint'
  | 'torn-line'
  | 'line-too-long'
  | 'unknown-records'
  | 'hostile-ids'
  | 'no-overwrite'
  | 'source-unchanged'

export type Storage =
  /** Line files. `true`: the session's path is the line file; a string: that file inside the session's directory. */
  | { lines: true | string }
  /** SQLite rows: unknown rows are planted as a copy of the first row of `table` with its JSON `data` column's type changed. */
  | { sqlite: { table: string; pk: string; data: string } }

export interface ContractSpec {
  /** The registry id. */
  harness: string
  /** Folder under fixtures/ holding `contract.json`. */
  fixture: string
  roundTrip: 'bytes' | 'records'
  storage: Storage
  /**
   * Written sessions that are not in the store until the agent's own import
   * runs (OpenCode's export documents): lands them, playing that import, so
   * they can be read back.
   */
  land?: (written: WrittenSession[], ctx: StoreContext) => void | Promise<void>
  /**
   * A harness that writes only into a store its agent created (ZCode's
   * database): makes that store in an empty store before a write clause,
   * playing the agent's first run. Without it the write clauses start empty.
   */
  seed?: (ctx: StoreContext) => void | Promise<void>
  /**
   * Message fields the fixpoint compares besides the blocks, minus these
   * (each one a documented property of the format, named with why in the spec line).
   */
  fixpointIgnores?: readonly ('ts' | 'context')[]
  /** Clauses this harness cannot do, each with the reason. */
  cannot?: Partial<Record<Clause, string>>
}

/** One session the fixture holds, with the metadata discovery must report (each field only where known). */
export interface ManifestSession {
  id: string
  cwd?: string
  title?: string
  title_source?: string
  created_at?: string
  updated_at?: string
  archived?: boolean
}

/** `fixtures/<dir>/contract.json`: where the store is (exactly one of home, root, file; relative to fixtures/) and what it holds. */
export interface Manifest {
  about?: string
  /** A fake HOME holding the store where the agent keeps it. */
  home?: string
  /** The store root itself (what the harness's root flag points at). */
  root?: string
  /** A single file (the interchange stream). */
  file?: string
  /** The first session is the one the round-trip, damage and write clauses use. */
  sessions: ManifestSession[]
}

const METADATA = ['cwd', 'title', 'title_source', 'created_at', 'updated_at', 'archived'] as const

/** A temp copy of a fixture, or an empty store of the same shape. */
interface Store {
  /** The temp directory everything is under. */
  dir: string
  home: string
  root?: string
  file?: string
  /** The sink's `out`, for the stream (which has no store to write into). */
  out?: string
}

type T = Test

function loadManifest(spec: ContractSpec): Manifest {
  const m = JSON.parse(readFileSync(join(FIXTURES, spec.fixture, 'contract.json'), 'utf8')) as Manifest
  if ([m.home, m.root, m.file].filter(Boolean).length !== 1) throw new Error(`${spec.fixture}/contract.json: give exactly one of home, root, file`)
  if (!m.sessions?.length) throw new Error(`${spec.fixture}/contract.json: no sessions`)
  return m
}

function copyFixture(t: T, m: Manifest): Store {
  const dir = tempDir(t, 'ferry-contract-')
  if (m.home) {
    const home = join(dir, 'home')
    cpSync(join(FIXTURES, m.home), home, { recursive: true })
    return { dir, home }
  }
  const home = join(dir, 'home')
  mkdirSync(home)
  if (m.root) {
    const root = join(dir, 'root')
    cpSync(join(FIXTURES, m.root), root, { recursive: true })
    return { dir, home, root }
  }
  const file = join(dir, basename(m.file!))
  cpSync(join(FIXTURES, m.file!), file)
  return { dir, home, file }
}

/** An empty store laid out like the fixture's (HOME, root, or an output directory for the stream). */
function emptyStore(t: T, h: Harness, m: Manifest, under?: string): Store {
  const dir = under ?? tempDir(t, 'ferry-contract-out-')
  const home = join(dir, 'home')
  mkdirSync(home, { recursive: true })
  if (h.kind === 'stream') return { dir, home, out: join(dir, 'out') }
  if (m.root) return { dir, home, root: join(dir, 'root') }
  return { dir, home }
}

/** An empty store to write into: seeded where the agent must have created it first (`spec.seed`). */
async function writableStore(t: T, h: Harness, m: Manifest, spec: ContractSpec, under?: string): Promise<Store> {
  const s = emptyStore(t, h, m, under)
  if (spec.seed) await spec.seed(ctxOf(h, s))
  return s
}

/** Where a sink writes in this store (`out`, else the harness's store root): what a hostile id must never leave. */
function storeTop(h: Harness, s: Store): string {
  return s.out ?? h.root(ctxOf(h, s))
}

function ctxOf(h: Harness, s: Store, maxLineBytes?: number): StoreContext {
  return context({ home: s.home, roots: s.root ? { [h.id]: s.root } : {}, ...(maxLineBytes ? { maxLineBytes } : {}) })
}

/** The CLI's view of the same store. */
function cliStore(h: Harness, s: Store): string[] {
  const args = ['--home', s.home]
  if (s.root) {
    if (!h.store.flag) throw new Error(`${h.id}: a root fixture needs the harness's root flag`)
    args.push(`--${h.store.flag.name}`, s.root)
  }
  return args
}

/** Child processes see no agent executable (the real clients are never started). */
const CLI_ENV = { PATH: '/nonexistent' }

/** How the CLI names a session: `harness:id`, or the file for the stream. */
function cliRef(h: Harness, s: Store, id: string): string {
  return h.kind === 'stream' ? s.file! : `${h.id}:${id}`
}

async function resolveOrThrow(h: Harness, ctx: StoreContext, ref: string): Promise<SessionInfo> {
  const info = await h.resolve!(ctx, ref)
  if (!info) throw new Error(`${h.id}: cannot resolve ${ref}`)
  return info
}

/** The primary session of a store: by id, or the file for the stream. */
function primaryRef(h: Harness, s: Store, m: Manifest): string {
  return h.kind === 'stream' ? s.file! : m.sessions[0]!.id
}

async function readRecords(h: Harness, ctx: StoreContext, info: SessionInfo, native = false): Promise<FerryRecord[]> {
  return kit(h.id).read(ctx, info, { native })
}

async function readRef(h: Harness, ctx: StoreContext, ref: string, native = false): Promise<FerryRecord[]> {
  return readRecords(h, ctx, await resolveOrThrow(h, ctx, ref), native)
}

/** Writes the records as they are (no `end` added) through the harness's sink. */
async function writeRecords(h: Harness, ctx: StoreContext, s: Store, recs: FerryRecord[], opts: { force?: boolean } = {}): Promise<WrittenSession[]> {
  return kit(h.id).write(ctx, recs, { ...(s.out ? { out: s.out } : {}), ...opts, complete: false })
}

/** Reads back the first session a sink wrote (landing it first where the agent must import it). */
async function readBack(h: Harness, spec: ContractSpec, s: Store, written: WrittenSession[], native = false): Promise<FerryRecord[]> {
  const ctx = ctxOf(h, s)
  if (spec.land) await spec.land(written, ctx)
  return readRef(h, ctx, spec.land ? written[0]!.id : written[0]!.path, native)
}

/** Every entry under dir (dirs too: their mtimes show added or removed files) with bytes and mtimes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      const st = lstatSync(p)
      const rel = relative(dir, p)
      // ferry's discovery cache (HOME/.cache/ferry) is its own, no store: listing makes it, which touches HOME's mtime.
      if (rel === 'home/.cache') continue
      if (e.isDirectory()) {
        out[`${rel}/`] = rel === 'home' ? 'dir' : `dir mtime=${st.mtimeMs}`
        walk(p)
      } else out[rel] = `${st.size} bytes sha256=${createHash('sha256').update(readFileSync(p)).digest('hex')} mtime=${st.mtimeMs} mode=${st.mode.toString(8)}`
    }
  }
  walk(dir)
  return out
}

function messages(recs: FerryRecord[]): MessageRec[] {
  return recs.filter((r): r is MessageRec => r.kind === 'message')
}

function headers(recs: FerryRecord[]): SessionRec[] {
  return recs.filter((r): r is SessionRec => r.kind === 'session')
}

/**
 * The stream rules: optional `stream` preambles, then per session its header
 * first and its `end` last, every record's sid the header's, no id twice.
 * Returns the problems found (empty when the stream is well formed).
 */
function shapeProblems(recs: FerryRecord[], opts: { endOptional?: boolean } = {}): string[] {
  const problems: string[] = []
  let i = 0
  while (recs[i]?.kind === 'stream') i++
  if (recs[i]?.kind !== 'session') problems.push(`first record after the preamble is ${recs[i]?.kind ?? 'nothing'}, not session`)
  let header: SessionRec | null = null
  let ended = true
  const seen = new Set<string>()
  for (; i < recs.length; i++) {
    const r = recs[i]!
    if (r.kind === 'stream') continue
    if (r.kind === 'session') {
      if (header && !ended && !opts.endOptional) problems.push(`session ${header.sid} has no end before ${r.sid}`)
      header = r
      ended = false
    } else if (!header) continue
    else {
      if (ended) problems.push(`${r.kind} ${r.id} after the end of ${header.sid}`)
      if (r.sid !== header.sid) problems.push(`${r.kind} ${r.id} has sid ${r.sid}, its header ${header.sid}`)
      if (r.kind === 'end') ended = true
    }
    if (typeof r.id !== 'string' || r.id === '') problems.push(`${r.kind} #${i} has no id`)
    else if (seen.has(r.id)) problems.push(`id ${r.id} twice`)
    else seen.add(r.id)
  }
  if (header && !ended && !opts.endOptional) problems.push(`session ${header.sid} has no end`)
  return problems
}

/**
 * What the common → native → common fixpoint compares: per message its role,
 * whether it is injected context, its time, and its blocks. Left out: record
 * and session ids (a written session may get a new id), `native`, and a tool
 * result's `structured` (the harness's own result object, never sent to a model).
 */
function modelled(recs: FerryRecord[], ignore: readonly string[] = []): unknown[] {
  return messages(recs).map((m) => {
    const o: Record<string, unknown> = {
      role: m.role,
      context: m.context ?? false,
      ts: m.ts,
      blocks: m.blocks.map((b) => {
        if (b.type !== 'tool_result') return b
        const { structured: _s, ...rest } = b
        return rest
      }),
    }
    for (const k of ignore) delete o[k]
    return o
  })
}

/** What a person typed, and how many tool calls: what the first trip must keep. */
function conversation(recs: FerryRecord[]): { prompts: string[]; calls: number } {
  const typed = messages(recs).filter((m) => m.role === 'user' && !m.context)
  return {
    prompts: typed.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' && b.text.trim() ? [b.text.trim()] : []))),
    calls: messages(recs).reduce((n, m) => n + m.blocks.filter((b) => b.type === 'tool_use').length, 0),
  }
}

/** The line file of a session that the damage clauses mutate. */
function lineFile(spec: ContractSpec, info: SessionInfo): string {
  const st = spec.storage as { lines: true | string }
  return st.lines === true ? info.path : join(info.path, st.lines)
}

function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** Longest line (bytes) of any file under dir: a cap above it keeps every fixture line. */
function longestLine(dir: string): number {
  let max = 0
  for (const rel of files(dir)) for (const l of readFileSync(join(dir, rel)).toString('latin1').split('\n')) max = Math.max(max, l.length)
  return max
}

/** Inserts a line before the last one (inside the session, after its header); returns its 1-based number. */
function insertLine(file: string, line: string): number {
  const lines = splitLines(readFileSync(file, 'utf8'))
  const at = Math.max(1, lines.length - 1)
  lines.splice(at, 0, line)
  writeFileSync(file, lines.join('\n') + '\n')
  return at + 1
}

/** Ids and paths that must not leave the store; `{base}` is the temp dir the store is in (absolute-path attack). */
const HOSTILE_IDS = ['../../contract-escape-rel', '{base}/contract-escape-abs', '/tmp/../{base}/contract-escape-abs2', 'x/../../../../contract-escape-mid', 'nul\u0000contract-escape', '..', '.', '', '..\\..\\contract-escape-win', '%2e%2e%2fcontract-escape-enc']
const HOSTILE_CWDS = [undefined, '../../contract-escape-cwd', '{base}/contract-escape-cwd-abs']

/** The records of a session moved under a hostile id (and, optionally, a hostile cwd). */
function underHostileId(recs: FerryRecord[], id: string, cwd: string | undefined): FerryRecord[] {
  const first = headers(recs)[0]!
  const harness = first.source.harness
  const sid = `${harness}:${id}`
  let inFirst = false
  const out: FerryRecord[] = []
  for (const r of recs) {
    if (r.kind === 'stream') continue
    if (r.kind === 'session') inFirst = r.sid === first.sid
    if (!inFirst) continue
    const c = structuredClone(r) as FerryRecord & { sid: string; id: string }
    c.id = c.id.startsWith(first.sid) ? sid + c.id.slice(first.sid.length) : c.id
    c.sid = sid
    if (c.kind === 'session') {
      c.native_id = id
      if (cwd !== undefined) c.cwd = cwd
    }
    out.push(c)
  }
  return out
}

/** Everything under `base` that is not `top`, one of its ancestors, or inside it. */
function outside(base: string, top: string): string[] {
  const ancestors = new Set<string>()
  for (let d = top; d.startsWith(base) && d !== base; d = dirname(d)) ancestors.add(d)
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (p === top || p.startsWith(top + '/')) continue
      if (ancestors.has(p)) walk(p)
      // The empty HOME every store has (its sink writes under a root or `out` beside it).
      else if (e.isDirectory() && p === join(base, 'home') && readdirSync(p).length === 0) continue
      else out.push(relative(base, p))
    }
  }
  walk(base)
  return out
}

/** Files in the temp dir's parent that a hostile id would have made (our marker names only: the parent is shared). */
function escapedToParent(base: string): string[] {
  return readdirSync(dirname(base)).filter((n) => n.includes('contract-escape'))
}

/** Renders a stream as interchange text (for CLI clauses that pipe records). */
async function interchangeText(recs: FerryRecord[]): Promise<string> {
  const s = stringify()
  const chunks: string[] = []
  s.on('data', (c: string | Buffer) => chunks.push(String(c)))
  const done = new Promise<void>((res, rej) => {
    s.on('end', res)
    s.on('error', rej)
  })
  for (const r of recs) s.write(r)
  s.end()
  await done
  return chunks.join('')
}

/**
 * Registers the contract for one harness as a tap subtest. The read clauses
 * share one fixture copy whose bytes and mtimes are compared at the end; the
 * clauses that damage or write use their own copies.
 */
export function contract(t: T, spec: ContractSpec): void {
  const h = getHarness(spec.harness)
  const m = loadManifest(spec)
  const stream = h.kind === 'stream'
  const sqlite = 'sqlite' in spec.storage
  /** Clauses that do not apply, derived from kind and storage, or declared. */
  const notApplicable = (c: Clause): string | undefined => {
    if (stream && (c === 'absent-store' || c === 'discovery')) return 'the interchange stream has no store: its sessions are the headers in the file (kind "stream")'
    if (stream && (c === 'resolve-by-id' || c === 'resolve-by-prefix')) return 'the interchange stream is named by its path, never by a session id (kind "stream")'
    if (sqlite && (c === 'torn-line' || c === 'line-too-long')) return 'the store is SQLite rows, not lines (storage "sqlite")'
    if ((c === 'native-round-trip' || c === 'fixpoint' || c === 'hostile-ids' || c === 'no-overwrite') && !h.sink) return `${h.name} cannot be written`
    return spec.cannot?.[c]
  }
  const clause = (t: T, c: Clause, fn: (t: T) => Promise<void>) => {
    const reason = notApplicable(c)
    if (reason) return t.test(c, { skip: `${h.id} cannot: ${reason}` }, async () => {})
    return t.test(c, fn)
  }

  t.test(`${h.id} contract`, async (t) => {
    t.ok(h.read && h.resolve, `${h.id} can be read and resolved`)
    const first = m.sessions[0]!

    await clause(t, 'absent-store', async (t) => {
      const empty = emptyStore(t, h, m)
      const ctx = ctxOf(h, empty)
      const found: SessionInfo[] = []
      for await (const s of h.discover!(ctx, { all: true })) found.push(s)
      t.same(found, [], 'no sessions')
      t.equal(await h.resolve!(ctx, first.id), null, 'resolve finds nothing')
      t.same(ctx.diagnostics.items, [], 'no diagnostics')
      t.notOk(existsSync(h.root(ctx)), 'looking creates no store')
      const ls = await ferry([...cliStore(h, empty), 'ls', '--harness', h.id, '--all', '--json'], { env: CLI_ENV })
      t.equal(ls.code, 1, `ferry ls exits 1, nothing matched (#46): ${ls.stderr}`)
      t.equal(ls.stdout, '', 'and lists nothing')
      t.match(JSON.parse(ls.stderr.trim()), { error: { code: 'no-match' } }, 'and says only that nothing matched')
    })

    // Read clauses on one shared copy, snapshotted before and compared after.
    const src = copyFixture(t, m)
    const before = snapshot(src.dir)

    await clause(t, 'discovery', async (t) => {
      const ctx = ctxOf(h, src)
      const all: SessionInfo[] = []
      for await (const s of h.discover!(ctx, { all: true })) all.push(s)
      t.same(all.map((s) => s.id).sort(), m.sessions.map((s) => s.id).sort(), 'discovery (all) lists exactly the manifest sessions')
      for (const want of m.sessions) {
        const got = all.find((s) => s.id === want.id)
        if (!got) continue
        t.equal(got.harness, h.id, `${want.id}: harness`)
        t.equal(got.sid, `${h.id}:${want.id}`, `${want.id}: sid`)
        for (const k of METADATA) if (want[k] !== undefined) t.equal(got[k], want[k], `${want.id}: ${k}`)
      }
      const shown: string[] = []
      for await (const s of h.discover!(ctx, {})) shown.push(s.id)
      t.same(shown.sort(), m.sessions.filter((s) => !s.archived).map((s) => s.id).sort(), 'without all: archived sessions are hidden')
      t.same(ctx.diagnostics.items, [], 'no diagnostics')
      const ls = await ferry([...cliStore(h, src), 'ls', '--harness', h.id, '--all', '--json'], { env: CLI_ENV })
      t.equal(ls.code, 0, ls.stderr)
      t.same(splitLines(ls.stdout).map((l) => JSON.parse(l).sid).sort(), m.sessions.map((s) => `${h.id}:${s.id}`).sort(), 'ferry ls lists them')
    })

    await clause(t, 'resolve-by-id', async (t) => {
      const ctx = ctxOf(h, src)
      for (const s of m.sessions) t.equal((await h.resolve!(ctx, s.id))?.id, s.id, s.id)
    })

    await clause(t, 'resolve-by-prefix', async (t) => {
      const ctx = ctxOf(h, src)
      for (const s of m.sessions) {
        let n = Math.min(8, s.id.length - 1)
        while (n < s.id.length - 1 && m.sessions.some((o) => o !== s && o.id.startsWith(s.id.slice(0, n)))) n++
        const prefix = s.id.slice(0, n)
        t.equal((await h.resolve!(ctx, prefix))?.id, s.id, `unique prefix ${prefix}`)
      }
    })

    await clause(t, 'resolve-by-path', async (t) => {
      const ctx = ctxOf(h, src)
      if (stream) {
        const info = await h.resolve!(ctx, src.file!)
        t.equal(info?.path, src.file, 'the file resolves to itself')
        return
      }
      for (const s of m.sessions) {
        const info = await resolveOrThrow(h, ctx, s.id)
        t.equal((await h.resolve!(ctx, info.path))?.id, s.id, `${relative(src.dir, info.path)} resolves to ${s.id}`)
      }
    })

    await clause(t, 'resolve-unknown', async (t) => {
      const ctx = ctxOf(h, src)
      const id = first.id
      const unknown = id.slice(0, -4) + (id.endsWith('dead') ? 'beef' : 'dead')
      t.equal(await h.resolve!(ctx, unknown), null, `unknown id ${unknown}`)
      t.equal(await h.resolve!(ctx, join(src.dir, 'no-such-session.jsonl')), null, 'a path that does not exist')
      const stray = join(tempDir(t, 'ferry-contract-stray-'), 'stray.txt')
      writeFileSync(stray, 'not a session\n')
      t.equal(await h.resolve!(ctx, stray), null, 'a file that is not a session')
    })

    await clause(t, 'stream-shape', async (t) => {
      const ctx = ctxOf(h, src)
      const refs = stream ? [src.file!] : m.sessions.map((s) => s.id)
      for (const ref of refs) {
        const a = await readRef(h, ctx, ref)
        const b = await readRef(h, ctx, ref)
        t.same(shapeProblems(a), [], `${ref}: header first, end last, sids match, no id twice`)
        t.same(b.map((r) => (r as { id?: string }).id), a.map((r) => (r as { id?: string }).id), `${ref}: ids stable across two reads`)
        t.ok(messages(a).length > 0, `${ref}: has messages`)
      }
      for (const want of m.sessions) {
        const recs = stream ? await readRef(h, ctx, src.file!) : await readRef(h, ctx, want.id)
        const header = headers(recs).find((s) => s.native_id === want.id)
        t.ok(header, `${want.id}: a header for the session`)
        if (!header) continue
        for (const k of ['cwd', 'title', 'title_source'] as const) if (want[k] !== undefined) t.equal(header[k], want[k], `${want.id}: header ${k}`)
      }
      const clean = ctxOf(h, src)
      await readRef(h, clean, primaryRef(h, src, m))
      t.same(clean.diagnostics.items.filter((d) => d.severity === 'error'), [], 'no error diagnostics reading the first session')
      const cat = await ferry([...cliStore(h, src), 'cat', cliRef(h, src, first.id), '--no-native'], { env: CLI_ENV })
      t.equal(cat.code, 0, `ferry cat exits 0: ${cat.stderr}`)
      t.same(shapeProblems(splitLines(cat.stdout).map((l) => JSON.parse(l))), [], 'ferry cat prints a well-formed stream')
    })

    await clause(t, 'native-round-trip', async (t) => {
      const recs = await readRef(h, ctxOf(h, src), primaryRef(h, src, m), true)
      const out = await writableStore(t, h, m, spec)
      const written = await writeRecords(h, ctxOf(h, out), out, recs)
      t.ok(written.length > 0, 'written')
      if (spec.roundTrip === 'records') {
        const back = await readBack(h, spec, out, written, true)
        const strip = (rs: FerryRecord[]) =>
          rs
            .filter((r) => r.kind !== 'stream')
            .map((r) => {
              const c = structuredClone(r) as Record<string, any>
              if (c.kind === 'session') delete c.source?.locator
              return c
            })
        t.same(strip(back), strip(recs), 'record for record')
        return
      }
      const srcTop = h.root(ctxOf(h, src))
      const outTop = storeTop(h, out)
      const got = files(outTop)
      const id = first.id.toLowerCase()
      const expected = files(srcTop).filter((rel) => rel.toLowerCase().includes(id))
      t.ok(expected.length > 0, 'the fixture has files naming the session')
      t.same(got.filter((rel) => rel.toLowerCase().includes(id)), expected, 'every file of the session, at the same place')
      for (const rel of got) {
        const a = join(srcTop, rel)
        t.ok(existsSync(a) && readFileSync(join(outTop, rel)).equals(readFileSync(a)), `${rel}: byte-identical`)
      }
    })

    await clause(t, 'fixpoint', async (t) => {
      const a = await readRef(h, ctxOf(h, src), primaryRef(h, src, m))
      const s1 = await writableStore(t, h, m, spec)
      const w1 = await writeRecords(h, ctxOf(h, s1), s1, a)
      const b = await readBack(h, spec, s1, w1)
      const s2 = await writableStore(t, h, m, spec)
      const w2 = await writeRecords(h, ctxOf(h, s2), s2, b)
      const c = await readBack(h, spec, s2, w2)
      t.same(modelled(c, spec.fixpointIgnores), modelled(b, spec.fixpointIgnores), 'common → native → common changes nothing after one trip')
      const ca = conversation(a)
      const cb = conversation(b)
      t.equal(cb.calls, ca.calls, 'the first trip keeps every tool call')
      for (const p of ca.prompts) t.ok(cb.prompts.some((q) => q.includes(p.slice(0, 60))), `the first trip keeps the prompt "${p.slice(0, 40)}"`)
    })

    await t.test('source-unchanged', async (t) => {
      t.same(snapshot(src.dir), before, 'the fixture copy: same files, bytes and mtimes after every read clause')
    })

    await clause(t, 'torn-line', async (t) => {
      const s = copyFixture(t, m)
      const ctx0 = ctxOf(h, s)
      const file = lineFile(spec, await resolveOrThrow(h, ctx0, primaryRef(h, s, m)))
      const lines = splitLines(readFileSync(file, 'utf8'))
      const last = lines.pop()!
      writeFileSync(file, [...lines, last.slice(0, Math.floor(last.length / 2))].join('\n'))
      const ctx = ctxOf(h, s)
      const recs = await readRef(h, ctx, primaryRef(h, s, m))
      const d = ctx.diagnostics.items.find((x) => x.code === 'torn-line')
      t.ok(d, 'a torn-line diagnostic')
      t.match(d, { severity: 'error', source: h.id, position: { file, line: lines.length + 1 } }, 'located at file:line, from the harness')
      // The interchange format's `end` is optional, and in a stream file the torn last line is that `end`.
      t.same(shapeProblems(recs, { endOptional: stream }), [], 'the stream is still well formed')
      t.ok(messages(recs).length > 0, 'the other records are still emitted')
      const cat = await ferry([...cliStore(h, s), 'cat', cliRef(h, s, first.id), '--no-native'], { env: CLI_ENV })
      t.equal(cat.code, 1, 'ferry cat exits 1')
      t.match(cat.stderr, `${h.id}:torn-line: ${file}:${lines.length + 1}:`, 'and names source, code, file and line')
      t.ok(messages(splitLines(cat.stdout).map((l) => JSON.parse(l))).length > 0, 'and still prints the other records')
    })

    await clause(t, 'line-too-long', async (t) => {
      const s = copyFixture(t, m)
      const cap = longestLine(s.dir) + 64
      const ref = primaryRef(h, s, m)
      const baseline = messages(await readRef(h, ctxOf(h, s, cap), ref)).length
      const file = lineFile(spec, await resolveOrThrow(h, ctxOf(h, s), ref))
      const line = insertLine(file, JSON.stringify({ type: 'ferry-contract-pad', kind: 'ferry-contract-pad', pad: 'x'.repeat(cap + 512) }))
      const loose = ctxOf(h, s)
      await readRef(h, loose, ref)
      t.notOk(loose.diagnostics.items.some((x) => x.code === 'line-too-long'), 'under the default cap the line is read')
      const ctx = ctxOf(h, s, cap)
      const recs = await readRef(h, ctx, ref)
      const d = ctx.diagnostics.items.filter((x) => x.code === 'line-too-long')
      t.equal(d.length, 1, `one line-too-long diagnostic under a cap of ${cap} bytes`)
      t.match(d[0], { severity: 'error', source: h.id, position: { file, line } }, 'located at file:line, from the harness')
      t.equal(messages(recs).length, baseline, 'every other record is still emitted')
      t.same(shapeProblems(recs), [], 'the stream is still well formed')
      const cat = await ferry([...cliStore(h, s), 'cat', cliRef(h, s, first.id), '--no-native', '--max-line-bytes', String(cap)], { env: CLI_ENV })
      t.equal(cat.code, 1, 'ferry cat --max-line-bytes exits 1')
      t.match(cat.stderr, `${h.id}:line-too-long: ${file}:${line}:`, 'and names source, code, file and line')
      t.equal(messages(splitLines(cat.stdout).map((l) => JSON.parse(l))).length, baseline, 'and prints every other message')
    })

    await clause(t, 'unknown-records', async (t) => {
      const s = copyFixture(t, m)
      const ref = primaryRef(h, s, m)
      const before = await readRef(h, ctxOf(h, s), ref)
      const info = await resolveOrThrow(h, ctxOf(h, s), ref)
      const sid = headers(before)[0]!.sid
      if ('sqlite' in spec.storage) {
        const { table, pk, data } = spec.storage.sqlite
        const db = new Database(info.path)
        try {
          const row = db.prepare(`SELECT * FROM ${table} ORDER BY ${pk} LIMIT 1`).get() as Record<string, unknown>
          const value = JSON.parse(String(row[data])) as Record<string, unknown>
          const planted = { ...row, [pk]: `${String(row[pk])}zz`, [data]: JSON.stringify({ ...value, type: 'ferry-contract-unknown' }) }
          const cols = Object.keys(planted)
          db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => planted[c] as any))
        } finally {
          db.close()
        }
      } else {
        insertLine(lineFile(spec, info), JSON.stringify({ type: 'ferry-contract-unknown', kind: 'ferry-contract-unknown', timestamp: '2026-11-02T09:15:00.000Z', sid, id: `${sid}:ferry-contract-unknown`, payload: { type: 'ferry-contract-unknown' } }))
      }
      const ctx = ctxOf(h, s)
      const recs = await readRef(h, ctx, ref)
      t.equal(ctx.diagnostics.errors, 0, `no error diagnostics: ${JSON.stringify(ctx.diagnostics.items.filter((d) => d.severity === 'error'))}`)
      t.equal(messages(recs).length, messages(before).length, 'every message still emitted')
      t.same(shapeProblems(recs), [], 'the stream is still well formed')
      const cat = await ferry([...cliStore(h, s), 'cat', cliRef(h, s, first.id), '--no-native'], { env: CLI_ENV })
      t.equal(cat.code, 0, `ferry cat exits 0: ${cat.stderr}`)
    })

    await clause(t, 'hostile-ids', async (t) => {
      const s = copyFixture(t, m)
      const plain = await readRef(h, ctxOf(h, s), primaryRef(h, s, m))
      const native = await readRef(h, ctxOf(h, s), primaryRef(h, s, m), true)
      const base = tempDir(t, 'ferry-contract-hostile-')
      const hostileStreams: Array<[string, FerryRecord[]]> = []
      for (const raw of HOSTILE_IDS) {
        for (const rawCwd of HOSTILE_CWDS) {
          const id = raw.replaceAll('{base}', base)
          const cwd = rawCwd?.replaceAll('{base}', base)
          hostileStreams.push([`id ${JSON.stringify(raw)}${rawCwd ? ` cwd ${rawCwd}` : ''}`, underHostileId(plain, id, cwd)])
          if (!rawCwd) hostileStreams.push([`id ${JSON.stringify(raw)} (native)`, underHostileId(native, id, cwd)])
        }
      }
      let n = 0
      for (const [label, recs] of hostileStreams) {
        const store = await writableStore(t, h, m, spec, join(base, 'a', 'b', `s${n++}`))
        const top = storeTop(h, store)
        let written: WrittenSession[] = []
        let error: unknown
        try {
          written = await writeRecords(h, ctxOf(h, store), store, recs)
        } catch (err) {
          error = err
        }
        if (error) {
          t.ok(error instanceof NotWrittenError, `${label}: refused by the sink policy (${String((error as Error).message).slice(0, 120)})`)
          if (error instanceof NotWrittenError) t.ok(error.failures.every((f) => f.error.code === 'unsafe-path' || f.error.code === 'invalid-input'), `${label}: refused as unsafe-path/invalid-input, got ${error.failures.map((f) => f.error.code).join(',')}`)
        }
        for (const w of written) t.ok(w.path.startsWith(top + '/'), `${label}: written inside the store (${w.path})`)
      }
      // Every store is base/a/b/s<n>: nothing may appear beside them, in base, or in its parent.
      const stray = [
        ...readdirSync(base).filter((n) => n !== 'a'),
        ...readdirSync(join(base, 'a')).filter((n) => n !== 'b').map((n) => `a/${n}`),
        ...readdirSync(join(base, 'a', 'b')).filter((n) => !/^s\d+$/.test(n)).map((n) => `a/b/${n}`),
      ]
      t.same(stray, [], 'nothing created outside the stores (temp dir)')
      const leaks = readdirSync(join(base, 'a', 'b')).flatMap((d) => {
        const dir = join(base, 'a', 'b', d)
        return outside(dir, storeTop(h, emptyStoreShape(h, m, dir))).map((p) => `${d}/${p}`)
      })
      t.same(leaks, [], 'nothing outside any store root')
      t.same(escapedToParent(base), [], 'nothing created in the temp dir’s parent')
      // The CLI: every hostile session in one stream, written with --out.
      const cliOut = join(base, 'cli', 'out')
      mkdirSync(cliOut, { recursive: true })
      const text = await interchangeText(hostileStreams.flatMap(([, r]) => r))
      const w = await ferry(['--home', join(base, 'cli'), 'write', '--to', h.id, '--out', cliOut], { input: text, env: CLI_ENV })
      t.ok(w.code === 0 || w.code === 1, `ferry write --out exits 0 or 1 (got ${w.code}): ${w.stderr.slice(0, 400)}`)
      t.notMatch(w.stderr, /:internal:/, 'no internal error')
      t.same(outside(join(base, 'cli'), cliOut), [], 'CLI: nothing outside --out')
      t.same(escapedToParent(base), [], 'CLI: nothing in the temp dir’s parent')
    })

    await clause(t, 'no-overwrite', async (t) => {
      const s = copyFixture(t, m)
      const recs = await readRef(h, ctxOf(h, s), primaryRef(h, s, m), true)
      const out = await writableStore(t, h, m, spec)
      const top = storeTop(h, out)
      const first = await writeRecords(h, ctxOf(h, out), out, recs)
      t.ok(first.length > 0, 'first write')
      const once = snapshot(top)
      const err = await writeRecords(h, ctxOf(h, out), out, recs).then(
        () => null,
        (e: unknown) => e,
      )
      t.ok(err instanceof NotWrittenError, `the second write without force rejects with NotWrittenError (got ${String(err)})`)
      if (err instanceof NotWrittenError) t.same(err.failures.map((f) => f.error.code), err.failures.map(() => 'exists'), 'every failure is exists')
      t.same(snapshot(top), once, 'existing bytes (and mtimes) unchanged')
      const ino = statSync(first[0]!.path).ino
      const forced = await writeRecords(h, ctxOf(h, out), out, recs, { force: true })
      t.same(forced.map((w) => w.path), first.map((w) => w.path), 'with force: the same sessions written again')
      t.not(statSync(first[0]!.path).ino, ino, 'with force: replaced (a new file under the same name)')
      // The CLI, through the same policy.
      const cliOutStore = await writableStore(t, h, m, spec)
      const dest = storeTop(h, cliOutStore)
      const text = await interchangeText(recs)
      // A directory that does not exist yet is named with a trailing slash (docs/cli.md, --out).
      const args = ['--home', cliOutStore.home, 'write', '--to', h.id, '--out', h.kind === 'stream' ? `${dest}/` : dest]
      const w1 = await ferry(args, { input: text, env: CLI_ENV })
      t.equal(w1.code, 0, `first ferry write exits 0: ${w1.stderr}`)
      const snap = snapshot(dest)
      const w2 = await ferry(args, { input: text, env: CLI_ENV })
      t.equal(w2.code, 1, 'second ferry write without --force exits 1')
      t.match(w2.stderr, `${h.id}:exists:`, 'and reports exists, from the harness')
      t.same(snapshot(dest), snap, 'existing bytes unchanged')
      const w3 = await ferry([...args, '--force'], { input: text, env: CLI_ENV })
      t.equal(w3.code, 0, `with --force exits 0: ${w3.stderr}`)
    })
  })
}

/** The store shape of a directory made by emptyStore (without creating anything). */
function emptyStoreShape(h: Harness, m: Manifest, dir: string): Store {
  const home = join(dir, 'home')
  if (h.kind === 'stream') return { dir, home, out: join(dir, 'out') }
  if (m.root) return { dir, home, root: join(dir, 'root') }
  return { dir, home }
}
