/**
 * Huge lines (a 100 MB tool output, a base64 image): the splitter's big
 * buffer and the lean parse must give exactly what the plain path gives,
 * valid or not, and a rollout holding one must read the same with and
 * without native text.
 */
import t from 'tap'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LineSplitter } from '../../../lib/io/lines.js'
import { parseJsonLine } from '../../../lib/io/line-file.js'
import { parseJsonBytes } from '../../../lib/io/json-bytes.js'
import type { MessageRec } from '../../../lib/model.js'
import { files, kit, rollouts, tempDir } from '../../kit.js'

const cx = kit('codex')
const cc = kit('claude-code')

const MB = 1024 * 1024

/** Text of about `n` bytes mixing ASCII, 2-, 3- and 4-byte characters and every escape JSON has. */
function tricky(n: number): string {
  const parts = ['plain ascii ', 'é', '✓', '日本', '😀', '\n', '\t', '"', '\\', '/', '\b', '\f', '\r', '\u0000', '\u001b[32m', '\u007f', '\u2028']
  let s = ''
  let i = 0
  while (s.length < n) s += parts[i++ % parts.length]! + 'x'.repeat(i % 300)
  return s
}

/** parseJsonBytes on a copy (it overwrites its input) against JSON.parse of the whole line. */
function both(line: string | Buffer): { lean: unknown; plain: unknown; bytes: number } {
  const buf = typeof line === 'string' ? Buffer.from(line) : line
  const plain = parseJsonLine(Buffer.from(buf))
  const lean = parseJsonBytes(Buffer.from(buf))
  return { lean, plain, bytes: buf.length }
}

function sameParse(t: Tap.Test, line: string | Buffer, name: string): void {
  const { lean, plain, bytes } = both(line)
  t.ok(bytes >= MB, `${name}: a line with big values`)
  if (plain instanceof Error) {
    t.ok(lean instanceof Error, `${name}: rejected as JSON.parse rejects it`)
    return
  }
  t.notOk(lean instanceof Error, `${name}: parsed`)
  // JSON.stringify keeps lone surrogates apart (\udXXX), so equal output is equal values.
  t.ok(JSON.stringify(lean) === JSON.stringify(plain), `${name}: same value`)
}

t.test('the lean parse gives what JSON.parse gives: escapes, surrogates, keys, nesting, duplicates', async (t) => {
  const s = tricky(2 * MB)
  sameParse(t, JSON.stringify({ type: 'x', payload: { output: s, small: 'é\n' } }), 'one big value with every escape')
  sameParse(t, JSON.stringify({ a: [s, 1, { b: s.slice(7) }], c: null, d: true, e: -1.5e3 }), 'big values in arrays and nested objects')
  sameParse(t, JSON.stringify({ x: 'a'.repeat(MB + 5) }), 'ASCII only')
  sameParse(t, `{"k":"${'\\\\'.repeat(40000)}\\"${'\\\\'.repeat(40000)}","p":"${'y'.repeat(MB)}"}`, 'runs of backslashes before quotes')
  sameParse(t, `{"k" \t:\r\n "${'z'.repeat(MB)}" , "l":[ "${'w'.repeat(100000)}" ]}`, 'whitespace around the tokens')
  sameParse(t, `{"${'k'.repeat(MB)}":1,"v":"${'q'.repeat(70000)}"}`, 'a huge key stays a key')
  sameParse(t, `{"v":"${'q'.repeat(MB)}","v":"small"}`, 'a duplicate key drops the big value')
  sameParse(t, `{"v":"small","v":"${'q'.repeat(MB)}"}`, 'a duplicate key keeps the big value')
  sameParse(t, `{"a":"\\u0000ferry-hole:0123456789abcdef:0","v":"${'q'.repeat(MB)}"}`, 'a value that looks like a placeholder')
  sameParse(t, `{"v":"${'q'.repeat(MB)}\\ud800 \\udc00x\\udbff\\u0041\\ud83d\\ude00\\uDE00end"}`, 'lone and paired surrogates')
  sameParse(t, `{"v":"${'q'.repeat(MB)}\\ud800"}`, 'a lone surrogate at the end')
  sameParse(t, `{"v":"${'\\u00e9\\u2713'.repeat(200000)}"}`, 'only escapes')
  // Plain runs are scanned a word at a time: every alignment of the value, escapes at every offset.
  const plainText = tricky(MB + 300)
  const mixed = JSON.stringify(plainText)
  for (let pad = 0; pad < 8; pad++) {
    const line = `{"p":"${'a'.repeat(pad)}","v":${mixed}}`
    t.ok((JSON.parse(line) as { v: string }).v === plainText, `alignment ${pad}: a valid line`)
    sameParse(t, line, `value at alignment ${pad}`)
  }
})

