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
import { FERRY, ROOT, ferry, tempDir } from '../helpers.js'

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
  // Kill once a few sessions are done: the export is then surely between sessions or inside one.
  let seen = 0
  for (let i = 0; i < 6000 && child.exitCode === null; i++) {
    try {
      seen = readdirSync(out).length
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
