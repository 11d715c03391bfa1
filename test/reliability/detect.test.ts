// #47 item 13: format detection must not depend on the first line fitting a sniff buffer. A Cursor
// transcript whose first line is longer than the Claude Code sniff (256 KiB) was taken for an empty
// Claude Code session by its name (a UUID .jsonl) and read as Claude Code: most records lost, exit 0.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, jsonl, sampleHome } from '../kit.js'

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