t.test('the lean parse decodes bad UTF-8 inside a big value as the whole-line decode does', async (t) => {
  const head = Buffer.from('{"v":"' + 'q'.repeat(MB))
  const bad = [Buffer.from([0xe2, 0x9c]), Buffer.from('\\u2713'), Buffer.from([0xff, 0xc3]), Buffer.from('\\n'), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('"}')]
  sameParse(t, Buffer.concat([head, ...bad]), 'truncated sequences next to escapes')
})

t.test('the lean parse rejects what JSON.parse rejects', async (t) => {
  const q = 'q'.repeat(MB)
  for (const [name, line] of [
    ['a raw tab in a big value', `{"v":"${q}\tx"}`],
    ['a raw control character', `{"v":"${q}\u0001"}`],
    ['an unknown escape', `{"v":"${q}\\x41"}`],
    ['a short \\u escape', `{"v":"${q}\\u12"}`],
    ['a big value never closed', `{"v":"${q}`],
    ['garbage after the object', `{"v":"${q}"} x`],
    ['a missing comma', `{"v":"${q}" "w":1}`],
    ['spaces only', ' '.repeat(MB + 1)],
  ] as const) {
    const { lean, plain, bytes } = both(line)
    t.ok(bytes >= MB, `${name}: a line with big values`)
    t.ok(plain instanceof Error, `${name}: JSON.parse rejects it`)
    t.ok(lean instanceof Error, `${name}: so does the lean parse`)
  }
})

t.test('the splitter hands a 20 MB line over whole from its big buffer, and the cap still holds', async (t) => {
  const line = Buffer.from(JSON.stringify(tricky(20 * MB)))
  const input = Buffer.concat([Buffer.from('first\n'), line, Buffer.from('\nlast\n'), Buffer.alloc(12 * MB, 0x61), Buffer.from('\nafter')])
  const got: Array<[number, Buffer]> = []
  const over: Array<[number, number]> = []
  const s = new LineSplitter({ maxLineBytes: 24 * MB, onLine: (b, n) => got.push([n, Buffer.from(b)]), onOverlong: (n, bytes) => over.push([n, bytes]) })
  for (let i = 0; i < input.length; i += 256 * 1024) s.push(input.subarray(i, i + 256 * 1024))
  t.equal(s.end(), true)
  t.same(got.map(([n, b]) => [n, b.length]), [[0, 5], [1, line.length], [2, 4], [3, 12 * MB], [4, 5]])
  t.ok(got[1]![1].equals(line), 'the big line byte for byte')
  t.same(over, [])

  const capped: number[] = []
  // 18 MB: the 20 MB line passes into the big buffer before it is over the cap.
  const c = new LineSplitter({ maxLineBytes: 18 * MB, onLine: (b, n) => capped.push(n), onOverlong: (n, bytes) => over.push([n, bytes]) })
  for (let i = 0; i < input.length; i += 256 * 1024) c.push(input.subarray(i, i + 256 * 1024))
  c.end()
  t.same(capped, [0, 2, 3, 4], 'the line over the cap skipped, the others kept')
  t.same(over, [[1, line.length]])
  const small: number[] = []
  const d = new LineSplitter({ maxLineBytes: 10 * MB, onLine: (b, n) => small.push(n), onOverlong: (n, bytes) => over.push([n, bytes]) })
  for (let i = 0; i < input.length; i += 256 * 1024) d.push(input.subarray(i, i + 256 * 1024))
  d.end()
  t.same(small, [0, 2, 4])
  t.same(over.slice(1), [[1, line.length], [3, 12 * MB]])
})

