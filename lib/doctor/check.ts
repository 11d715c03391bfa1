/**
 * `ferry doctor`: for every agent, whether it is installed and which version, where its store is,
 * how many sessions it holds, the versions ferry was verified against, and what a read of its
 * newest sessions finds that ferry does not understand. It only reads: the discovery cache is off,
 * no agent is started (a version comes from the package beside the program, or its `--version`).
 * Names no harness: everything comes from the registry and each harness's `doctor` data.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import which from 'which'
import type { StoreContext } from '../context.js'
import { Diagnostics } from '../diagnostics.js'
import { openReadOnly, type ReadOnlyDb } from '../io/sqlite-readonly.js'
import { asFerryError } from '../errors.js'
import type { FerryRecord } from '../model.js'
import { harnesses } from '../harness/registry.js'
import type { DoctorSpec, Harness, SessionInfo } from '../harness/types.js'

export interface Finding {
  /** The native type not understood, or the problem code for something unreadable. */
  type: string
  count: number
  sessions: number
  /** One place it was found: `file:line` (1-based) or the session and record id. */
  example: string
}

export interface AgentReport {
  harness: string
  name: string
  installed: { path: string; version: string | null; from: 'package' | 'version-flag' | 'unknown' } | null
  verified: DoctorSpec['verified']
  /** `verified`, `newer`, `older`, `unverified` (no version ferry ran), `unknown` (installed version not found), `absent`. */
  status: 'verified' | 'newer' | 'older' | 'unverified' | 'unknown' | 'absent'
  store: string
  storeExists: boolean
  sessions: number
  scanned: number
  unknown: Finding[]
  unreadable: Finding[]
  notCovered: readonly string[]
}

export interface DoctorOptions {
  /** How many of the newest sessions of each agent are read (default 12). */
  newest?: number
  /** Only these harness ids. */
  only?: readonly string[]
  /** Time allowed for a `--version` run (ms). */
  versionTimeoutMs?: number
}

/** The agents `doctor` checks: the stores with doctor data, in registry order. */
export function doctorHarnesses(): Harness[] {
  return harnesses.filter((h) => h.kind === 'store' && !h.holdsCopies && h.doctor)
}

export async function doctor(ctx: StoreContext, opts: DoctorOptions = {}): Promise<AgentReport[]> {
  const out: AgentReport[] = []
  // A read-only context: no discovery cache is written, nothing is printed (findings are returned).
  const quiet: StoreContext = { ...ctx, env: { ...ctx.env, FERRY_NO_CACHE: '1' } }
  for (const h of doctorHarnesses()) {
    if (opts.only?.length && !opts.only.includes(h.id)) continue
    out.push(await checkAgent(quiet, h, opts))
  }
  return out
}

async function checkAgent(ctx: StoreContext, h: Harness, opts: DoctorOptions): Promise<AgentReport> {
  const spec = h.doctor!
  const installed = findInstalled(ctx, h, spec, opts.versionTimeoutMs ?? 3000)
  const store = h.root(ctx)
  const diagnostics = new Diagnostics({ stream: null })
  const local: StoreContext = { ...ctx, diagnostics }
  const newest: SessionInfo[] = []
  const n = opts.newest ?? 12
  let sessions = 0
  if (h.discover) {
    for await (const s of h.discover(local, { all: true })) {
      sessions++
      newest.push(s)
      if (newest.length > n * 4) trim(newest, n)
    }
    trim(newest, n)
  }
  const unknown = new Tally()
  const unreadable = new Tally()
  // Problems found while listing (a store that cannot be opened) are unreadable too.
  for (const d of diagnostics.items.splice(0)) if (d.severity === 'error') unreadable.add(d.code, 'listing', d.position?.file ? `${d.position.file}${d.position.line ? `:${d.position.line}` : ''}` : store)
  diagnostics.items.length = 0
  for (const s of newest) await scan(local, h, spec, s, unknown, unreadable)
  if (spec.tables) for (const db of new Set(newest.map((s) => s.path))) schema(h, spec.tables, db, unknown, unreadable)
  return {
    harness: h.id,
    name: h.name,
    installed,
    verified: spec.verified,
    status: status(installed, spec),
    store,
    storeExists: existsSync(store),
    sessions,
    scanned: newest.length,
    unknown: unknown.list(),
    unreadable: unreadable.list(),
    notCovered: spec.notCovered,
  }
}

function time(s: SessionInfo): string {
  return s.updated_at ?? s.created_at ?? ''
}

function trim(list: SessionInfo[], n: number): void {
  list.sort((a, b) => (time(a) < time(b) ? 1 : time(a) > time(b) ? -1 : 0))
  list.length = Math.min(list.length, n)
}

