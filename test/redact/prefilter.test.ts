// The keyword prefilter files each keyword under one window of two characters
// and reads the text two characters a load: every keyword must be found at
// every offset (odd and even, across the 64 KB scan windows, after non-ASCII
// text), or the rules it selects never run and their secrets pass.
import t from 'tap'
import { Redactor } from '../../lib/redact/engine.js'

interface Internals {
  rules: Array<{ kind: string; keywords: string[]; ci?: boolean }>
  cand: number[]
  kwHits: number[]
  candidates(text: string): void
}

const engine = new Redactor() as unknown as Internals
const keywords: Array<{ kw: string; rule: number }> = []
engine.rules.forEach((r, i) => {
  for (const k of r.keywords) for (const f of r.ci ? [k.toLowerCase(), k.toUpperCase(), k[0]!.toUpperCase() + k.slice(1).toLowerCase()] : [k]) keywords.push({ kw: f, rule: i })
})

t.test('every rule keyword selects its rule at every offset', async (t) => {
  t.ok(keywords.length > 100, `${keywords.length} keywords`)
  const pads = ['', 'x', 'xy', 'xyz', 'é', 'éé ', '日本', ' '.repeat(65_535), ' '.repeat(65_536), ' '.repeat(65_537)]
  const missed: string[] = []
  for (const { kw, rule } of keywords) {
    for (const pad of pads) {
      engine.candidates(pad + kw + ' tail')
      if (!engine.cand.includes(rule)) missed.push(`${JSON.stringify(kw)} after ${pad.length} characters`)
    }
  }
  t.same(missed.slice(0, 20), [], `${missed.length} misses`)
})

t.test('keyword-context words are reported at every occurrence and offset', async (t) => {
  for (const pad of ['', 'a', 'ab', 'abc', 'ü', ' '.repeat(65_535)]) {
    const text = `${pad}DB_PASSWORD=1 api_token=2 my pw is 3`
    engine.candidates(text)
    const found = new Set<string>()
    for (let k = 0; k < engine.kwHits.length; k += 2) found.add(text.substr(engine.kwHits[k]!, engine.kwHits[k + 1]!))
    t.ok(found.has('PASS') && found.has('token') && found.has('pw'), `after ${pad.length}: ${[...found].join(', ')}`)
  }
})

t.test('secrets whose keyword is odd-placed are still redacted', async (t) => {
  const r = new Redactor()
  for (const pad of ['', 'x', 'xy', 'xyz']) {
    const out = r.redact(`${pad} token ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'} and pat${'Ab1Cd2Ef3Gh4Ij5K'}.${'0123456789abcdef'.repeat(4)} end`)
    t.notMatch(out, /ghp_[A-Za-z0-9]{36}/, `GitHub token after ${pad.length}`)
    t.notMatch(out, /pat[A-Za-z0-9]{14}\.[a-f0-9]{64}/, `Airtable token after ${pad.length}`)
  }
})
