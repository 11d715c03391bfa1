import t from 'tap'
import { appendFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../../kit.js'

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

const V1_REL = 'sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'

/** A home whose Grok store holds a copy of the v1 fixture session. */
function homeWithV1(t: Parameters<typeof tempDir>[0]): { home: string; dir: string } {
  const home = tempDir(t)
  const dir = join(home, '.grok', V1_REL)
  mkdirSync(dir, { recursive: true })
  cpSync(join(FIXTURES, 'grok', 'v1', V1_REL), dir, { recursive: true })
  return { home, dir }
}

t.test('--max-line-bytes: a 5 KB chat_history line is reported as grok:line-too-long with file:line, exit 1, the rest emitted', async (t) => {
  const { home, dir } = homeWithV1(t)
  const chat = join(dir, 'chat_history.jsonl')
  appendFileSync(chat, JSON.stringify({ type: 'user', content: [{ type: 'text', text: 'y'.repeat(5000) }] }) + '\n')
  const line = readFileSync(chat, 'utf8').trimEnd().split('\n').length
  const r = await ferry(['--home', home, '--max-line-bytes', '1000', 'cat', 'grok:01a1f84a'])
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, `ferry: error: grok:line-too-long: ${chat}:${line}: `)
  const recs = jsonl(r.stdout).filter((x) => x.kind !== 'stream')
  t.equal(recs[0].kind, 'session')
  t.equal(recs.at(-1).kind, 'end')
  t.ok(recs.filter((x) => x.kind === 'message').length >= 7, 'every other line still emitted')
  t.notOk(r.stdout.includes('y'.repeat(5000)))
})

t.test('ferry write --to grok: a session that exists without --force is one located line and exit 1, the store unchanged', async (t) => {
  const { home, dir } = homeWithV1(t)
  const cat = await ferry(['--home', home, 'cat', 'grok:01a1f84a'])
  t.equal(cat.code, 0, cat.stderr)
  const before = readFileSync(join(dir, 'chat_history.jsonl'))
  const w = await ferry(['--home', home, 'write', '--to', 'grok'], { input: cat.stdout })
  t.equal(w.code, 1, w.stderr)
  t.equal(w.stdout, '', 'nothing reported as written')
  const located = w.stderr.split('\n').filter((l) => l.startsWith('ferry: error: '))
  t.equal(located.length, 1, w.stderr)
  t.match(located[0], `ferry: error: grok:exists: ${dir}: `)
  t.ok(readFileSync(join(dir, 'chat_history.jsonl')).equals(before))
})
