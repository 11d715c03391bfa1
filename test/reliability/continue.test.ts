// #47 item 3: `continue` remembers its copies under the target home, and reuses one only while the
// target store still holds it.
import t from 'tap'
import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { ferry, jsonl, sampleHome, tempDir } from '../kit.js'

t.test('item 3: continue --home B never answers with a copy written into home A', async (t) => {
  const a = sampleHome(t)
  const b = sampleHome(t)
  // One process environment for both runs, as a user's shell has.
  const env = { XDG_STATE_HOME: tempDir(t) }
  const work = tempDir(t)
  const ra = await ferry(['--home', a, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })
  t.equal(ra.code, 0, ra.stderr)
  const wa = jsonl(ra.stdout)[0]
  t.ok(wa.path.startsWith(a), 'the first copy is in home A')
  const rb = await ferry(['--home', b, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })
  t.equal(rb.code, 0, rb.stderr)
  const wb = jsonl(rb.stdout)[0]
  t.notMatch(rb.stderr, /reusing/, 'nothing reused across homes')
  t.ok(wb.path.startsWith(b), `the copy for home B is in home B (${wb.path})`)
  t.ok(existsSync(wb.path), 'and exists')
  const again = await ferry(['--home', b, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })
  t.match(again.stderr, /reusing/, 'home B reuses its own copy')
  t.equal(jsonl(again.stdout)[0].id, wb.id)
})

t.test('item 3: a copy deleted from the target store (its database still there) is not reused', async (t) => {
  const home = sampleHome(t)
  const work = tempDir(t)
  const first = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'zcode', '--json', '--cwd', work])
  t.equal(first.code, 0, first.stderr)
  const w = jsonl(first.stdout)[0]
  const db = new Database(w.path)
  for (const table of ['part', 'message', 'session_entry', 'todo']) {
    try {
      db.prepare(`DELETE FROM ${table} WHERE session_id = ?`).run(w.id)
    } catch {
      // A table without session_id: nothing of the session in it.
    }
  }
  db.prepare('DELETE FROM session WHERE id = ?').run(w.id)
  db.close()
  const second = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'zcode', '--json', '--cwd', work])
  t.equal(second.code, 0, second.stderr)
  t.notMatch(second.stderr, /reusing/, 'not reused')
  const w2 = jsonl(second.stdout)[0]
  const check = new Database(w2.path, { readonly: true })
  t.ok(check.prepare('SELECT 1 FROM session WHERE id = ?').get(w2.id), 'the session it names exists in the store')
  check.close()
})

// #47 item 14: `continue -` reads a stream on stdin (main refused every one with an internal token in
// the message); a second, different stream is not answered with the first one's copy.
t.test('item 14: continue - writes the stream piped in, and a different stream is never reused', async (t) => {
  const src = sampleHome(t)
  const home = tempDir(t)
  const work = tempDir(t)
  const env = { XDG_STATE_HOME: tempDir(t) }
  const one = (await ferry(['--home', src, 'cat', 'claude-code:0b9e6c1a'])).stdout
  const two = (await ferry(['--home', src, 'cat', 'codex:019a3c1e'])).stdout
  const r1 = await ferry(['--home', home, 'continue', '-', '--with', 'codex', '--json', '--cwd', work], { input: one, env })
  t.equal(r1.code, 0, r1.stderr)
  t.notMatch(r1.stderr, /\u0000|no session/, 'no internal token, no refusal')
  const w1 = jsonl(r1.stdout)[0]
  t.ok(w1.path.startsWith(home) && existsSync(w1.path), `written into the target home (${w1.path})`)
  const r2 = await ferry(['--home', home, 'continue', '-', '--with', 'codex', '--json', '--cwd', work], { input: two, env })
  t.equal(r2.code, 0, r2.stderr)
  t.notMatch(r2.stderr, /reusing/, 'nothing reused for a stream')
  t.not(jsonl(r2.stdout)[0].id, w1.id, 'its own copy')
})