t.test('a rollout with a 20 MB tool output: the same records with and without native, and it round-trips byte for byte', async (t) => {
  const home = tempDir(t, 'ferry-codex-huge-')
  const id = '019fc6d9-f4a0-7a40-87c1-97ebec571ef6'
  const dir = join(home, '.codex', 'sessions', '2026', '08', '03')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `rollout-2026-08-03T09-00-00-${id}.jsonl`)
  const output = tricky(20 * MB)
  const lines = [
    { timestamp: '2026-08-03T09:00:00.000Z', type: 'session_meta', payload: { id, timestamp: '2026-08-03T09:00:00.000Z', cwd: '/home/dev/x', originator: 'codex_cli_rs', cli_version: '0.154.0' } },
    { timestamp: '2026-08-03T09:00:01.000Z', type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cat big"}', call_id: 'call_big' } },
    { timestamp: '2026-08-03T09:00:02.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_big', output } },
    { timestamp: '2026-08-03T09:00:03.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${'QUJD'.repeat(2 * MB)}` }] } },
  ]
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
  writeFileSync(file, text)

  const lean = await cx.readSettled(cx.ctx(home), id)
  const full = await cx.readSettled(cx.ctx(home), id, { native: true })
  t.equal(lean.error, undefined)
  t.equal(full.error, undefined)
  const result = lean.recs.flatMap((r) => (r.kind === 'message' ? (r as MessageRec).blocks : [])).find((b) => b.type === 'tool_result') as any
  t.ok(result?.content === output, 'the tool output, exactly')
  const image = lean.recs.flatMap((r) => (r.kind === 'message' ? (r as MessageRec).blocks : [])).find((b) => b.type === 'image') as any
  t.equal(image?.data?.length, 8 * MB, 'the image data, whole')
  const strip = (recs: typeof full.recs) => JSON.stringify(recs.map(({ native: _n, ...r }: any) => r))
  t.ok(strip(full.recs) === strip(lean.recs), 'the same records as the native read, less native')

  const out = tempDir(t, 'ferry-codex-huge-out-')
  await cx.write(cx.ctx(out), full.recs)
  const [written] = rollouts(join(out, '.codex'))
  t.ok(written && readFileSync(written).equals(Buffer.from(text)), 'written back byte for byte')
})

t.test('a huge tool output whose call is not in the session reaches Claude Code whole, after its note', async (t) => {
  // The writer puts a note before such a result: the text is written as the note and the output's own slices.
  const home = tempDir(t, 'ferry-codex-orphan-')
  const id = '019fc6d9-f4a0-7a40-87c1-97ebec571ef7'
  const dir = join(home, '.codex', 'sessions', '2026', '08', '03')
  mkdirSync(dir, { recursive: true })
  const output = tricky(3 * MB) + '\ud83d'
  const lines = [
    { timestamp: '2026-08-03T09:00:00.000Z', type: 'session_meta', payload: { id, timestamp: '2026-08-03T09:00:00.000Z', cwd: '/home/dev/x', originator: 'codex_cli_rs', cli_version: '0.154.0' } },
    { timestamp: '2026-08-03T09:00:02.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_gone', output } },
  ]
  writeFileSync(join(dir, `rollout-2026-08-03T09-00-00-${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const { recs, error } = await cx.readSettled(cx.ctx(home), id)
  t.equal(error, undefined)
  const out = tempDir(t, 'ferry-codex-orphan-out-')
  await cc.write(cc.ctx(out), recs)
  const [file] = files(join(out, '.claude', 'projects')).filter((f) => f.endsWith('.jsonl'))
  const text = readFileSync(join(out, '.claude', 'projects', file!), 'utf8')
  const parsed = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { message?: { content?: unknown } })
  const expected = `[ferry] Result of an earlier tool call (call_gone):\n${output}`
  t.ok(parsed.some((l) => l.message?.content === expected), 'the note and the output, exactly')
  const line = text.split('\n').find((l) => l.length > 3 * MB)!
  t.equal(line, JSON.stringify(JSON.parse(line)), 'the line is what JSON.stringify writes, byte for byte')
})
