// `redact --text` streams stdin (TextRedactor): fed in pieces of any size,
// it cuts the same chunks as redactText over the whole text, so the output
// is the same byte for byte and no secret is cut in two at a read boundary.
import t from 'tap'
import { Redactor, TextRedactor, redactText } from '../../lib/redact/engine.js'
import { ferry } from '../kit.js'
import { Rng, AN } from './corpus/rng.mjs'

const r = new Rng(977)
const gh = 'ghp_' + r.str(AN, 36)
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: 120 }, () => r.str(AN, 64)).join('\n')}\n-----END RSA PRIVATE KEY-----`
const text = [
  ...Array.from({ length: 3000 }, (_, i) => (i % 211 === 0 ? `export GITHUB_TOKEN=${gh}` : i % 1000 === 500 ? pem : `step ${i}: compiled src/mod${i}.ts`)),
  'one long line ' + 'word '.repeat(20_000) + `DB_PASSWORD=${r.str(AN, 20)}`,
  `tail -----BEGIN PRIVATE KEY-----\n${r.str(AN, 9000)}`,
].join('\n')

function streamed(pieces: (i: number) => number): string {
  const s = new TextRedactor(new Redactor())
  let out = ''
  for (let at = 0, k = 0; at < text.length; k++) {
    const n = pieces(k)
    out += s.push(text.slice(at, at + n))
    at += n
  }
  return out + s.end()
}

t.test('pieces of any size give the output of the whole text', async (t) => {
  const whole = redactText(text).text
  t.notOk(whole.includes(gh))
  t.match(whole, /\[REDACTED:private-key:1\]/)
  t.match(whole, /tail \[REDACTED:private-key:2\]$/, 'an unterminated block at the end is one span')
  t.equal(streamed(() => r.int(1, 9000)), whole, 'random pieces')
  t.equal(streamed(() => 7), whole, 'tiny pieces')
  t.equal(streamed(() => 65_536), whole, 'stdin-sized pieces')
})

t.test('redact --text over several reads equals the whole-text redaction', async (t) => {
  const res = await ferry(['redact', '--text'], { input: text })
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stdout, redactText(text).text)
})
