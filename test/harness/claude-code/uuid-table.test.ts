/**
 * The chain index's uuid table against a Map (the structure it replaced):
 * same node numbers, same names back, same entries, across growth, for
 * canonical UUIDs and for ids of any other shape (which keep their spelling).
 */
import t from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import { UuidTable } from '../../../lib/harness/claude-code/uuid-table.js'

const ids = fc.oneof(
  fc.uuid(), // canonical, lowercase
  fc.uuid().map((u) => u.toUpperCase()),
  fc.string({ minLength: 0, maxLength: 40 }),
  fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '0000000g-0000-0000-0000-000000000000', '00000000_0000-0000-0000-000000000000'),
)

t.test('agrees with a Map on every interleaving of intern and lookup', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), ids), { maxLength: 400 }), (ops) => {
      const table = new UuidTable()
      const model = new Map<string, number>()
      for (const [add, id] of ops) {
        if (add) {
          if (!model.has(id)) model.set(id, model.size)
          if (table.intern(id) !== model.get(id)) return false
        }
        if (table.get(id) !== model.get(id) || table.has(id) !== model.has(id)) return false
      }
      if (table.size !== model.size) return false
      for (const [id, n] of model) if (table.nameOf(n) !== id) return false
      return JSON.stringify([...table.entries()]) === JSON.stringify([...model.entries()])
    }),
    { numRuns: 300 },
  )
  t.pass('300 runs')
})

t.test('keeps 200,000 real ids through its growth, and misses what it never saw', async (t) => {
  const table = new UuidTable()
  const all = Array.from({ length: 200_000 }, () => randomUUID())
  let wrong = 0
  for (const [i, u] of all.entries()) if (table.intern(u) !== i) wrong++
  for (const [i, u] of all.entries()) if (table.get(u) !== i || table.nameOf(i) !== u) wrong++
  t.equal(wrong, 0, 'every id maps to its node and back')
  t.equal(table.get(randomUUID()), undefined)
  t.equal(table.nameOf(200_000), undefined)
  t.equal(table.nameOf(-1), undefined)
})
