/**
 * A record holding a huge string is written in pieces (lib/interchange/stringify.ts):
 * the pieces, joined, must be exactly JSON.stringify's bytes, whatever the string
 * holds where a 32K slice ends (a surrogate pair, an escape, a lone surrogate).
 */
import t from 'tap'
import { holdsHugeString, jsonPieces } from '../../lib/interchange/stringify.js'

const MB = 1024 * 1024
const SLICE = 32 * 1024

/** A string of `n` characters whose slice edges fall on the awkward characters. */
function awkward(n: number, edge: string): string {
  const unit = 'a'.repeat(SLICE - 1) + edge
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
}

t.test('joined pieces are JSON.stringify byte for byte', async (t) => {
  const cases: Array<[string, unknown]> = [
    ['a surrogate pair across each slice edge', { kind: 'message', text: awkward(MB + 5, '😀') }],
    ['quotes and backslashes at the edges', { a: [1, { b: awkward(MB, '"\\') }], c: 'tail' }],
    ['control characters and a lone high surrogate', { x: awkward(MB + 1, '\u0001\n\ud800'), y: null }],
    ['a lone low surrogate first, then a lone high one last', { s: '\udc00' + 'b'.repeat(MB) + '\ud83d' }],
    ['two huge strings and a huge key-like value', { one: 'x'.repeat(MB), two: ['y'.repeat(MB + 7)], three: { 'k"ey': 'z'.repeat(MB) } }],
    ['a huge string alone', 'q'.repeat(MB)],
  ]
  for (const [name, v] of cases) {
    t.ok(holdsHugeString(v), `${name}: seen as huge`)
    t.equal([...jsonPieces(v)].join(''), JSON.stringify(v), name)
  }
  t.notOk(holdsHugeString({ a: 'x'.repeat(MB - 1), b: ['y'.repeat(1000)] }), 'below the size: the ordinary path')
})
