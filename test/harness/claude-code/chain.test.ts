import t from 'tap'
import { CHAIN_TYPES, ChainIndex } from '../../../lib/harness/claude-code/chain.js'
import { scanTop } from '../../../lib/io/json-bytes.js'

const L = (o: unknown) => Buffer.from(JSON.stringify(o))
const e = (uuid: string, parentUuid: string | null, extra: object = {}) => L({ parentUuid, type: 'user', message: { role: 'user', content: `{"uuid":"fake-${uuid}"}` }, uuid, ...extra })

/**
 * The index of `lines`; fails when the second pass's per-line answer
 * (ActiveChain.isActiveLine, what the reader uses) differs from the index's
 * answer for the line's uuid, so every case here checks both.
 */
function index(lines: Buffer[], sidechain = false): ChainIndex {
  const idx = new ChainIndex()
  lines.forEach((l, i) => idx.add(l, i, sidechain))
  idx.info.lines = lines.length
  const chain = idx.finish()
  lines.forEach((l, i) => {
    let o: { type?: unknown; uuid?: unknown } | null = null
    try {
      o = JSON.parse(l.toString()) as typeof o
    } catch {
      /* not a line of the chain */
    }
    const entry = o && CHAIN_TYPES.has(String(o.type)) && typeof o.uuid === 'string' ? o.uuid : undefined
    const expected = entry !== undefined && !chain.dupLines.has(i) && idx.isActive(entry)
    if (chain.isActiveLine(i) !== expected) throw new Error(`line ${i}: isActiveLine ${!expected}, the index says ${expected}`)
  })
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

t.test('a compaction that kept entries: relinked after the anchor, as the client loads it', async (t) => {
  const boundary = (kept: object) => L({ type: 'system', subtype: 'compact_boundary', uuid: 'k', parentUuid: null, logicalParentUuid: 'b2', compactMetadata: { trigger: 'manual', ...kept } })
  // a → b1 → b2 kept; s = summary (anchor); c follows the anchor; d's parent (a) is dropped by the client.
  const lines = (kept: object) => [e('a', null), e('b1', 'a'), e('b2', 'b1'), boundary(kept), e('s', 'k'), e('c', 's'), e('d', 'a')]
  for (const [name, kept] of Object.entries({
    segment: { preservedSegment: { headUuid: 'b1', anchorUuid: 's', tailUuid: 'b2' } },
    list: { preservedMessages: { anchorUuid: 's', uuids: ['b1', 'b2'] } },
  })) {
    const idx = index(lines(kept))
    t.same([...idx.kept], [['b1', 's'], ['b2', 'b1']], `${name}: the kept entries follow the anchor, in order`)
    t.equal(idx.keptAnchor, 's')
    t.same([...idx.relinked].sort(), [['c', 'b2'], ['d', 'b2']], `${name}: what followed the anchor, or a dropped entry, follows the last kept one`)
    for (const u of ['a', 'b1', 'b2', 'k', 's', 'd']) t.ok(idx.isActive(u), `${name}: ${u} on the branch (the dropped turn a before the boundary)`)
    t.notOk(idx.isActive('c'), `${name}: c is a side branch once d is the leaf`)
  }
  const broken = index(lines({ preservedSegment: { headUuid: 'zz', anchorUuid: 's', tailUuid: 'b2' } }))
  t.equal(broken.kept.size, 0, 'a segment whose walk never meets its head: nothing relinked')
  const later = index([...lines({ preservedMessages: { anchorUuid: 's', uuids: ['b1', 'b2'] } }), L({ type: 'system', subtype: 'compact_boundary', uuid: 'k2', parentUuid: null, logicalParentUuid: 'd' }), e('f', 'k2')])
  t.equal(later.kept.size, 0, 'only the last boundary counts: a later plain one keeps nothing')
  t.ok(['a', 'd', 'k2', 'f'].every((u) => later.isActive(u)), 'and the walk follows the plain links')
})

t.test('parallel tool calls: the lines of the active response and their results are active, another response is not', async (t) => {
  const asst = (uuid: string, parentUuid: string, id: string) => L({ parentUuid, type: 'assistant', message: { id, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${uuid}` }] }, uuid })
  const result = (uuid: string, parentUuid: string) => L({ parentUuid, type: 'user', sourceToolAssistantUUID: parentUuid, message: { role: 'user', content: [] }, uuid })
  // Ids longer than 200 bytes but not characters still count; two ids that share a prefix stay apart.
  const long = 'msg_' + 'é'.repeat(150)
  const idx = index([
    e('a', null),
    asst('z1', 'a', 'msg_Z'),
    result('zr', 'z1'),
    asst('b1', 'a', long),
    asst('b2', 'b1', long),
    asst('x1', 'b1', long + 'x'),
    result('r1', 'b1'),
    result('r2', 'b2'),
    result('xr', 'x1'),
    e('c', 'r2'),
  ])
  for (const u of ['a', 'b1', 'b2', 'r1', 'r2', 'c']) t.ok(idx.isActive(u), `${u} is active`)
  for (const u of ['z1', 'zr', 'x1', 'xr']) t.notOk(idx.isActive(u), `${u} is not`)
})
