import t from 'tap'
import { filter } from '../../transforms/filter.js'
import { end, msg, pairsIntact, run, session, SID } from './records.js'
import type { FerryRecord, MessageRec } from '../../lib/model.js'

function story(): FerryRecord[] {
  return [
    session(),
    msg(1, 'user', [{ type: 'text', text: 'env' }], { context: true, context_kind: 'environment' }),
    msg(2, 'user', [{ type: 'text', text: 'why does npm test fail?' }], { parent: `${SID}:l1` }),
    msg(3, 'assistant', [{ type: 'thinking', text: 'hmm' }, { type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: 'package.json' } }], { parent: `${SID}:l2` }),
    msg(4, 'user', [{ type: 'tool_result', tool_use_id: 'r1', content: '{}' }], { parent: `${SID}:l3` }),
    msg(5, 'assistant', [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'npm test' } }], { parent: `${SID}:l4` }),
    msg(6, 'user', [{ type: 'tool_result', tool_use_id: 'b1', content: 'Error: no test specified', is_error: true }], { parent: `${SID}:l5` }),
    msg(7, 'assistant', [{ type: 'text', text: 'There is no test script.' }], { parent: `${SID}:l6` }),
    end(),
  ]
}

t.test('drop a tool by name drops its result; parents re-pointed', async (t) => {
  const out = await run(filter({ tools: ['Read'] }), story())
  t.ok(pairsIntact(out))
  const ids = out.map((r) => r.id)
  t.notOk(ids.includes(`${SID}:l5`), 'Bash call message gone (no blocks left)')
  t.notOk(ids.includes(`${SID}:l6`), 'its result gone')
  const last = out.find((r) => r.id === `${SID}:l7`) as MessageRec
  t.equal(last.parent, `${SID}:l4`, 'parent re-pointed to nearest kept ancestor')
  t.equal(out[0]!.kind, 'session')
})

t.test('context, blocks and roles', async (t) => {
  const out = await run(filter({ context: false, blocks: ['text', 'tool'] }), story())
  t.notOk(out.some((r) => r.id === `${SID}:l1`))
  const m3 = out.find((r) => r.id === `${SID}:l3`) as MessageRec
  t.same(m3.blocks.map((b) => b.type), ['tool_use'])
  t.notOk(m3.native, 'changed message loses native')
  t.ok((out.find((r) => r.id === `${SID}:l7`) as MessageRec).native, 'untouched keeps native')
  const onlyAssistant = await run(filter({ roles: ['assistant'] }), story())
  t.ok(pairsIntact(onlyAssistant))
  t.same(onlyAssistant.filter((r) => r.kind === 'message').map((r) => r.id), [`${SID}:l3`, `${SID}:l7`])
})

t.test('range refuses to cut a pair and names the nearest valid one', async (t) => {
  await t.rejects(run(filter({ range: '#4-6' }), story()), /nearest valid range: #3-6/)
  const out = await run(filter({ range: '3-6' }), story())
  t.same(out.filter((r) => r.kind === 'message').map((r) => r.id), [3, 4, 5, 6].map((n) => `${SID}:l${n}`))
  t.ok(pairsIntact(out))
})

t.test('session selection, invert, count', async (t) => {
  let count: any
  const f = filter({ cwd: '/home/*/demo-app' })
  f.on('count', (c) => (count = c))
  const out = await run(f, story())
  t.equal(out.length, story().length)
  t.same(count, { sessions: 1, messages: 7, records: 9 })
  t.same(f.counts, count, 'the stream keeps the counts')
  t.same(await run(filter({ cwd: '/srv/**' }), story()), [])
  t.equal((await run(filter({ cwd: '/srv/**', invert: true }), story())).length, 9)
  t.same(await run(filter({ grep: 'no such text' }), story()), [])
  t.equal((await run(filter({ grep: 'NO TEST script' }), story())).length, 9)
  t.same(await run(filter({ minMessages: 8 }), story()), [])
})
