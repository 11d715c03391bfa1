import t from 'tap'
import { redact } from '../../transforms/redact.js'
import { Redactor, redactText } from '../../lib/redact/engine.js'
import { DEV_SEEDS, SECRET_KINDS, generate, score, weakest } from '../redact/corpus/index.mjs'
import { SID, end, msg, run, session } from './records.js'
import type { MessageRec, SessionRec } from '../../lib/model.js'

// Fake secrets are assembled at run time so no format-valid secret sits in the repo.
const AN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const gen = (n: number, step: number, alpha = AN): string => Array.from({ length: n }, (_, i) => alpha[(i * step + 5) % alpha.length]).join('')
const gh = 'ghp_' + gen(36, 17)
const aws = 'AKIA' + gen(16, 7, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')

t.test('stable labels, same secret same label, across text and raw JSON', async (t) => {
  const r = new Redactor()
  const a = r.redact(`token ${gh} and again ${gh}`)
  t.equal(a, 'token [REDACTED:github-token:1] and again [REDACTED:github-token:1]')
  const pem = '-----BEGIN RSA PRIVATE KEY-----\n' + 'MIIEowIBAAKCAQEA7'.repeat(5) + '\n-----END RSA PRIVATE KEY-----'
  const text = r.redact(pem)
  const raw = r.redact(JSON.stringify({ content: 'key:\n' + pem }))
  t.equal(text, '[REDACTED:private-key:1]')
  t.same(JSON.parse(raw), { content: 'key:\n[REDACTED:private-key:1]' }, 'raw stays valid JSON, same label')
  t.equal(r.redact(JSON.stringify('x\n' + aws)), JSON.stringify('x\n[REDACTED:aws-access-key:1]'), 'secret right after a \\n escape')
})

t.test('look-alikes are untouched', async (t) => {
  const r = new Redactor()
  const neg = [
    'commit 3f9c2a7b1d4e5f60718293a4b5c6d7e8f9012345',
    '"uuid":"6aa5ab65-b9aa-40b5-ac69-2a4b8690a2b5"',
    '"id":"toolu_01Kfxr3PIEQjbLWNXQ9nMGcN","call_id":"call_Qg6dtmwIoHedZk8mTv980G52"',
    'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
    'export OPENAI_API_KEY=<your-api-key>',
    '"integrity": "sha512-u+MQkCRancqtBuv3liS7m5iVaSX3Tdq2vISPP1FxhyZRs6eWmbZPjaXggmrjzG/Okoe9RModI/REcRJrwsDMj5=="',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk2 dev@laptop',
    '"max_tokens": 32000',
  ]
  for (const n of neg) t.equal(r.redact(n), n, n)
})

t.test('plain text mode leaves everything else byte for byte', async (t) => {
  const input = `line one\n\tpassword = "Xk9#mQ2$vL7pR4wZ"\r\nURL postgres://app:S3cr3tPassw0rdXyZ@db:5432/app\n`
  const { text, found } = redactText(input)
  t.equal(text, `line one\n\tpassword = "[REDACTED:generic-secret:1]"\r\nURL postgres://app:[REDACTED:connection-string:1]@db:5432/app\n`)
  t.same(found, { 'generic-secret': 1, 'connection-string': 1 })
})

t.test('paths and emails on request', async (t) => {
  const r = new Redactor({ paths: true, emails: true, home: '/home/ada', user: 'ada' })
  t.equal(r.redact('cd /home/ada/src && mail ada.l@corp.io; /Users/bob/x'), 'cd ~/src && mail [REDACTED:email:1]; ~/x')
})

t.test('record stream: native, signatures, header flag, ids', async (t) => {
  const recs = [
    session({ native: { format: 'codex/jsonl', line: 0, raw: '{"type":"session_meta"}' } }),
    msg(1, 'user', [{ type: 'text', text: `use ${gh}` }]),
    msg(2, 'assistant', [
      { type: 'thinking', text: `the key ${aws}`, signature: 'sig', encrypted: 'enc', provider: 'openai' },
      { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: `curl -H "Authorization: Bearer ${gh}"` }, native_input: { command: ['bash', '-lc', `curl -H "Authorization: Bearer ${gh}"`] } },
    ]),
    msg(3, 'user', [{ type: 'tool_result', tool_use_id: 'call_1', content: 'ok' }]),
    { kind: 'native', sid: SID, id: `${SID}:l4`, native_type: 'claude-code/api-request', native: { format: 'x', line: 4, raw: JSON.stringify({ env: `GITHUB_TOKEN=${gh}\nX=1` }) } },
    end(),
  ] as any[]
  const findings: any[] = []
  const stage = redact({ report: true })
  stage.on('finding', (f) => findings.push(f))
  let report: any
  stage.on('report', (r) => (report = r))
  const out = await run(stage, recs)
  t.same(out.map((r) => r.id), recs.map((r) => r.id), 'ids stable')
  const s = out[0] as SessionRec
  t.equal(s.redacted, true)
  t.ok(s.native, 'header keeps native when only the flag changed')
  const m1 = out[1] as MessageRec
  t.same(m1.blocks, [{ type: 'text', text: 'use [REDACTED:github-token:1]' }])
  t.notOk(m1.native, 'changed message loses native')
  const m2 = out[2] as MessageRec
  const th = m2.blocks[0] as any
  t.equal(th.text, 'the key [REDACTED:aws-access-key:1]')
  t.notOk(th.signature)
  t.notOk(th.encrypted)
  const tu = m2.blocks[1] as any
  t.notMatch(JSON.stringify(tu), /ghp_/)
  t.equal(out[3], recs[3], 'untouched record passes as it was (native kept)')
  const nat = out[4] as any
  t.same(JSON.parse(nat.native.raw), { env: 'GITHUB_TOKEN=[REDACTED:github-token:1]\nX=1' }, 'native raw rewritten consistently')
  t.same(findings.map((f) => f.id), [`${SID}:l1`, `${SID}:l2`, `${SID}:l4`])
  t.same(report.records, findings, 'the report lists the same records')
  t.same(report, stage.report, 'and the stream keeps it')
  t.ok(report.redacted['github-token'] >= 3 && report.redacted['aws-access-key'] === 1, 'totals per kind')
  t.notMatch(JSON.stringify(findings), /ghp_|AKIA/, 'report never holds the secret')
})

