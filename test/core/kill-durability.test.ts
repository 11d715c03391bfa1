/**
 * Durability under `kill -9` (issue #20): a many-session export killed in the
 * middle leaves only complete sessions under final names (each byte-identical
 * to what an uninterrupted run writes), at most temp files beside them, and a
 * re-run with --force completes the export.
 */
import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TEMP_PREFIX } from '../../lib/io/atomic.js'
import { FERRY, ROOT, ferry, tempDir } from '../kit.js'

const SESSIONS = 150

/** A written file with its stream header's created_at (the time of the run) blanked. */
const content = (file: string): string => readFileSync(file, 'utf8').replace(/^(\{"kind":"stream"[^\n]*?)"created_at":"[^"]*"/, '$1"created_at":""')

const finals = (dir: string): string[] => readdirSync(dir).filter((f) => !f.startsWith(TEMP_PREFIX)).sort()

t.test('kill -9 during convert --from: no partial session under a final name', async (t) => {
  const home = tempDir(t, 'ferry-kill-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', String(SESSIONS), '--lines-per-session', '20', '--seed', 'kill-9', '--quiet'])
  const ref = join(home, 'ref') + '/'
  const full = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', ref], { timeout: 120_000 })
  t.equal(full.code, 0, full.stderr)
  t.equal(finals(ref).length, SESSIONS, 'the uninterrupted run wrote every session')

  const out = join(home, 'killed') + '/'
  const child = spawn(process.execPath, [FERRY, '--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out], { stdio: 'ignore' })
  const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, signal) => res(signal)))
  // Kill once a few sessions are done, under final names (while a batch is made durable, temp files can be all there is).
  let seen = 0
  for (let i = 0; i < 6000 && child.exitCode === null; i++) {
    try {
      seen = finals(out).length
    } catch {
      seen = 0
    }
    if (seen >= 5) break
    await new Promise((r) => setTimeout(r, 5))
  }
  child.kill('SIGKILL')
  const signal = await exited
  t.equal(signal, 'SIGKILL', 'killed before it finished')
  const left = finals(out)
  t.ok(left.length > 0 && left.length < SESSIONS, `${left.length} of ${SESSIONS} sessions under final names`)
  for (const f of left) {
    if (content(join(out, f)) !== content(join(ref, f))) t.fail(`${f} differs from the uninterrupted run's`)
  }
  t.pass(`every one of the ${left.length} is complete, byte for byte`)
  t.ok(readdirSync(out).every((f) => finals(out).includes(f) || f.startsWith(TEMP_PREFIX)), 'anything else is a temp file')

  const again = await ferry(['--home', home, 'convert', '--from', 'claude-code', '--to', 'ferry', '--out', out, '--force'], { timeout: 120_000 })
  t.equal(again.code, 0, again.stderr)
  t.same(finals(out), finals(ref), 'a re-run with --force completes the export')
})

t.test('commits fsynced in the background: reports in input order, a session met twice is written once and reported `exists`', async (t) => {
  const home = tempDir(t, 'ferry-bg-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', '40', '--lines-per-session', '10', '--seed', 'bg-commit', '--quiet'])
  const all = await ferry(['--home', home, 'cat', '--from', 'claude-code'], { timeout: 120_000 })
  t.equal(all.code, 0, all.stderr)
  // The stream with its 7th session given twice in a row: the copy arrives while the first may still be syncing,
  // and must find its name taken either way (checked at open, or by the no-clobber link).
  const lines = all.stdout.split('\n').filter(Boolean)
  const starts = lines.flatMap((l, i) => (l.startsWith('{"kind":"session"') ? [i] : []))
  const seventh = lines.slice(starts[6], starts[7])
  const input = [...lines.slice(0, starts[7]), ...seventh, ...lines.slice(starts[7])].join('\n') + '\n'
  const out = join(home, 'out') + '/'
  const r = await ferry(['convert', '-', '--to', 'ferry', '--out', out], { input, timeout: 120_000 })
  t.equal(r.code, 1, 'exit 1: one session was not written')
  const sid = JSON.parse(seventh[0]!).sid as string
  t.match(r.stderr, new RegExp(`ferry:exists: .*${sid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), 'the repeated session is reported as existing')
  const reported = r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[1])
  const order = starts.map((i) => (JSON.parse(lines[i]!).native_id as string))
  t.same(reported, order, 'one report a session, in the order of the input')
  t.equal(finals(out).length, starts.length, 'one file a session')
  t.notOk(readdirSync(out).some((f) => f.startsWith(TEMP_PREFIX)), 'no temp file left')
})
