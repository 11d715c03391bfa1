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

t.test('kill -9 during convert --from: no partial session under a final name, and a re-run completes it', async (t) => {
  const home = tempDir(t, 'ferry-kill-')
  gen(home, { harness: 'claude', sessions: SESSIONS, lines: 20, seed: 'kill-9' })
  const ref = join(home, 'ref') + '/'
  const full = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', ref], { timeout: 120_000 })
  t.equal(full.code, 0, full.stderr)
  t.equal(finals(ref).length, SESSIONS, 'the uninterrupted run wrote every session')

  const out = join(home, 'killed') + '/'
  const { child, exited } = spawnFerry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out])
  // Aim the kill at the middle of the run: once a few sessions are done, under final names.
  await until(() => child.exitCode !== null || (existsSync(out) && finals(out).length >= 5))
  child.kill('SIGKILL')
  const end = await exited
  const left = existsSync(out) ? finals(out) : []
  t.comment(`the kill landed after ${left.length} of ${SESSIONS} sessions (${end.signal ?? `exit ${end.code}`})`)
  t.ok(end.signal === 'SIGKILL' || end.code === 0, `killed, or had finished before the kill (${end.signal ?? end.code})`)
  t.same(left.filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'every session under a final name is complete, byte for byte as the uninterrupted run wrote it')
  t.same(existsSync(out) ? readdirSync(out).filter((f) => !left.includes(f) && !f.startsWith(TEMP_PREFIX)) : [], [], 'anything else is a temp file')

  const again = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--force'], { timeout: 120_000 })
  t.equal(again.code, 0, again.stderr)
  t.same(finals(out), finals(ref), 'a re-run with --force completes the export')
  t.same(finals(out).filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'and every session is the one the uninterrupted run wrote')
})

t.test('kill -9 during convert --jobs 2: no partial session under a final name, and a re-run completes it', async (t) => {
  const home = tempDir(t, 'ferry-jobs-kill-')
  const n = 120
  gen(home, { harness: 'claude', sessions: n, lines: 12, seed: 'jobs-kill' })
  const ref = join(home, 'ref') + '/'
  const full = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', ref, '--jobs', '1'], { timeout: 120_000 })
  t.equal(full.code, 0, full.stderr)
  const out = join(home, 'killed') + '/'
  const { child, exited } = spawnFerry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--jobs', '2'])
  // Aimed at the middle of the run (a few sessions done); where it lands is reported, not asserted.
  await until(() => child.exitCode !== null || (existsSync(out) && finals(out).length >= 5))
  child.kill('SIGKILL')
  const end = await exited
  t.ok(end.signal === 'SIGKILL' || end.code === 0, `killed, or had finished before the kill (${end.signal ?? end.code})`)
  const left = existsSync(out) ? finals(out) : []
  t.comment(`the kill landed after ${left.length} of ${n} sessions`)
  t.same(left.filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'every session under a final name complete, byte for byte')
  t.same(existsSync(out) ? readdirSync(out).filter((f) => !left.includes(f) && !f.startsWith(TEMP_PREFIX)) : [], [], 'anything else is a temp file')
  const again = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--force', '--jobs', '2'], { timeout: 120_000 })
  t.equal(again.code, 0, again.stderr)
  t.same(finals(out), finals(ref), 'a re-run with --force completes the export')
  t.same(finals(out).filter((f) => content(join(out, f)) !== content(join(ref, f))), [], 'every session as the uninterrupted run wrote it')
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