/** Reads one session with native records and counts every native type and unknown block the harness does not list. */
async function scan(ctx: StoreContext, h: Harness, spec: DoctorSpec, s: SessionInfo, unknown: Tally, unreadable: Tally): Promise<void> {
  if (!h.read) return
  const known = matcher(spec.known)
  try {
    for await (const r of h.read(ctx, s, { native: true }) as AsyncIterable<FerryRecord>) {
      if (r.kind === 'native' && !known(r.native_type)) unknown.add(r.native_type, r.sid, where(s, r))
      else if (r.kind === 'message')
        for (const b of r.blocks) if (b.type === 'unknown' && !known(b.native_type)) unknown.add(`block ${b.native_type}`, r.sid, where(s, r))
    }
  } catch (err) {
    const e = asFerryError(err, 'unreadable')
    unreadable.add(e.code, s.sid, e.position?.file ? `${e.position.file}${e.position.line ? `:${e.position.line}` : ''}` : s.path)
  }
  for (const d of ctx.diagnostics.items.splice(0)) {
    if (d.severity !== 'error') continue
    unreadable.add(d.code, s.sid, d.position?.file ? `${d.position.file}${d.position.line ? `:${d.position.line}` : ''}` : s.path)
  }
}

/**
 * The tables and columns of a session's SQLite database against the verified schema: a new table
 * or column is where a new version keeps what ferry would not read. Files that are not SQLite are skipped.
 */
function schema(h: Harness, tables: Readonly<Record<string, readonly string[]>>, path: string, unknown: Tally, unreadable: Tally): void {
  if (!isSqlite(path)) return
  let ro: ReadOnlyDb | undefined
  try {
    ro = openReadOnly(path, { source: h.id })
    const rows = ro.db.prepare("SELECT m.name AS t, p.name AS c FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.name, p.cid").all() as { t: string; c: string }[]
    const newTables = new Set<string>()
    for (const { t, c } of rows) {
      const cols = Object.hasOwn(tables, t) ? tables[t]! : undefined
      if (!cols) {
        if (!newTables.has(t)) unknown.add(`${h.id}/table ${t}`, path, `${path} (table ${t})`)
        newTables.add(t)
      } else if (!cols.includes('*') && !cols.includes(c)) unknown.add(`${h.id}/column ${t}.${c}`, path, `${path} (table ${t})`)
    }
  } catch (err) {
    const e = asFerryError(err, 'db-error')
    unreadable.add(e.code, path, path)
  } finally {
    ro?.close()
  }
}

function isSqlite(path: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const b = Buffer.alloc(16)
    return readSync(fd, b, 0, 16, 0) === 16 && b.toString('latin1') === 'SQLite format 3\0'
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function where(s: SessionInfo, r: FerryRecord): string {
  const n = 'native' in r ? r.native : undefined
  if (n && typeof n.line === 'number') return `${n.file && !s.path.endsWith(n.file) ? join(s.path, n.file) : s.path}:${n.line + 1}`
  if (n?.table) return `${s.path} (${n.table}${n.pk ? ` ${n.pk}` : ''})`
  return `${s.path} (${'id' in r ? r.id : r.kind})`
}

/** Exact names, or prefixes written `prefix*`. */
function matcher(list: readonly string[]): (t: string) => boolean {
  const exact = new Set(list.filter((k) => !k.endsWith('*')))
  const prefixes = list.filter((k) => k.endsWith('*')).map((k) => k.slice(0, -1))
  return (t) => exact.has(t) || prefixes.some((p) => t.startsWith(p))
}

class Tally {
  private readonly m = new Map<string, { count: number; sessions: Set<string>; example: string }>()
  add(type: string, session: string, example: string): void {
    const e = this.m.get(type)
    if (e) {
      e.count++
      e.sessions.add(session)
    } else this.m.set(type, { count: 1, sessions: new Set([session]), example })
  }
  list(): Finding[] {
    return [...this.m].map(([type, e]) => ({ type, count: e.count, sessions: e.sessions.size, example: e.example })).sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1))
  }
}

/**
 * The agent's program on PATH and its version: from the package.json of one of its npm packages
 * above the program's real path (nothing runs), else from `<program> --version` with a short timeout,
 * run with the context's HOME.
 */
function findInstalled(ctx: StoreContext, h: Harness, spec: DoctorSpec, timeoutMs: number): AgentReport['installed'] {
  for (const bin of spec.bins) {
    const found = which.sync(bin, { nothrow: true, path: ctx.env.PATH ?? '' })
    if (!found) continue
    let real = found
    try {
      real = realpathSync(found)
    } catch {
      /* a dangling link: keep the name */
    }
    if (h.isOwnBinary && !h.isOwnBinary(real)) continue
    const pkg = packageVersion(real, spec.packages ?? [])
    if (pkg) return { path: found, version: pkg, from: 'package' }
    const flag = versionFlag(ctx, found, timeoutMs)
    return { path: found, version: flag, from: flag ? 'version-flag' : 'unknown' }
  }
  return null
}

