// A re-run of `ferry archive` over unchanged sessions (issue #49: 100,000 in at most 5 s) reads no
// session: no session file is opened (strace), and whether a session has a side directory comes from
// one listing of its folder, not a stat of each session. What changes in a side directory is still seen.
import t from 'tap'
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { FERRY, FIXTURE, gen, has, tempDir } from '../kit.js'
import { CLAUDE, PROJECT, archive } from './helpers.js'

t.test('unchanged sessions are not opened; a change inside a side directory, or a new one, is read', async (t) => {
  const home = tempDir(t)
  cpSync(FIXTURE.claudeCode.home, home, { recursive: true })
  rmSync(join(home, PROJECT, `${FIXTURE.claudeCode.damaged}.jsonl`))
  // Generated sessions besides the fixture's (which has the side directory), in folders of their own.
  gen(home, { harness: 'claude', seed: 'rerun', sessions: 4, lines: 4 })
  const projects = join(home, '.claude', 'projects')
  const folder = readdirSync(projects).find((d) => d !== PROJECT.split('/').pop())!
  const other = readdirSync(join(projects, folder)).find((f) => f.endsWith('.jsonl'))!.slice(0, -'.jsonl'.length)
  // Older than discovery's racy window (files changed in the last 3 s are read again, not cached).
  await new Promise((r) => setTimeout(r, 3500))
  const first = await archive(home)
  t.equal(first.code, 0, first.stderr)
  const sessions = first.sum.sessions.added as number
  t.equal(sessions, 5, 'the fixture session and four generated ones')

  if (!has('strace')) t.comment('strace not installed: the syscall check is skipped')
  else {
    const log = join(home, 'strace.log')
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=open,openat,stat,newfstatat,statx', '-o', log, process.execPath, FERRY, '--home', home, 'archive', '--json'], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } })
    t.equal(r.status, 0, r.stderr)
    t.same(JSON.parse(r.stdout).sessions, { added: 0, updated: 0, unchanged: sessions, gone: 0, failed: 0 }, 'nothing changed')
    const calls = readFileSync(log, 'utf8').split('\n')
    t.same(calls.filter((l) => /open(at)?\(.*\/projects\/.*\.jsonl"/.test(l)), [], 'no session file opened')
    // The side directory a session file could have (its name without .jsonl) is never asked for when it is not there.
    t.same(calls.filter((l) => /projects\/[^/"]+\/[^/".]+",.*ENOENT/.test(l)), [], 'no stat of a missing side directory')
  }

  // A line added to the sub-agent's file, in the session's side directory: that session is read again.
  appendFileSync(join(home, PROJECT, CLAUDE, 'subagents', 'agent-a1b2c3d4e5f607182.jsonl'), readFileSync(join(home, PROJECT, CLAUDE, 'subagents', 'agent-a1b2c3d4e5f607182.jsonl'), 'utf8').trimEnd().split('\n').pop()!.replace(/"uuid":"([^"]+)"/, '"uuid":"$1-again"') + '\n')
  const sub = await archive(home)
  t.equal(sub.code, 0, sub.stderr)
  t.equal(sub.sum.sessions.updated, 1, 'the session whose side directory changed')
  t.ok(sub.sum.records.added >= 1, `${sub.sum.records.added} record(s) added`)

  // A side directory that appears for a session that had none: that session is read again (and nothing else).
  mkdirSync(join(projects, folder, other, 'tool-results'), { recursive: true })
  writeFileSync(join(projects, folder, other, 'tool-results', 'x.txt'), 'output\n')
  const side = await archive(home)
  t.equal(side.code, 0, side.stderr)
  t.ok(side.sum.bytes > 0, 'read again')
  const { added, updated, unchanged, failed } = side.sum.sessions as Record<string, number>
  t.same({ added, failed, both: updated! + unchanged! }, { added: 0, failed: 0, both: sessions }, 'no session added or failed')
  const again = await archive(home)
  t.equal(again.sum.bytes, 0, 'and then not read again')
})
