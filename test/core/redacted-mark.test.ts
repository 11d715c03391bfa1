import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')

t.test('a redacted session written to an agent store says so in its title', async (t) => {
  for (const to of ['claude-code', 'grok', 'opencode']) {
    const out = tempDir(t)
    const target = to === 'opencode' ? join(out, 's.json') : out
    const r = await ferry(['--home', HOME, 'convert', 'codex:019a3c1e', '--to', to, '--out', target, '--redact', '--json'])
    t.equal(r.code, 0, r.stderr)
    const [w] = jsonl(r.stdout)
    t.match(w.title, / \[redacted\]$/, `${to}: reported title`)
    if (to === 'opencode') {
      t.match(JSON.parse(readFileSync(w.path, 'utf8')).info.title, / \[redacted\]$/, 'opencode: document title')
      continue
    }
    // Read it back with ferry: the harness's own title field carries the mark.
    const back = await ferry(['cat', w.path, '--no-native'])
    t.equal(back.code, 0, back.stderr)
    const header = jsonl(back.stdout).find((x) => x.kind === 'session')
    const end = jsonl(back.stdout).find((x) => x.kind === 'end')
    t.match(end?.title ?? header.title, / \[redacted\]$/, `${to}: stored title`)
  }
  // Without --redact, no mark.
  const out = tempDir(t)
  const plain = await ferry(['--home', HOME, 'convert', 'codex:019a3c1e', '--to', 'claude-code', '--out', out, '--json'])
  t.notMatch(jsonl(plain.stdout)[0].title, /redacted/)
  const dir = join(out, 'projects', readdirSync(join(out, 'projects'))[0]!)
  t.notMatch(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8'), /\[redacted\]/)
})