function packageVersion(real: string, names: readonly string[]): string | null {
  if (!names.length) return null
  let dir = dirname(real)
  for (let i = 0; i < 8; i++) {
    const p = join(dir, 'package.json')
    if (existsSync(p)) {
      try {
        const j = JSON.parse(readFileSync(p, 'utf8')) as { name?: unknown; version?: unknown }
        if (typeof j.name === 'string' && names.includes(j.name) && typeof j.version === 'string') return j.version
      } catch {
        /* not a package file we can read: keep looking up */
      }
    }
    const up = dirname(dir)
    if (up === dir) break
    dir = up
  }
  return null
}

function versionFlag(ctx: StoreContext, path: string, timeoutMs: number): string | null {
  const r = spawnSync(path, ['--version'], { env: ctx.env, timeout: timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const m = /\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?/.exec(`${r.stdout ?? ''}\n${r.stderr ?? ''}`)
  return m ? m[0] : null
}

function status(installed: AgentReport['installed'], spec: DoctorSpec): AgentReport['status'] {
  if (!installed) return 'absent'
  if (!spec.verified.versions.length) return 'unverified'
  if (!installed.version) return 'unknown'
  const v = installed.version
  if (spec.verified.versions.includes(v)) return 'verified'
  const max = spec.verified.versions.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b))
  const min = spec.verified.versions.reduce((a, b) => (compareVersions(a, b) <= 0 ? a : b))
  if (compareVersions(v, max) > 0) return 'newer'
  if (compareVersions(v, min) < 0) return 'older'
  return 'verified'
}

/** Numeric comparison of dotted versions (`0.171.0` < `0.180`); a pre-release suffix sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[-+]/)[0]!.split('.').map((x) => Number(x) || 0)
  const pb = b.split(/[-+]/)[0]!.split('.').map((x) => Number(x) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d) return d
  }
  return (b.includes('-') ? 1 : 0) - (a.includes('-') ? 1 : 0)
}

/** Whether the report asks for exit 1: something unreadable or not understood. */
export function failed(reports: readonly AgentReport[]): boolean {
  return reports.some((r) => r.unknown.length > 0 || r.unreadable.length > 0)
}

/** The text report: one paragraph per agent. */
export function formatReport(reports: readonly AgentReport[], home: string): string {
  const lines: string[] = []
  const tilde = (p: string) => (p === home || p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p)
  for (const r of reports) {
    const max = r.verified.versions.length ? r.verified.versions.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b)) : undefined
    const v = r.installed?.version
    const head =
      r.status === 'absent' ? `${r.name}: not installed` :
      r.status === 'verified' ? `${r.name} ${v}: verified (${r.verified.date})` :
      r.status === 'newer' ? `${r.name} ${v} is newer than verified (${max})` :
      r.status === 'older' ? `${r.name} ${v} is older than verified (${r.verified.versions.join(', ')})` :
      r.status === 'unknown' ? `${r.name} at ${r.installed!.path}: version not found (verified: ${max})` :
      `${r.name}${v ? ` ${v}` : ''}: installed, never verified against a real client (${r.verified.how})`
    const store = r.storeExists ? `${tilde(r.store)}, ${r.sessions} session${r.sessions === 1 ? '' : 's'}` : `${tilde(r.store)} (no store)`
    const nUnknown = r.unknown.length
    const scan = r.scanned === 0 ? '' : nUnknown || r.unreadable.length
      ? `; ${nUnknown ? `${nUnknown} unknown type${nUnknown === 1 ? '' : 's'}` : ''}${nUnknown && r.unreadable.length ? ', ' : ''}${r.unreadable.length ? `${r.unreadable.reduce((a, f) => a + f.count, 0)} unreadable` : ''} in ${r.scanned} session${r.scanned === 1 ? '' : 's'} read`
      : `; ${r.scanned} newest read, all understood`
    lines.push(`${head}; ${store}${scan}`)
    for (const f of r.unknown) lines.push(`  unknown ${f.type}: ${f.count} in ${f.sessions} session${f.sessions === 1 ? '' : 's'}, e.g. ${f.example}`)
    for (const f of r.unreadable) lines.push(`  unreadable (${f.type}): ${f.count} in ${f.sessions} session${f.sessions === 1 ? '' : 's'}, e.g. ${f.example}`)
  }
  return lines.join('\n') + '\n'
}
