// #47 item 13: format detection must not depend on the first line fitting a sniff buffer. A Cursor
// transcript whose first line is longer than the Claude Code sniff (256 KiB) was taken for an empty
// Claude Code session by its name (a UUID .jsonl) and read as Claude Code: most records lost, exit 0.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, sampleHome } from '../kit.js'

const REL = '.cursor/projects/home-dev-demo-app/agent-transcripts/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93.jsonl'

t.test('item 13: a Cursor transcript with a 2 MB first line is read as Cursor, every record', async (t) => {
  const home = sampleHome(t)
  const file = join(home, REL)
  const before = jsonl((await ferry(['--home', home, 'cat', file])).stdout)
  t.equal(before[1]?.source?.harness ?? before[1]?.sid?.split(':')[0], 'cursor', 'the fixture reads as Cursor')
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
  lines[0] = lines[0]!.replace(/^\{/, `{"pad":"${'a'.repeat(2_000_000)}",`)
  writeFileSync(file, lines.join('\n') + '\n')
  const r = await ferry(['--home', home, 'cat', file])
  t.equal(r.code, 0, r.stderr.slice(0, 300))
  const after = jsonl(r.stdout)
  t.equal(after[1]?.sid?.split(':')[0], 'cursor', 'still Cursor, not Claude Code')
  t.equal(after.length, before.length, `every record (${after.length} of ${before.length})`)
})

// Found by `npm run fuzz` (seed 4747): a Qwen Code session emptied or cut inside its first record was
// "no session" (unlocated); the file stem is its id, so it is still that session and the cut is located.
t.test('a Qwen Code session emptied, or cut inside its first record, is still found by its id', async (t) => {
  const home = join(sampleHome(t), '..', 'qwen-home')
  const { cpSync } = await import('node:fs')
  cpSync(join(FIXTURES, 'qwen', 'home'), home, { recursive: true })
  const id = 'd3b1c0de-5e6f-4a7b-8c9d-0e1f2a3b4c5d'
  const file = join(home, '.qwen/projects/-home-dev-demo-app/chats', `${id}.jsonl`)
  const whole = readFileSync(file)
  writeFileSync(file, '')
  const empty = await ferry(['--home', home, 'cat', `qwen:${id}`])
  t.equal(empty.code, 0, empty.stderr.slice(0, 300))
  t.ok(jsonl(empty.stdout).some((r) => r.kind === 'session' && r.sid === `qwen:${id}`), 'an empty session, not "no session"')
  writeFileSync(file, whole.subarray(0, 40))
  const cut = await ferry(['--home', home, 'cat', `qwen:${id}`])
  t.equal(cut.code, 1)
  t.notMatch(cut.stderr, /no-session/, 'found')
  t.match(cut.stderr, new RegExp(`${id}\\.jsonl:1: `), 'the damage located at line 1')
})

// The same fuzz case for Gemini CLI: its file name carries only eight characters of the id, the
// metadata line the rest; emptied or cut inside that line, the file is still the session its folders
// (or, failing them, its name) give, found by the full id and damaged at its place.
t.test('a Gemini CLI recording emptied, or cut inside its metadata line, is still found by its id', async (t) => {
  const home = join(sampleHome(t), '..', 'gemini-home')
  const { cpSync } = await import('node:fs')
  cpSync(join(sampleHome(t), '.gemini'), join(home, '.gemini'), { recursive: true })
  const id = 'b2c4e6f8-0a1b-4c2d-8e3f-5a6b7c8d9e0f'
  const file = join(home, '.gemini/tmp/demo-app/chats/session-2026-11-21T10-00-b2c4e6f8.jsonl')
  const whole = readFileSync(file)
  writeFileSync(file, '')
  const empty = await ferry(['--home', home, 'cat', `gemini:${id}`])
  t.equal(empty.code, 0, empty.stderr.slice(0, 300))
  t.ok(jsonl(empty.stdout).some((r) => r.kind === 'session' && r.sid === `gemini:${id}`), 'an empty session, not "no session"')
  writeFileSync(file, whole.subarray(0, 30))
  const cut = await ferry(['--home', home, 'cat', `gemini:${id}`])
  t.equal(cut.code, 1)
  t.notMatch(cut.stderr, /no-session/, 'found')
  t.match(cut.stderr, /session-2026-11-21T10-00-b2c4e6f8\.jsonl:1: /, 'the damage located at line 1')
})
