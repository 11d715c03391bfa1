// The redact CLI as a pre-share gate, in real child processes: `--report
// --json` lists record id, field path, kind and label (never the value),
// `--check` exits 1 when something would be redacted and 0 when not, and
// `--text` over a multi-chunk input keeps every other byte.
import t from 'tap'
import { ferry, jsonl } from '../kit.js'
import { Rng, AN, HEX } from './corpus/rng.mjs'

const r = new Rng(4242)
const gh = 'ghp_' + r.str(AN, 36)
const dd = r.str(HEX, 40)
const SID = 'codex:019a3c1e-0000-7000-8000-00000000abcd'
const lines = [
  { kind: 'session', ferry: '1.0', sid: SID, id: `${SID}:session`, source: { harness: 'codex', locator: {} }, native_id: SID.slice(6), title: 'fix the deploy' },
  { kind: 'message', sid: SID, id: `${SID}:l1`, role: 'user', ts: null, blocks: [{ type: 'text', text: `the token is ${gh}` }] },
  { kind: 'message', sid: SID, id: `${SID}:l2`, role: 'assistant', ts: null, blocks: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok', structured: { env: `DD_APP_KEY=${dd}` } }] },
  { kind: 'end', sid: SID, id: `${SID}:end` },
]
const input = lines.map((l) => JSON.stringify(l)).join('\n') + '\n'

t.test('--report --json lists id, path, kind, label; never the value', async (t) => {
  const res = await ferry(['redact', '--report', '--json'], { input })
  t.equal(res.code, 0, res.stderr)
  t.notOk(res.stdout.includes(gh) || res.stdout.includes(dd), 'stdout redacted')
  t.notOk(res.stderr.includes(gh) || res.stderr.includes(dd), 'the report holds no value')
  const rep = JSON.parse(res.stderr.trim().split('\n').pop()!)
  const rows = rep.records.flatMap((f: any) => f.fields.map((x: any) => [f.id, x.path, x.kind, x.label]))
  t.same(rows, [
    [`${SID}:l1`, 'blocks[0].text', 'github-token', '[REDACTED:github-token:1]'],
    [`${SID}:l2`, 'blocks[0].structured.env', 'generic-secret', '[REDACTED:generic-secret:1]'],
  ])
  t.same(rep.redacted, { 'github-token': 1, 'generic-secret': 1 })
  t.equal(jsonl(res.stdout).filter((x) => x.kind !== 'stream').length, lines.length, 'every record written')
  t.match(res.stdout, 'DD_APP_KEY=[REDACTED:generic-secret:1]')
})

t.test('--check is a gate: exit 1 with findings, 0 without, nothing on stdout', async (t) => {
  const dirty = await ferry(['redact', '--check', '--json'], { input })
  t.equal(dirty.code, 1)
  t.equal(dirty.stdout, '')
  t.notOk(dirty.stderr.includes(gh))
  t.match(JSON.parse(dirty.stderr.trim()).records[0].fields[0], { path: 'blocks[0].text', kind: 'github-token' })
  const clean = await ferry(['redact', '--check'], { input: input.replace(gh, 'a placeholder').replace(dd, '${DD_APP_KEY}') })
  t.equal(clean.code, 0, clean.stderr)
  t.match(clean.stderr, /nothing found/)
})

t.test('--text over many chunks: secrets go, every other byte stays', async (t) => {
  const body = Array.from({ length: 4000 }, (_, i) => (i % 997 === 0 ? `export GITHUB_TOKEN=${gh}\r` : `step ${i}: compiled src/mod${i}.ts ✓`)).join('\n') + '\n'
  const res = await ferry(['redact', '--text', '--report'], { input: body })
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stdout, body.replaceAll(gh, '[REDACTED:github-token:1]'))
  t.match(res.stderr, /github-token×5/)
})