t.test(`quality on the evaluation corpus, second dev seed (${SECRET_KINDS.length} kinds)`, async (t) => {
  // The one generator (test/redact/corpus/); corpus.test.ts holds the first dev seed, this the second.
  const snips = generate(SECRET_KINDS.length * 4, DEV_SEEDS[1]!)
  const r = new Redactor()
  const s = score(snips, snips.map((x: { text: string }) => r.redact(x.text)))
  t.ok(s.recall >= 0.99, `recall ${s.caught}/${s.secrets}; weakest ${weakest(s.byKind).join(', ')}`)
  t.ok(s.keptRate >= 0.995, `look-alikes kept ${s.kept}/${s.lookalikes}; ${weakest(s.byLookalike).join(', ')}`)
})

t.test('a redacted session is marked in its metadata, never in its title', async (t) => {
  const withEnd = [session({ native: { format: 'codex/jsonl', line: 0, raw: '{}' } }), msg(1, 'user', [{ type: 'text', text: 'hi' }]), { ...end(), title: 'Named' } as any]
  const out = await run(redact(), withEnd)
  const h = out[0] as SessionRec
  t.equal(h.redacted, true)
  t.equal(h.title, 'Why does npm test fail?', 'title as written')
  t.ok(h.native, 'the mark alone keeps the header native')
  t.equal((out[2] as any).title, 'Named', 'end title as written')
  const untitled = await run(redact(), [session({ title: undefined }), end()])
  t.equal((untitled[0] as SessionRec).title, undefined, 'no title stays without one')
  t.equal((untitled[0] as SessionRec).redacted, true)
  const secretTitle = await run(redact(), [session({ title: `deploy with ${gh}` }), end()])
  t.equal((secretTitle[0] as SessionRec).title, 'deploy with [REDACTED:github-token:1]', 'a secret in the title is still replaced')
})

t.test('options are checked against the schema', async (t) => {
  t.throws(() => redact({ paths: 'yes' as any }), { code: 'usage', message: /redact: paths must be true or false/ })
  t.throws(() => redact({ allow: 'a,b' as any }), { code: 'usage' })
})
