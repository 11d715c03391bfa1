// #47, found by the render/show scenario of `npm run fuzz` (fuzz/render.mjs): `show` and `render`
// passed a session's bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069) through, so a
// transcript could display text in an order other than the one it holds ("Trojan Source"). A view
// now shows each as its code; the escape sequences were already stripped. One process, piped.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, tempDir } from '../kit.js'

t.test('show: bidi controls and escape sequences of the session never reach the output; the words do', async (t) => {
  const sid = 'ferry:bidi'
  const text = 'pay \u202eevil\u202c to \u2066alice\u2069 \u001b]0;PWNED\u0007\u001b[2J wordkept'
  const lines = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'bidi', title: 'title \u202dx' },
    { kind: 'message', sid, id: `${sid}:m1`, role: 'user', blocks: [{ type: 'text', text }] },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ]
  const file = join(tempDir(t), 'bidi.jsonl')
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const r = await ferry(['show', file, '--no-pager'])
  t.equal(r.code, 0, r.stderr)
  t.notMatch(r.stdout, /[\u202a-\u202e\u2066-\u2069\u001b\u0007]/, 'no bidi control, no escape')
  t.match(r.stdout, /pay \[U\+202E\]evil\[U\+202C\] to \[U\+2066\]alice\[U\+2069\]/, 'each shown as its code')
  t.match(r.stdout, /wordkept/)
})
