// #47, found by `continue` into hostile targets and the Cursor/ZCode mutants of `npm run fuzz`
// (fuzz/targets.mjs, fuzz/mutants.mjs), as real processes:
// - the Pi writer followed a symlinked `~/.pi/agent/sessions` out of the agent dir (exit 0, the
//   session outside), where every other writer refuses with unsafe-path;
// - a full disk under the Grok, Copilot, Qwen, Kilo and Cursor writers was `write-failed` naming no
//   file (ENOSPC on a descriptor, SQLITE_FULL, have no path);
// - `continue --new` into a store that already held a session of the copy's id (written by `write`)
//   failed like the run without it, and the message offered `--force`, which `continue` does not have;
// - `cat` of a stream or a Cursor transcript with one value nested 100,000 deep ended in
//   `internal: Maximum call stack size exceeded`, losing every record after it.
import t from 'tap'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')
const sha = (f: string) => spawnSync('sha256sum', [f], { encoding: 'utf8' }).stdout.split(' ')[0]

/** The sample Codex session as a stream whose directory is `work`. */
async function stream(work: string): Promise<string> {
  return (await ferry(['--home', HOME, 'cat', 'codex:019a3c1e'])).stdout.replaceAll('"cwd":"/home/dev/demo-app"', `"cwd":${JSON.stringify(work)}`)
}

t.test('pi: a symlinked sessions folder leading out of the agent dir is unsafe-path; nothing lands outside', async (t) => {
  const home = tempDir(t)
  const outside = tempDir(t)
  const work = tempDir(t)
  mkdirSync(join(home, '.pi/agent'), { recursive: true })
  symlinkSync(outside, join(home, '.pi/agent/sessions'))
  const r = await ferry(['--home', home, 'write', '--to', 'pi'], { input: await stream(work) })
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, /^ferry: error: pi:unsafe-path: .*\.pi\/agent\/sessions/m)
  t.same(readdirSync(outside), [], 'nothing written through the link')
  // $PI_CODING_AGENT_SESSION_DIR is a root of its own: a link there is where the user keeps them.
  const own = tempDir(t)
  const link = join(tempDir(t), 'sessions')
  symlinkSync(own, link)
  const e = await ferry(['write', '--to', 'pi'], { input: await stream(work), env: { HOME: tempDir(t), PI_CODING_AGENT_SESSION_DIR: link } })
  t.equal(e.code, 0, e.stderr)
  t.equal(readdirSync(own).length, 1, 'written into the session dir the variable names')
})

t.test('a full disk: the write-failed line names the path being written, for every writer', async (t) => {
  const probe = mkdtempSync(join(tmpdir(), 'ferry-tmpfs-'))
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', probe], { encoding: 'utf8' })
  spawnSync('umount', [probe])
  rmSync(probe, { recursive: true, force: true })
  if (m.status !== 0) return t.skip(`cannot mount a tmpfs here (${(m.stderr || '').trim() || 'not permitted'})`)
  const work = tempDir(t)
  const lines = (await stream(work)).trimEnd().split('\n')
  const sid = JSON.parse(lines[1]!).sid as string
  lines.splice(lines.length - 1, 0, JSON.stringify({ kind: 'message', sid, id: `${sid}:big`, role: 'user', blocks: [{ type: 'text', text: 'b'.repeat(1_000_000) }] }))
  for (const to of ['grok', 'copilot', 'qwen', 'kilo', 'cursor']) {
    const mnt = mkdtempSync(join(tmpdir(), 'ferry-tmpfs-'))
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt])
    try {
      const r = await ferry(['--home', mnt, 'write', '--to', to], { input: lines.join('\n') + '\n' })
      t.equal(r.code, 1, `${to}: exit 1`)
      t.match(r.stderr, new RegExp(`^ferry: error: ${to}:write-failed: ${mnt}/\\S+: .*(no space left on device \\(ENOSPC\\)|database or disk is full)`, 'm'), `${to}: located: ${r.stderr}`)
      t.notMatch(r.stderr, /internal|\n\s+at /, `${to}: no crash`)
    } finally {
      spawnSync('umount', [mnt])
      rmSync(mnt, { recursive: true, force: true })
    }
  }
})

t.test('continue into a store that holds a session of the same id: exists, saying --new; --new writes a fresh copy', async (t) => {
  const home = tempDir(t)
  const work = tempDir(t)
  const src = join(tempDir(t), 'session.jsonl')
  writeFileSync(src, await stream(work))
  const w = await ferry(['--home', home, 'write', '--to', 'claude-code', '--json'], { input: readFileSync(src) })
  t.equal(w.code, 0, w.stderr)
  const there = jsonl(w.stdout)[0].path as string
  const before = sha(there)
  const r = await ferry(['--home', home, 'continue', src, '--with', 'claude-code', '--cwd', work])
  t.equal(r.code, 1)
  t.match(r.stderr, /^ferry: error: claude-code:exists: \/\S+: .*already holds a session with this copy's id: pass --new for a fresh copy$/m)
  t.equal(sha(there), before, 'the session already there is unchanged')
  const n = await ferry(['--home', home, 'continue', src, '--with', 'claude-code', '--cwd', work, '--new', '--json'])
  t.equal(n.code, 0, n.stderr)
  const fresh = jsonl(n.stdout)[0]
  t.not(fresh.path, there, 'a fresh copy')
  t.equal(sha(there), before, 'the session already there is still unchanged')
})

t.test('cat: a value nested 100,000 deep costs its line; the records after it come through', async (t) => {
  const work = tempDir(t)
  const lines = (await stream(work)).trimEnd().split('\n')
  const sid = JSON.parse(lines[1]!).sid as string
  lines.splice(3, 0, JSON.stringify({ kind: 'message', sid, id: `${sid}:deep`, role: 'user', blocks: [{ type: 'tool_use', id: 'd', name: 'Bash', input: { v: 'DEEP' } }] }).replace('"DEEP"', '['.repeat(100_000) + ']'.repeat(100_000)))
  const file = join(tempDir(t), 'deep.jsonl')
  writeFileSync(file, lines.join('\n') + '\n')
  const r = await ferry(['cat', file])
  t.equal(r.code, 1)
  t.match(r.stderr, new RegExp(`^ferry: error: ferry:bad-line: ${file}:4: nested deeper than 1000 levels; skipped$`, 'm'))
  t.notMatch(r.stderr, /internal/)
  t.equal(jsonl(r.stdout).filter((x) => x.kind !== 'stream').length, lines.length - 2, 'every other record')
})
