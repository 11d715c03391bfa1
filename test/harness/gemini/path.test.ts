// A Gemini CLI chat file named by its path (as Gemini's hooks pass it) is read as Gemini's, not
// taken for an interchange Messages document because a `$set` line mentions "messages".
import t from 'tap'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, tempDir } from '../../kit.js'

t.test('a chat file by path is a Gemini session', async (t) => {
  const file = join(FIXTURES, 'gemini', 'home', '.gemini', 'tmp', 'demo-app', 'chats', 'session-2026-11-20T09-30-3f0c2a9e.jsonl')
  const r = await ferry(['--home', join(FIXTURES, 'gemini', 'home'), 'cat', file, '--no-native'])
  t.equal(r.code, 0, r.stderr)
  t.equal(jsonl(r.stdout).find((x) => x.kind === 'session')?.sid, 'gemini:3f0c2a9e-1b7d-4c55-9e21-5a8d7c6b4e10')
  const a = await ferry(['--home', join(FIXTURES, 'gemini', 'home'), '--db', join(tempDir(t), 'x.db'), 'archive', '--session', file, '--json'])
  t.equal(a.code, 0, a.stderr)
  t.equal(JSON.parse(a.stdout).sessions.added, 1, 'the archive takes it as Gemini\'s too')
})
