// #47 items 11 and 14: adversarial inputs finish under a bound (a hang fails the test, killed and
// saying so): a query of one term 10,000 times, a long run of `password=`, `show` of one 20 MB
// message; and `search -- -term` is a search for "-term", not a refused flag.
import t from 'tap'
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, tempDir } from '../kit.js'

// On a quiet machine each of these takes a second or two; the bound is for a hang, not a speed.
const BOUND = 30_000

t.test('item 11: search with one term repeated 10,000 times; item 14: search -- -term', async (t) => {
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  t.equal((await ferry(['--home', home, 'archive'])).code, 0)
  const r = await ferry(['--home', home, 'search', Array(10_000).fill('npm').join(' ')], { timeout: BOUND })
  t.equal(r.signal, null, 'finished (not killed at the bound)')
  t.ok(r.code === 0 || r.code === 1, `answered (exit ${r.code}): ${r.stderr.slice(0, 200)}`)
  t.notMatch(r.stderr, /internal|\n\s+at /, 'no internal error')
  const dash = await ferry(['--home', home, 'search', '--', '-term'], { timeout: BOUND })
  t.not(dash.code, 2, `not a usage error: ${dash.stderr.slice(0, 200)}`)
  t.notMatch(dash.stderr, /unknown|not allowed|usage/i, 'the term is searched for')
})

t.test('item 11: redact --text over 2 MB of `password=` runs', async (t) => {
  const r = await ferry(['redact', '--text'], { input: 'password='.repeat(250_000) + '\n', timeout: BOUND })
  t.equal(r.signal, null, 'finished (not killed at the bound)')
  t.equal(r.code, 0, r.stderr.slice(0, 200))
})

t.test('item 14: show of a session with one 20 MB message', async (t) => {
  const dir = tempDir(t)
  const recs = jsonl((await ferry(['--home', join(FIXTURES, 'home'), 'cat', 'claude-code:0b9e6c1a'])).stdout)
  const user = recs.find((r) => r.kind === 'message' && r.role === 'user')
  user.blocks = [{ type: 'text', text: 'word '.repeat(4_000_000) + 'THE-END' }]
  const file = join(dir, 'big.ferry.jsonl')
  writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n')
  const r = await ferry(['show', file], { timeout: BOUND })
  t.equal(r.signal, null, 'finished (not killed at the bound)')
  t.equal(r.code, 0, r.stderr.slice(0, 200))
  t.match(r.stdout, /word word/, 'the message is shown')
  t.match(r.stdout, /── end: \d+ messages/, 'and the session after it, to its end')
})
