import t from 'tap'
import { ChainIndex } from '../../../lib/harness/claude-code/chain.js'
import { scanTop } from '../../../lib/harness/claude-code/scan.js'

const L = (o: unknown) => Buffer.from(JSON.stringify(o))
const e = (uuid: string, parentUuid: string | null, extra: object = {}) => L({ parentUuid, type: 'user', message: { role: 'user', content: `{"uuid":"fake-${uuid}"}` }, uuid, ...extra })

function index(lines: Buffer[], sidechain = false): ChainIndex {
  const idx = new ChainIndex()
  lines.forEach((l, i) => idx.add(l, i, sidechain))
  idx.finish()
  return idx
}

t.test('the leaf is the last entry in file order, not the newest timestamp', async (t) => {
  const idx = index([e('a', null), e('b', 'a', { timestamp: '2030-01-01T00:00:00.000Z' }), e('c', 'a', { timestamp: '2020-01-01T00:00:00.000Z' })])
  t.ok(idx.isActive('a') && idx.isActive('c'))
  t.notOk(idx.isActive('b'))
  t.notOk(idx.isActive('fake-b'), 'keys inside nested values are not fields')
})

t.test('the newest last-prompt pins the leaf when it names a known entry', async (t) => {
  const idx = index([e('a', null), e('b', 'a'), e('c', 'a'), L({ type: 'last-prompt', leafUuid: 'b' }), L({ type: 'last-prompt', leafUuid: 'nowhere' })])
  t.ok(idx.isActive('c'), 'an unknown leafUuid is ignored')
  const pinned = index([e('a', null), e('b', 'a'), e('c', 'a'), L({ type: 'last-prompt', leafUuid: 'b' })])
  t.ok(pinned.isActive('b'))
  t.notOk(pinned.isActive('c'))
})

t.test('sidechain entries never end the main conversation; compaction is crossed; cycles stop', async (t) => {
  const idx = index([e('a', null), e('b', 'a'), e('s', 'b', { isSidechain: true })])
  t.ok(idx.isActive('b'))
  t.notOk(idx.isActive('s'))
  const sub = index([e('s1', null, { isSidechain: true }), e('s2', 's1', { isSidechain: true })], true)
  t.ok(sub.isActive('s1') && sub.isActive('s2'), 'in a sub-agent file they are the conversation')
  const comp = index([e('a', null), L({ type: 'system', subtype: 'compact_boundary', uuid: 'k', parentUuid: null, logicalParentUuid: 'a' }), e('c', 'k')])
  t.ok(comp.isActive('a') && comp.isActive('k') && comp.isActive('c'))
  const cyc = index([e('x', 'y'), e('y', 'x')])
  t.ok(cyc.isActive('x') && cyc.isActive('y'), 'a cycle ends the walk instead of looping')
  const dup = index([e('a', null), e('a', null)])
  t.ok(dup.dupLines.has(1))
})

t.test('the scanner reads top-level scalars and rejects what is not one object', async (t) => {
  const keys = new Set(['type', 'uuid', 'n', 'ok', 'esc'])
  t.same(scanTop(Buffer.from('\0\0 {"type":"user","x":{"uuid":"no"},"uuid":"u1","n":1.5,"ok":true,"esc":"a\\"b\\\\"}'), keys), { type: 'user', uuid: 'u1', n: 1.5, ok: true, esc: 'a"b\\' })
  t.equal(scanTop(Buffer.from('{"type":"user","message":{"content":"cut'), keys), null)
  t.equal(scanTop(Buffer.from('[1,2]'), keys), null)
  t.equal(scanTop(Buffer.from('{"a":1} trailing'), keys), null)
})
