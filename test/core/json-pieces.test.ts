/**
 * A record holding a huge string is written in pieces (lib/interchange/stringify.ts):
 * the pieces, joined, must be exactly JSON.stringify's bytes, whatever the string
 * holds where a 32K slice ends (a surrogate pair, an escape, a lone surrogate).
 */
import t from 'tap'
import { holdsHugeString, JoinedText, joinText, jsonPieces, stringify } from '../../lib/interchange/stringify.js'

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

t.test('a huge record goes out as fast as it is read, not all at once', async (t) => {
  const out = stringify({ preamble: false })
  const rec = { kind: 'message', id: 'm1', text: awkward(8 * MB, '😀') }
  const done = new Promise<void>((resolve, reject) => out.write(rec, (err) => (err ? reject(err) : resolve())))
  await new Promise((r) => setImmediate(r))
  // Unread, it holds about a slice: the rest waits in the string, not as bytes in the buffer.
  t.ok(out.readableLength <= 4 * SLICE, `${out.readableLength} bytes wait unread (the record is ${8 * MB} characters)`)
  const parts: Buffer[] = []
  out.on('data', (b: Buffer) => parts.push(b))
  await done
  out.end()
  await new Promise((r) => out.on('end', r))
  t.equal(Buffer.concat(parts).toString(), JSON.stringify(rec) + '\n', 'then all of it, byte for byte')
})

t.test('a JoinedText is written as its parts joined, byte for byte', async (t) => {
  const big = awkward(MB + 3, '😀')
  const cases: Array<[string, string[]]> = [
    ['a prefix before a huge text', ['[ferry] Result of an earlier tool call (call_1):\n', big]],
    ['tags around it', ['<local-command-stdout>', big, '</local-command-stdout>']],
    ['a surrogate pair split between two parts', ['x'.repeat(SLICE - 1) + '\ud83d', '\ude00' + big]],
    ['a lone high surrogate ending a part, then an empty part, then a low one', [big + '\ud83d', '', '\ude00 tail']],
    ['a lone high surrogate at the very end', [big, '\ud800']],
  ]
  for (const [name, parts] of cases) {
    const joined = parts.join('')
    const v = { kind: 'message', content: [{ type: 'text', text: new JoinedText(parts) }], n: 1 }
    t.ok(holdsHugeString(v), `${name}: seen as huge`)
    t.equal([...jsonPieces(v)].join(''), JSON.stringify({ kind: 'message', content: [{ type: 'text', text: joined }], n: 1 }), name)
    t.equal(JSON.stringify(v), JSON.stringify({ kind: 'message', content: [{ type: 'text', text: joined }], n: 1 }), `${name}: JSON.stringify of it too`)
  }
  t.equal(joinText('a', 'b'), 'ab', 'small: a plain string')
  t.ok(joinText('a', big) instanceof JoinedText, 'huge: parts')
})
