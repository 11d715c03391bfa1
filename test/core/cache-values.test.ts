/**
 * How the discovery cache stores values (lib/harness/cache-values.ts): whatever goes in comes back as a JSON
 * round trip would give it, the file's path put back, from ASCII text; a row that does not fit its shape is
 * refused (the cache then reads the file).
 */
import t from 'tap'
import { ValueReader, asciiJson, encodeValues } from '../../lib/harness/cache-values.js'

const P1 = '/h/.claude/projects/-a/1111.jsonl'
const P2 = '/h/.claude/projects/-b/2222.jsonl'

function roundTrip(items: Array<{ value: unknown; path: string }>): unknown[] {
  const rows: unknown[][] = items.map((_, i) => [`rel${i}`])
  const { shapes, table } = encodeValues(items, rows)
  const text = asciiJson(JSON.stringify({ shapes, table, rows }))
  t.ok(/^[\x00-\x7f]*$/.test(text), 'the text is ASCII')
  const back = JSON.parse(Buffer.from(text, 'utf8').toString('latin1')) as { shapes: unknown; table: unknown; rows: unknown[][] }
  const r = new ValueReader(back.shapes, back.table)
  return back.rows.map((row, i) => r.value(row, 1, items[i]!.path))
}

t.test('values come back as JSON would give them, the path put back', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i % 2 ? P1 : 'v']))
  const info = (path: string, title: string) => ({ harness: 'h', id: 'x', path, locator: { path, line: 3 }, bytes: 12, cwd: '/w', title, skipped: undefined, flag: true, none: null })
  const items = [
    { value: info(P1, '这个函数太慢了 😀'), path: P1 },
    { value: info(P2, 'plain'), path: P2 },
    { value: null, path: P1 },
    { value: { list: [P1, 1, { path: P1 }], n: 2 }, path: P1 },
    { value: { n: NaN, s: 'x' }, path: P2 },
    { value: JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as unknown, path: P2 },
    { value: { lone: '\ud800x', mark: '\u0000path', deep: { a: { b: { c: P2 } } } }, path: P2 },
    { value: 'just a string', path: P1 },
    { value: { 10: 'ten', a: 'a', 2: 'two' }, path: P1 },
    { value: many, path: P1 },
    { value: { harness: 'h', id: 'y', path: P2, locator: { path: P2, line: 3 }, bytes: 12, cwd: '/w', title: 'no flag' }, path: P2 },
  ]
  const back = roundTrip(items)
  items.forEach((it, i) => t.same(back[i], JSON.parse(JSON.stringify(it.value) ?? 'null'), `value ${i}`))
  t.equal(JSON.stringify(back[0]), JSON.stringify(items[0]!.value), 'keys in their order')
  t.equal(JSON.stringify(back[8]), JSON.stringify(items[8]!.value), 'integer keys in their order')
  t.equal(JSON.stringify(back[5]), JSON.stringify(items[5]!.value), 'an own __proto__ key kept as JSON keeps it')
  t.equal(Object.getPrototypeOf(back[5]), Object.prototype, 'and not made the prototype')
  const again = roundTrip(items)
  t.not(again[0], back[0], 'a new object each time')
})

t.test('a row that does not fit its shape is refused', async (t) => {
  // Eight values whose `a` is always x: a's strings go in the table, b's (all different) stay in the rows.
  const values = Array.from({ length: 8 }, (_, i) => ({ value: { a: 'x', b: `y${i}`, c: P1 }, path: P1 }))
  const rows: unknown[][] = values.map(() => ['r'])
  const { shapes, table } = encodeValues(values, rows)
  const r = new ValueReader(shapes, table)
  const row = rows[0]!
  t.same(table, ['x'])
  t.same(row.slice(1), [0, 1 + 0 * 4 + 2 * 16, 0, 'y0'], 'shape 0; kinds: tabled, literal, path (base 4, the first leaf lowest)')
  t.same(r.value(row, 1, P1), { a: 'x', b: 'y0', c: P1 })
  t.same(r.value(['r', 0, 0, 'p', 'q', 's'], 1, P1), { a: 'p', b: 'q', c: 's' }, 'the kinds say which leaf is where')
  t.equal(r.value(row.slice(0, -1), 1, P1), undefined, 'a leaf short')
  t.equal(r.value([...row, 'extra'], 1, P1), undefined, 'a leaf too many')
  t.equal(r.value(['r', 0, 1 + 2 * 16 + 64, 0, 'y0'], 1, P1), undefined, 'a kind past the leaves')
  t.equal(r.value(['r', 99, 0, 'x', 'y'], 1, P1), undefined, 'no such shape')
  t.equal(r.value(['r', 0, 'x', 'y'], 1, P1), undefined, 'no kinds')
  t.equal(r.value(['r', 0, 1 + 2 * 16, 42, 'y0'], 1, P1), undefined, 'no such table entry')
  t.equal(r.value(['r', 0, 0, { o: 1 }, 'q', 's'], 1, P1), undefined, 'an object where a leaf belongs')
  t.throws(() => new ValueReader([['__proto__']], []), 'a shape naming __proto__ is refused')
  t.throws(() => new ValueReader([[1]], []), 'a key that is no string is refused')
  t.throws(() => new ValueReader('x', []), 'shapes that are no list are refused')
})
