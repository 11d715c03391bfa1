// Every field of every record is scanned (issue 19): `x` extras, structured
// tool results, git fields, titles, cwd and paths with `paths`, file names,
// unknown blocks, warnings, and native.raw/row/merged; the report lists record
// id, field path, kind and label, never the value.
import t from 'tap'
import { redact } from '../../transforms/redact.js'
import { Redactor } from '../../lib/redact/engine.js'
import { Rng, AN } from './corpus/rng.mjs'
import { SID, end, msg, run, session } from '../transforms/records.js'

const r = new Rng(77)
const gh = () => 'ghp_' + r.str(AN, 36)
const S = Array.from({ length: 12 }, gh)

t.test('every field kind is redacted and reported by path', async (t) => {
  const recs = [
    session({ title: `deploy ${S[0]}`, cwd: '/home/ada/src/app', git: { branch: 'main', remote: `https://x-access-token:${S[1]}@github.com/acme/app.git`, commit: 'c'.repeat(40) }, x: { codex: { instructions: `use ${S[2]}` } } }),
    msg(1, 'assistant', [
      { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: `echo ${S[3]}` } },
      { type: 'unknown', native_type: 'x/odd', value: { nested: [`k=${S[4]}`] } },
      { type: 'file', mime: 'text/plain', name: `notes-${S[5]}.txt` },
    ]),
    msg(2, 'user', [{ type: 'tool_result', tool_use_id: 'call_1', content: 'ok', structured: { stdout: `${S[6]}\n`, meta: { env: { GITHUB_TOKEN: S[7] } } } }], { native: undefined } as any),
    { kind: 'native', sid: SID, id: `${SID}:l3`, native_type: 'codex/turn_context', native: { format: 'codex/jsonl', line: 3, raw: JSON.stringify({ payload: { token: S[8] } }), row: { a: S[9] }, merged: [{ raw: JSON.stringify({ b: S[10] }) }] } },
    { ...end(), title: `done ${S[11]}`, warnings: [{ code: 'x', detail: 'fine' }] },
  ] as any[]
  const stage = redact({ report: true, paths: true, redactor: new Redactor({ paths: true, home: '/home/ada', user: 'ada' }) })
  const out = await run(stage, recs)
  const all = JSON.stringify(out)
  for (const [i, s] of S.entries()) t.notOk(all.includes(s), `secret ${i} gone`)
  const h = out[0] as any
  t.equal(h.cwd, '~/src/app', 'cwd: home hidden with paths')
  t.equal(h.git.commit, 'c'.repeat(40), 'a commit SHA is not a secret')
  t.match(h.git.remote, /^https:\/\/x-access-token:\[REDACTED:github-token:\d+\]@github\.com/)
  t.equal((out[2] as any).blocks[0].content, 'ok')
  t.equal((out[3] as any).native.raw, JSON.stringify({ payload: { token: '[REDACTED:github-token:9]' } }), 'native raw rewritten, still JSON')
  const paths = stage.report.records.flatMap((f) => (f.fields ?? []).map((x) => `${f.id} ${x.path} ${x.kind} ${x.label}`))
  t.same(paths, [
    `${SID}:session cwd home-path ~`,
    `${SID}:session title github-token [REDACTED:github-token:1]`,
    `${SID}:session git.remote github-token [REDACTED:github-token:2]`,
    `${SID}:session x.codex.instructions github-token [REDACTED:github-token:3]`,
    `${SID}:l1 blocks[0].input.command github-token [REDACTED:github-token:4]`,
    `${SID}:l1 blocks[1].value.nested[0] github-token [REDACTED:github-token:5]`,
    `${SID}:l1 blocks[2].name github-token [REDACTED:github-token:6]`,
    `${SID}:l2 blocks[0].structured.stdout github-token [REDACTED:github-token:7]`,
    `${SID}:l2 blocks[0].structured.meta.env.GITHUB_TOKEN github-token [REDACTED:github-token:8]`,
    `${SID}:l3 native.raw github-token [REDACTED:github-token:9]`,
    `${SID}:l3 native.row.a github-token [REDACTED:github-token:10]`,
    `${SID}:l3 native.merged[0].raw github-token [REDACTED:github-token:11]`,
    `${SID}:end title github-token [REDACTED:github-token:12]`,
  ])
  t.notOk(JSON.stringify(stage.report).includes('ghp_'), 'the report never holds a value')
  t.equal(stage.report.redacted['home-path'], 1, 'home paths are counted in the stream report')
})

t.test('ids, kinds and image bytes are not rewritten', async (t) => {
  const img = 'iVBORw0KGgo' + r.str(AN, 200)
  const recs = [session(), msg(1, 'user', [{ type: 'image', mime: 'image/png', data: img }, { type: 'text', text: 'hello' }]), end()] as any[]
  const out = await run(redact(), recs)
  t.equal((out[1] as any).blocks[0].data, img)
  t.equal(out[1], recs[1], 'an untouched message passes as it was')
})

t.test('labels are stable per value within a session: across records, fields, escaping and text chunks', async (t) => {
  const a = gh()
  const b = gh()
  const recs = [
    session(),
    msg(1, 'user', [{ type: 'text', text: `${a} then ${b}` }]),
    msg(2, 'assistant', [{ type: 'tool_use', id: 'c', name: 'Bash', input: { command: `echo ${b} ${a}` } }]),
    { kind: 'native', sid: SID, id: `${SID}:l3`, native_type: 'codex/x', native: { format: 'codex/jsonl', raw: JSON.stringify({ t: `line\n${a}` }) } },
    end(),
  ] as any[]
  const out = await run(redact(), recs)
  t.equal((out[1] as any).blocks[0].text, '[REDACTED:github-token:1] then [REDACTED:github-token:2]')
  t.equal((out[2] as any).blocks[0].input.command, 'echo [REDACTED:github-token:2] [REDACTED:github-token:1]')
  t.same(JSON.parse((out[3] as any).native.raw), { t: 'line\n[REDACTED:github-token:1]' })
  // Plain text longer than one chunk: the same value keeps its label in every chunk.
  const { redactText } = await import('../../lib/redact/engine.js')
  const long = Array.from({ length: 3000 }, (_, i) => (i % 500 === 0 ? `key in line ${i}: ${a}` : `line ${i} of an ordinary build log`)).join('\n')
  const res = redactText(long)
  t.equal(res.text.split('[REDACTED:github-token:1]').length - 1, 6)
  t.notOk(res.text.includes(a))
  t.equal(res.text.replaceAll('[REDACTED:github-token:1]', a), long, 'every other byte unchanged')
})

t.test('a PEM block across a text chunk boundary is redacted whole', async (t) => {
  const { redactText } = await import('../../lib/redact/engine.js')
  const body = Array.from({ length: 200 }, () => r.str(AN, 64)).join('\n')
  const text = 'x\n'.repeat(2000) + `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n` + 'y\n'.repeat(10)
  const out = redactText(text).text
  t.equal(out, 'x\n'.repeat(2000) + '[REDACTED:private-key:1]\n' + 'y\n'.repeat(10))
})
