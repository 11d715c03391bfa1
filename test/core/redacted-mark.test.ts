import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')

// #46: the mark is metadata (the stream header's `redacted`, a rendered page's footer), never a
// title suffix: ` [redacted]` was shown cut mid-word and claimed redaction where nothing was found.
t.test('a redacted session keeps its title in an agent store; the stream header carries the mark', async (t) => {
  for (const to of ['claude-code', 'opencode']) {
    const out = tempDir(t)
    const target = to === 'opencode' ? join(out, 's.json') : out
    const r = await ferry(['--home', HOME, 'convert', 'codex:019a3c1e', '--to', to, '--out', target, '--redact', '--json'])
    t.equal(r.code, 0, r.stderr)
    const [w] = jsonl(r.stdout)
    t.equal(w.title, 'Why does `npm test` fail?', `${to}: reported title as written`)
    if (to === 'opencode') {
      t.notMatch(readFileSync(w.path, 'utf8'), /\[redacted\]/, 'opencode: no mark in the document')
      continue
    }
    const dir = join(out, 'projects', readdirSync(join(out, 'projects'))[0]!)
    t.notMatch(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8'), /\[redacted\]/, `${to}: no mark in the stored session`)
  }
  const s = await ferry(['--home', HOME, 'convert', 'codex:019a3c1e', '--to', 'ferry', '--redact'])
  t.equal(s.code, 0, s.stderr)
  t.match(jsonl(s.stdout).find((x) => x.kind === 'session'), { redacted: true, title: 'Why does `npm test` fail?' }, 'the interchange header is marked')
})
