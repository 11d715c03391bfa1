import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURE, ferry, jsonl, kit, longLineSession, tempDir } from '../../kit.js'

const { home: FIXTURE_HOME, project: PROJECT, feature: FEATURE_ID, damaged: DAMAGED_ID, long: LONG_ID } = FIXTURE.claudeCode
const cc = kit('claude-code')

t.test('ferry ls / cat / convert on a Claude Code store (compiled CLI)', async (t) => {
  const ls = await ferry(['--home', FIXTURE_HOME, 'ls', '--harness', 'claude-code', '--json'])
  t.equal(ls.code, 0, ls.stderr)
  t.same(jsonl(ls.stdout).map((s) => s.id).sort(), [FEATURE_ID, DAMAGED_ID].sort())

  const cat = await ferry(['--home', FIXTURE_HOME, 'cat', `claude-code:${FEATURE_ID}`, '--no-native', '--inline-spilled'])
  t.equal(cat.code, 0, cat.stderr)
  const recs = jsonl(cat.stdout)
  const full = recs.flatMap((r) => r.blocks ?? []).find((b: any) => b.type === 'tool_result' && b.tool_use_id === 'toolu_syn_02')
  t.equal(full.content, readFileSync(join(PROJECT, FEATURE_ID, 'tool-results', 'b7x1k2qzp.txt'), 'utf8'), '--inline-spilled reaches the reader')

  const out = tempDir(t)
  const conv = await ferry(['--home', FIXTURE_HOME, 'convert', `claude-code:${FEATURE_ID}`, '--to', 'claude-code', '--out', out])
  t.equal(conv.code, 0, conv.stderr)
  t.ok(readFileSync(join(out, 'projects', '-home-dev-demo-app', `${FEATURE_ID}.jsonl`)).equals(readFileSync(join(PROJECT, `${FEATURE_ID}.jsonl`))), 'same-harness convert is byte-identical')

  const bad = await ferry(['--home', FIXTURE_HOME, 'cat', `claude-code:${DAMAGED_ID}`])
  t.not(bad.code, 0, 'a torn line makes the exit code non-zero')
  t.match(bad.stderr, new RegExp(`claude-code:torn-line: \\S*${DAMAGED_ID}\\.jsonl:4: last line has no newline`))
  t.equal(jsonl(bad.stdout).filter((r) => r.kind === 'message').length, 3, 'the good records were still emitted')
})

t.test('ferry write --to claude-code --thinking drop', async (t) => {
  const sid = 'codex:x1'
  const input = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: 'x1', cwd: '/w' },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'message', sid, id: `${sid}:2`, role: 'assistant', ts: null, blocks: [{ type: 'thinking', text: 'SECRET-REASONING' }, { type: 'text', text: 'hello' }] },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ].map((r) => JSON.stringify(r)).join('\n') + '\n'
  const out = tempDir(t)
  const w = await ferry(['write', '--to', 'claude-code', '--out', out, '--thinking', 'drop', '--json'], { input })
  t.equal(w.code, 0, w.stderr)
  const [info] = jsonl(w.stdout)
  t.notOk(readFileSync(info.path, 'utf8').includes('SECRET-REASONING'))
})

t.test('--max-line-bytes reaches the Claude Code reader: the over-long line is located, the rest is read', async (t) => {
  const home = cc.home(t)
  const path = longLineSession(home, 5000)
  const r = await ferry(['--home', home, 'cat', `claude-code:${LONG_ID}`, '--max-line-bytes', '1000', '--no-native'])
  t.equal(r.code, 1, 'a skipped line makes the run fail')
  t.match(r.stderr, `claude-code:line-too-long: ${path}:2: `)
  t.equal(r.stderr.match(/line-too-long: /g)?.length, 1, 'reported once, though the reader passes over the file twice')
  const recs = jsonl(r.stdout)
  t.same(recs.filter((x) => x.kind === 'message').map((m) => m.blocks[0].text), ['Print the log.', 'Here it is.', 'Thanks.'])
  t.match(recs.at(-1), { kind: 'end', complete: false, counts: { skipped_lines: 1 } })
  // Within the default cap the same file reads cleanly.
  const ok = await ferry(['--home', home, 'cat', `claude-code:${LONG_ID}`, '--no-native'])
  t.equal(ok.code, 0, ok.stderr)
})
