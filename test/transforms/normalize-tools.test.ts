import t from 'tap'
import { normalizeTools } from '../../transforms/normalize-tools.js'
import { end, msg, run, session } from './records.js'
import { ferry } from '../kit.js'
import type { MessageRec } from '../../lib/model.js'

t.test('codex calls become canonical, native kept; style maps to another harness', async (t) => {
  const recs = [
    session(),
    msg(1, 'assistant', [{ type: 'tool_use', id: 'c1', name: 'shell', input: { command: ['bash', '-lc', 'npm test'], workdir: '/w' } }]),
    msg(2, 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: 'x' }]),
    end(),
  ]
  const out = await run(normalizeTools(), recs)
  const b = (out[1] as MessageRec).blocks[0] as any
  t.same([b.name, b.native_name, b.input], ['Bash', 'shell', { command: 'npm test', workdir: '/w' }])
  t.same(b.native_input, { command: ['bash', '-lc', 'npm test'], workdir: '/w' })
  t.notOk((out[1] as MessageRec).native)
  t.equal(out[2], recs[2], 'records without tool calls untouched')
  const oc = await run(normalizeTools({ style: 'opencode' }), recs)
  const o = (oc[1] as MessageRec).blocks[0] as any
  t.same([o.name, o.input], ['bash', { command: 'npm test', workdir: '/w' }])
})

t.test('grok kinds from x', async (t) => {
  const sid = 'grok:01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'
  const m = { ...msg(1, 'assistant', [{ type: 'tool_use', id: 'k1', name: 'qz_7', input: { command: 'make' } }]), sid, x: { 'grok.tool_kinds': { k1: 'execute' } } }
  const out = await run(normalizeTools(), [m])
  t.equal(((out[0] as MessageRec).blocks[0] as any).name, 'Bash')
})

t.test('style must be a registered harness id', async (t) => {
  t.throws(() => normalizeTools({ style: 'opencod' }), { name: 'UsageError', message: /style must be one of .*did you mean opencode\?.*"opencod"/ })
  const r = await ferry(['normalize-tools', '--style', 'nonesuch'], { input: JSON.stringify(session()) + '\n' })
  t.equal(r.code, 2, 'usage error exit')
  t.match(r.stderr, /style.*"nonesuch"/s)
})

t.test('the source harness comes from the session header first', async (t) => {
  // The header says opencode; the key prefix (codex) would map nothing here.
  const recs = [session({ source: { harness: 'opencode', locator: {} } }), msg(1, 'assistant', [{ type: 'tool_use', id: 'o1', name: 'read', input: { filePath: '/a' } }])]
  const out = await run(normalizeTools(), recs)
  t.same(((out[1] as MessageRec).blocks[0] as any).input, { file_path: '/a' })
})
