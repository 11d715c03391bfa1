import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, jsonl, tempDir } from '../../helpers.js'
import { DAMAGED_ID, FEATURE_ID, FIXTURE_HOME, PROJECT } from './helpers.js'

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
  t.match(bad.stderr, new RegExp(`${DAMAGED_ID}\\.jsonl:4: truncated last line`))
  t.equal(jsonl(bad.stdout).filter((r) => r.kind === 'message').length, 3, 'the good records were still emitted')
})

t.test('ferry write --to claude-code --thinking drop', async (t) => {
  const sid = 'codex:x1'
  const input = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: 'x1', cwd: '/w' },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'message', sid, id: `${sid}:2`, role: 'assistant', ts: null, blocks: [{ type: 'thinking', text: 'SECRET-REASONING' }, { type: 'text', text: 'hello' }] },
  ].map((r) => JSON.stringify(r)).join('\n') + '\n'
  const out = tempDir(t)
  const w = await ferry(['write', '--to', 'claude-code', '--out', out, '--thinking', 'drop', '--json'], { input })
  t.equal(w.code, 0, w.stderr)
  const [info] = jsonl(w.stdout)
  t.notOk(readFileSync(info.path, 'utf8').includes('SECRET-REASONING'))
})
