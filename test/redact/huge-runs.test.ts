// #11 defect 12: multi-MB token runs must not overflow the regex stack, and
// an unterminated PEM bait must be linear. Sizes are the ones reported.
import t from 'tap'
import { Redactor } from '../../lib/redact/engine.js'

const run = (n: number): string => 'a1B2'.repeat(n / 4)

t.test('a 6 MB Bearer run is redacted whole, without a stack overflow', async (t) => {
  const out = new Redactor().redact('Authorization: Bearer ' + run(6_000_000) + '\nnext')
  t.equal(out, 'Authorization: Bearer [REDACTED:oversized-token:1]\nnext')
})

t.test('a 6 MB xoxb- run is redacted whole', async (t) => {
  const out = new Redactor().redact('tok xoxb-' + run(6_000_000) + ' end')
  t.match(out, /^tok \[REDACTED:oversized-token:1\] end$/)
})

t.test('a long clean run with no keyword is left alone', async (t) => {
  const s = 'data ' + run(100_000) + ' end'
  t.equal(new Redactor().redact(s), s)
})

t.test('a 10 MB unterminated PRIVATE KEY bait is redacted, and many BEGIN lines are linear', async (t) => {
  const out = new Redactor().redact('x -----BEGIN PRIVATE KEY-----\n' + 'QUJD'.repeat(2_500_000))
  t.equal(out, 'x [REDACTED:private-key:1]')
  const bait = '-----BEGIN PRIVATE KEY-----\n'.repeat(350_000)
  t.equal(new Redactor().redact(bait), bait, 'BEGIN lines with no body are not keys')
})

t.test('a terminated PEM block, also JSON-escaped, gets one label', async (t) => {
  const body = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7' + 'Zq9'.repeat(30)
  const pem = `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`
  const r = new Redactor()
  t.equal(r.redact('k: ' + pem + ' done'), 'k: [REDACTED:private-key:1] done')
  t.equal(r.redact(JSON.stringify({ k: pem })), '{"k":"[REDACTED:private-key:1]"}')
})

// #47 item 11 (redact half): a run of keywords was quadratic — every `password=` read the 4 KB value after it
// (0.6 MB took 22 s). Each value is now read once; on the old code this test does not finish in its time-out.
t.test('a 4 MB run of password= and a run of prose cues are redacted, linearly', async (t) => {
  const red = new Redactor()
  const out = red.redact('password='.repeat(450_000))
  t.ok(out.startsWith('password=[REDACTED:generic-secret:1]'), out.slice(0, 60))
  t.ok(out.length < 450_000 * 9, 'the run is redacted')
  const cues = 'my password is '.repeat(70_000) + 'Tr0ub4dor&3x'
  t.match(red.redact(cues), /my password is \[REDACTED:generic-secret:\d+\]$/)
  const flags = '-u a:'.repeat(200_000)
  t.equal(red.redact(flags), flags, 'a run of -u flags with no secret')
})
