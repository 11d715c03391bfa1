import t from 'tap'
import { normalizeTools } from '../../transforms/normalize-tools.js'
import { end, msg, run, session } from './records.js'
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
