/**
 * Discovery cost (issue #20), counted in files opened, never in time: under
 * `ferry ls --json | head -1` discovery stops early (a bounded read-ahead,
 * not the whole store), and a full listing opens each session file once.
 * Counted with strace on the real CLI through a real shell pipe; skipped
 * where strace is not installed.
 */
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, ROOT, tempDir } from '../kit.js'

const SESSIONS = 2000
const hasStrace = spawnSync('strace', ['-V']).status === 0

/** Paths of the store's session files opened by `ferry ls --json --sort none` (discovery order, streamed; piped into `cmd`). */
function opened(home: string, log: string, tail: string): { files: string[]; stdout: string } {
  const sh = `strace -f -qq -e trace=open,openat -o '${log}' '${process.execPath}' '${FERRY}' --home '${home}' ls --json --sort none ${tail}`
  const r = spawnSync('sh', ['-c', sh], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 })
  const projects = join(home, '.claude', 'projects')
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .map((l) => /open(?:at)?\((?:AT_FDCWD, )?"([^"]+)"/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined && p.startsWith(projects) && p.endsWith('.jsonl'))
  return { files, stdout: r.stdout.toString() }
}

t.test('ls --json --sort none | head -1 stops early; a full ls opens each session file once', { skip: hasStrace ? false : 'strace is not installed' }, async (t) => {
  const home = tempDir(t, 'ferry-lslazy-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', String(SESSIONS), '--lines-per-session', '3', '--seed', 'ls-lazy', '--quiet'])

  const head = opened(home, join(home, 'head.strace'), '| head -1')
  t.equal(head.stdout.trim().split('\n').length, 1, 'one line came out')
  t.equal(JSON.parse(head.stdout).harness, 'claude-code')
  // The pipe's buffer (64 KiB, about 100 rows) plus the read-ahead bound what can be read before the write that fails.
  t.ok(head.files.length > 0 && head.files.length < SESSIONS / 5, `${head.files.length} of ${SESSIONS} session files opened`)

  const all = opened(home, join(home, 'all.strace'), '> /dev/null')
  const distinct = new Set(all.files)
  t.equal(distinct.size, SESSIONS, 'every session listed was read')
  t.equal(all.files.length, SESSIONS, 'each session file opened exactly once (head and tail through one descriptor)')
})
