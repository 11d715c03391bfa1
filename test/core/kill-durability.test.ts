/**
 * Durability under `kill -9` (issue #20): a many-session export (sequential,
 * or --jobs 2 with worker threads) killed while it runs leaves only complete
 * sessions under final names (each byte-identical to what an uninterrupted
 * run writes), at most temp files beside them, and a re-run with --force
 * completes the export. Where the
 * kill lands (how many sessions were done, or whether the run had already
 * finished on a fast machine) is reported, never asserted: the guarantees
 * hold at every moment. SIGINT and SIGTERM leave no temp file either.
 */
import t from 'tap'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TEMP_PREFIX } from '../../lib/io/atomic.js'
import { ferry, gen, scaled, spawnFerry, tempDir } from '../kit.js'

const SESSIONS = 150

/** A written file with its stream header's created_at (the time of the run) blanked. */
const content = (file: string): string => readFileSync(file, 'utf8').replace(/^(\{"kind":"stream"[^\n]*?)"created_at":"[^"]*"/, '$1"created_at":""')

const finals = (dir: string): string[] => readdirSync(dir).filter((f) => !f.startsWith(TEMP_PREFIX)).sort()
const lines = (s: string): string[] => s.split('\n').filter(Boolean)

/** A written session file that is whole: every line JSON, the last one its end record. */
const whole = (file: string): boolean => {
  const text = readFileSync(file, 'utf8')
  try {
    return text.endsWith('\n') && lines(text).map((l) => JSON.parse(l)).at(-1)?.kind === 'end'
  } catch {
    return false
  }
}

/** Polls `ready` every `ms` until it holds or 30 s (scaled for load) have passed. */
async function until(ready: () => boolean, ms = 5): Promise<void> {
  const end = Date.now() + scaled(30_000)
  while (!ready() && Date.now() < end) await new Promise((r) => setTimeout(r, ms))
}

/**
 * What must hold after a kill, wherever it landed: every session under a final name is byte for byte
 * the uninterrupted run's, anything else is a temp file, and a re-run with --force completes the export.
 */
type Asserts = { comment(...m: unknown[]): void; ok(v: unknown, m?: string): void; equal(a: unknown, b: unknown, m?: string): void; same(a: unknown, b: unknown, m?: string): void }

async function afterKill(t: Asserts, end: { code: number | null; signal: NodeJS.Signals | null }, out: string, ref: string, total: number, rerun: string[]): Promise<void> {
  const left = existsSync(out) ? finals(out) : []
  t.comment(`the kill landed after ${left.length} of ${total} sessions (${end.signal ?? `exit ${end.code}`})`)
  t.ok(end.signal === 'SIGKILL' || end.code === 0, `killed, or had finished before the kill (${end.signal ?? end.code})`)
  t.same(left.filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'every session under a final name is complete, byte for byte as the uninterrupted run wrote it')
  t.same(existsSync(out) ? readdirSync(out).filter((f) => !left.includes(f) && !f.startsWith(TEMP_PREFIX)) : [], [], 'anything else is a temp file')
  const again = await ferry([...rerun, '--force'], { timeout: 120_000 })
  t.equal(again.code, 0, again.stderr)
  t.same(finals(out), finals(ref), 'a re-run with --force completes the export')
  t.same(finals(out).filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'and every session is the one the uninterrupted run wrote')
}

/**
 * An export of `sessions` generated sessions killed with SIGKILL once a few are done (`jobs`: worker
 * threads, or none), checked against an uninterrupted run of the same export.
 */
async function killDuring(t: Asserts & { comment(...m: unknown[]): void }, home: string, opts: { sessions: number; lines: number; seed: string; jobs?: string[] }): Promise<void> {
  gen(home, { harness: 'claude', sessions: opts.sessions, lines: opts.lines, seed: opts.seed })
  const convert = (out: string, jobs = opts.jobs ?? []) => ['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, ...jobs]
  const ref = join(home, 'ref') + '/'
  const full = await ferry(convert(ref, opts.jobs ? ['--jobs', '1'] : []), { timeout: 120_000 })
  t.equal(full.code, 0, full.stderr)
  t.equal(finals(ref).length, opts.sessions, 'the uninterrupted run wrote every session')
  const out = join(home, 'killed') + '/'
  const { child, exited, killGroup } = spawnFerry(convert(out))
  // Aimed at the middle of the run: once a few sessions are done, under final names.
  await until(() => child.exitCode !== null || (existsSync(out) && finals(out).length >= 5))
  killGroup()
  await afterKill(t, await exited, out, ref, opts.sessions, convert(out))
}

t.test('kill -9 during convert --from: no partial session under a final name, and a re-run completes it', async (t) => {
  await killDuring(t, tempDir(t, 'ferry-kill-'), { sessions: SESSIONS, lines: 20, seed: 'kill-9' })
})

t.test('kill -9 during convert --jobs 2: no partial session under a final name, and a re-run completes it', async (t) => {
  await killDuring(t, tempDir(t, 'ferry-jobs-kill-'), { sessions: 120, lines: 12, seed: 'jobs-kill', jobs: ['--jobs', '2'] })
})

t.test('SIGINT and SIGTERM during convert --jobs 2: no temp file left, only complete sessions, and a re-run completes it', async (t) => {
  const home = tempDir(t, 'ferry-jobs-int-')
  const n = 150
  gen(home, { harness: 'claude', sessions: n, lines: 12, seed: 'jobs-int' })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const out = join(home, signal) + '/'
    const { child, exited } = spawnFerry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--jobs', '2'])
    // Aimed at a moment the workers have files open (some committed, others still temp files).
    const temps = () => (existsSync(out) ? readdirSync(out).filter((f) => f.startsWith(TEMP_PREFIX)).length : 0)
    await until(() => child.exitCode !== null || (temps() > 0 && finals(out).length >= 3), 2)
    child.kill(signal)
    const end = await exited
    t.ok(end.signal === signal || end.code === 0, `${signal}: ended by it, or had finished before it (${end.signal ?? end.code})`)
    const left = existsSync(out) ? finals(out) : []
    t.comment(`${signal} landed after ${left.length} of ${n} sessions`)
    t.same(existsSync(out) ? readdirSync(out).filter((f) => f.startsWith(TEMP_PREFIX)) : [], [], `${signal}: no temp file left`)
    t.same(left.filter((f) => !whole(join(out, f))), [], `${signal}: every session under a final name is whole (ends with its end record)`)
    const again = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--force', '--jobs', '2'], { timeout: 120_000 })
    t.equal(again.code, 0, again.stderr)
    t.equal(finals(out).length, n, `${signal}: a re-run with --force completes the export`)
  }
})
