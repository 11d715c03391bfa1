import t from 'tap'
import { readdirSync } from 'node:fs'
import { truncate, cut, headOf } from '../../transforms/truncate.js'
import { end, msg, pairsIntact, run, session } from './records.js'
import { tempDir } from '../kit.js'
import type { FerryRecord, MessageRec } from '../../lib/model.js'

t.test('cuts are visible and never split a character', async (t) => {
  t.equal(cut('abcdefghij', 4, 'chars'), 'abcd… [truncated 6 chars]')
  t.equal(cut('abcdefghij', 6, 'chars', 2), 'abcd… [truncated 4 chars]\nij')
  t.equal(cut('short', 10, 'chars'), 'short')
  const emoji = 'ab😀cd'
  t.equal(headOf(emoji, 3, 'chars'), 'ab', 'no lone surrogate')
  t.equal(headOf('ééé', 3, 'bytes'), 'é', 'no half of a 2-byte char')
  t.equal(headOf('a😀', 4, 'bytes'), 'a')
  t.match(cut('x'.repeat(20000), 10, 'chars'), /\[truncated 19,990 chars\]$/)
})

t.test('tool output, origin preset, pairs and native', async (t) => {
  const big = 'y'.repeat(5000)
  const recs = [
    session(),
    msg(1, 'assistant', [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'z'.repeat(2500) } }]),
    msg(2, 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: big }]),
    msg(3, 'assistant', [{ type: 'text', text: 'done' }]),
    end(),
  ]
  const out = await run(truncate({ preset: 'origin' }), recs)
  t.ok(pairsIntact(out))
  const use = (out[1] as MessageRec).blocks[0] as any
  t.equal(use.input.command.length, 2000 + '… [truncated 500 chars]'.length)
  const res = (out[2] as MessageRec).blocks[0] as any
  t.match(res.content, /^y{4000}… \[truncated 1,000 chars\]$/)
  t.same(res.truncated, { original_chars: 5000, original_bytes: 5000 })
  t.notOk((out[2] as MessageRec).native)
  t.equal(out[3], recs[3], 'untouched message keeps native')
})

t.test('thinking cut drops signature; images strip and extract', async (t) => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64')
  const recs = [
    session(),
    msg(1, 'assistant', [{ type: 'thinking', text: 'long thought here', signature: 's', provider: 'anthropic' }]),
    msg(2, 'user', [{ type: 'image', mime: 'image/png', data: png }, { type: 'text', text: 'see' }]),
    end(),
  ]
  const out = await run(truncate({ thinking: 4, images: 'strip' }), recs)
  const th = (out[1] as MessageRec).blocks[0] as any
  t.equal(th.text, 'long… [truncated 13 chars]')
  t.notOk(th.signature)
  t.match(((out[2] as MessageRec).blocks[0] as any).text, /^\[image image\/png, \d+ bytes removed\]$/)
  const dir = tempDir(t)
  const out2 = await run(truncate({ images: 'extract', imagesDir: dir }), recs)
  const img = (out2[2] as MessageRec).blocks[0] as any
  t.notOk(img.data)
  t.match(img.ref.path, /[0-9a-f]{64}\.png$/)
  t.equal(readdirSync(dir).length, 1)
})

t.test('options are checked against the schema; a preset keeps its caps when others are undefined', async (t) => {
  t.throws(() => truncate({ toolOutput: Number.NaN }), { code: 'usage', message: /toolOutput must be a number/ })
  t.throws(() => truncate({ toolOutput: -1 }), { code: 'usage', message: /at least 0/ })
  t.throws(() => truncate({ images: 'bogus' as any }), { code: 'usage', message: /keep, strip, extract/ })
  t.throws(() => truncate({ images: 'extract' }), { code: 'usage', message: /imagesDir/ })
  const long = 'x'.repeat(5000)
  const recs = [session(), msg(1, 'user', [{ type: 'tool_result', tool_use_id: 'a', content: long }]), end()] as FerryRecord[]
  const out = await run(truncate({ preset: 'origin', toolOutput: undefined }), recs)
  t.match(((out[1] as MessageRec).blocks[0] as any).content, /^x{4000}… \[truncated 1,000 chars\]$/)
  const bytes = await run(truncate({ text: 3, bytes: true }), [session(), msg(1, 'user', [{ type: 'text', text: 'ééé' }]), end()] as FerryRecord[])
  t.match(((bytes[1] as MessageRec).blocks[0] as any).text, /^é… \[truncated 4 bytes\]$/)
})
