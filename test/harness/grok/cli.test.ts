import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, tempDir } from '../../helpers.js'

// Runs the compiled CLI (npx tsc -p . first).
t.test('ferry ls / convert on the sample Grok store', async (t) => {
  const home = join(FIXTURES, 'home')
  const ls = await ferry(['--home', home, 'ls', '--harness', 'grok', '--json'])
  t.equal(ls.code, 0, ls.stderr)
  t.match(JSON.parse(ls.stdout.trim().split('\n')[0]!), { harness: 'grok', id: '01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17', cwd: '/home/dev/demo-app' })
  const out = tempDir(t)
  const conv = await ferry(['--home', home, 'convert', 'grok:01a1f84a', '--to', 'grok', '--out', out])
  t.equal(conv.code, 0, conv.stderr)
  const rel = 'sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'
  for (const f of ['summary.json', 'chat_history.jsonl', 'updates.jsonl', 'assets/image-5b0e6f2c-1d4a-4c3e-8f71-2a9d3c6b7e40.png']) {
    t.ok(readFileSync(join(out, rel, f)).equals(readFileSync(join(home, '.grok', rel, f))), `${f} byte-identical through the CLI`)
  }
})
