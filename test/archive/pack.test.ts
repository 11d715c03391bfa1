// Issue #49: a record's packed parts (lib/archive/store/pack.ts) come back exactly, whatever the
// strings hold, with each codec; a row another Node wrote (zstd from Node 24, read here by fzstd
// on Node 20; Brotli or deflate from Node 20) reads on this one.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { BLOCK_BYTES, Block, BlockBuilder, CODEC_BROTLI, CODEC_DEFLATE, CODEC_NONE, CODEC_ZSTD, deltaBody, packParts, recordField, unpackParts, unpackPlain, writesZstd } from '../../lib/archive/store/pack.js'

const long = (s: string) => s.repeat(Math.ceil(60 / s.length))
const text = `${long('line "quoted" \\ back\\slash ')}\n\ttab é 字 😀 \u0001 \u0000 end`
const rec = { kind: 'message', id: 'x:1', parent: `p:${long('9')}`, blocks: [{ type: 'text', text }, { type: 'tool_result', content: text + ' other' }, { type: 'text', text: long('not in the line ') }] }
const body = JSON.stringify(rec)
const raw = JSON.stringify({ type: 'user', uuid: '1', message: { content: text }, copy: text + ' other', parent: rec.parent })
const native = JSON.stringify({ format: 'claude-code/jsonl@2', line: 3 })

t.test('the record is kept once: its long strings become references into the source line, and come back', async (t) => {
  const delta = deltaBody(body, raw)
  t.ok(delta.length < body.length / 2, `${body.length} → ${delta.length} characters`)
  t.ok(delta.includes('not in the line'), 'a string the line does not hold stays as it is')
  for (const codec of [CODEC_NONE, CODEC_DEFLATE, CODEC_BROTLI, ...(writesZstd ? [CODEC_ZSTD] : [])]) {
    const data = packParts(body, native, raw, codec)
    t.equal(data[0], codec, `codec ${codec} named in the row`)
    const p = unpackParts(data)
    t.same([p.body, p.native, p.raw], [body, native, raw], `codec ${codec}: the three parts exactly`)
    t.equal(recordField(p, 'parent'), rec.parent, 'a top-level field read from the short form')
  }
  for (const [b, n, r] of [[body, null, null], [body, native, null], ['{"kind":"x"}', null, '{}'], [body, '{}', '']] as const) {
    t.same(unpackParts(packParts(b, n, r)), { body: b, native: n, raw: r, delta: r === null ? b : deltaBody(b, r) }, 'nulls and empties kept apart')
  }
  // A line that holds a string the record's JSON holds in another escaping is not referenced, and nothing breaks.
  const other = JSON.stringify({ message: { content: text } }).replace(/\\"/g, '\\u0022')
  t.same(unpackParts(packParts(body, native, other)).body, body)
})

t.test('a zstd row written by another Node reads on this one', { skip: writesZstd ? false : spawnSync('zstd', ['--version']).status === 0 ? false : 'no native zstd and no zstd CLI' }, async (t) => {
  const plain = packParts(body, native, raw, CODEC_NONE)
  // The payload as Node 24's zstd (or the zstd CLI, where this Node has none) compresses it.
  const z = writesZstd ? packParts(body, native, raw, CODEC_ZSTD).subarray(1) : spawnSync('zstd', ['-3', '-c'], { input: plain.subarray(1) }).stdout
  const row = Buffer.concat([Buffer.from([CODEC_ZSTD]), z])
  t.same(unpackParts(row).body, body, writesZstd ? 'native zstd' : 'fzstd reads it')
})

t.test('a block of rows (schema 5) gives each row back exactly, with each codec; a zstd block reads on any Node', async (t) => {
  const rows = [packParts(body, native, raw, CODEC_NONE), packParts('{"kind":"x"}', null, null, CODEC_NONE), packParts(body, '{}', '', CODEC_NONE)].map((r) => r.subarray(1))
  const b = new BlockBuilder()
  for (let i = 0; b.rows.length < 3 * 40; i++) t.equal(b.add(rows[i % 3]!), i)
  t.ok(b.full === b.bytes >= BLOCK_BYTES, `full at ${BLOCK_BYTES} bytes (${b.bytes} now)`)
  for (const codec of [CODEC_NONE, CODEC_DEFLATE, CODEC_BROTLI, ...(writesZstd ? [CODEC_ZSTD] : [])]) {
    const data = b.seal(codec)
    t.equal(data[0], codec, `codec ${codec} named in the block`)
    const back = new Block(data)
    t.equal(back.length, 120)
    t.ok([0, 1, 2, 119].every((i) => Buffer.from(back.row(i)).equals(rows[i % 3]!)), `codec ${codec}: rows byte for byte (${data.length} bytes for ${b.bytes})`)
    t.same(unpackPlain(back.row(2)), { body, native: '{}', raw: '', delta: deltaBody(body, '') })
    t.throws(() => back.row(120), /not in its block/, 'a row the block does not have is an error, not another row')
  }
  const plain = b.seal(CODEC_NONE).subarray(1)
  const z = writesZstd ? b.seal(CODEC_ZSTD).subarray(1) : spawnSync('zstd', ['-3', '-c'], { input: plain }).stdout
  if (z && z.length > 0) t.ok(Buffer.from(new Block(Buffer.concat([Buffer.from([CODEC_ZSTD]), z])).row(0)).equals(rows[0]!), writesZstd ? 'native zstd' : 'a zstd block (zstd CLI) read by fzstd')
})
