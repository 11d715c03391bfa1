import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LineSplitter } from '../../lib/io/lines.js'
import { openBytes } from '../../lib/io/bytes.js'
import { AtomicFile, AtomicDir } from '../../lib/io/atomic.js'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { destroyWhenDrained, readableOf } from '../../lib/io/drain.js'
import { tempDir } from '../kit.js'

function split(chunks: Buffer[], max?: number) {
  const lines: Array<[number, string]> = []
  const over: Array<[number, number]> = []
  const s = new LineSplitter({ onLine: (b, n) => lines.push([n, b.toString()]), onOverlong: (n, bytes) => over.push([n, bytes]), ...(max ? { maxLineBytes: max } : {}) })
  for (const c of chunks) s.push(c)
  const unterminated = s.end()
  return { lines, over, unterminated }
}

t.test('lines split across chunk boundaries, with 0-based numbers', async (t) => {
  const text = 'a\nbb\n\nccc\r\nlast'
  for (let size = 1; size <= text.length; size++) {
    const chunks: Buffer[] = []
    for (let i = 0; i < text.length; i += size) chunks.push(Buffer.from(text.slice(i, i + size)))
    const r = split(chunks)
    t.same(r.lines, [[0, 'a'], [1, 'bb'], [2, ''], [3, 'ccc\r'], [4, 'last']], `chunk size ${size}`)
    t.equal(r.unterminated, true)
  }
})

t.test('a line over the cap is skipped and reported; the next line still counts', async (t) => {
  const big = 'x'.repeat(5000)
  const chunks = [Buffer.from('ok1\n' + big.slice(0, 2000)), Buffer.from(big.slice(2000) + '\nok2\n')]
  const r = split(chunks, 1000)
  t.same(r.lines, [[0, 'ok1'], [2, 'ok2']])
  t.same(r.over, [[1, 5000]])
})

t.test('a 40 MB line in 64 KiB chunks comes out whole', async (t) => {
  const line = Buffer.alloc(40 * 1024 * 1024, 0x61)
  const chunks: Buffer[] = []
  for (let i = 0; i < line.length; i += 65536) chunks.push(line.subarray(i, i + 65536))
  chunks.push(Buffer.from('\nz\n'))
  const r = split(chunks)
  t.equal(r.lines.length, 2)
  t.equal(r.lines[0]![1].length, line.length)
  t.equal(r.unterminated, false)
})

t.test('zstd files are read as their decompressed bytes; a truncated frame fails after the good bytes', async (t) => {
  const dir = tempDir(t)
  const plain = join(dir, 'r.jsonl')
  const text = Array.from({ length: 20000 }, (_, i) => JSON.stringify({ n: i, pad: 'p'.repeat(i % 97) })).join('\n') + '\n'
  writeFileSync(plain, text)
  execFileSync('zstd', ['-q', '-f', plain, '-o', plain + '.zst'])
  const read = async (p: string) => {
    const { stream, compressed } = await openBytes(p)
    const parts: Buffer[] = []
    try {
      for await (const c of stream) parts.push(c as Buffer)
      return { compressed, data: Buffer.concat(parts).toString(), err: null as Error | null }
    } catch (err) {
      return { compressed, data: Buffer.concat(parts).toString(), err: err as Error }
    }
  }
  const p = await read(plain)
  const z = await read(plain + '.zst')
  t.equal(p.compressed, false)
  t.equal(z.compressed, true)
  t.equal(z.data, text)
  const whole = readFileSync(plain + '.zst')
  const cut = join(dir, 'cut.jsonl.zst')
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.7)))
  const c = await read(cut)
  t.ok(c.err, 'an error')
  t.match(String(c.err), new RegExp(`${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(byte \\d+\\): zstd: `))
  t.ok(c.data.length > 0 && text.startsWith(c.data), 'everything decoded before the cut was passed on')
})

t.test('AtomicFile and AtomicDir: nothing at the target until commit; abort leaves nothing', async (t) => {
  const dir = tempDir(t)
  const target = join(dir, 'a.jsonl')
  const f = await AtomicFile.create(target)
  await f.write('hello\n')
  t.throws(() => readFileSync(target), 'not there before commit')
  await f.commit()
  t.equal(readFileSync(target, 'utf8'), 'hello\n')
  await t.rejects(AtomicFile.create(target), /already exists/)
  const g = await AtomicFile.create(target, { force: true })
  await g.write('again\n')
  await g.abort()
  t.equal(readFileSync(target, 'utf8'), 'hello\n', 'abort keeps the old file')
  const d = await AtomicDir.create(join(dir, 'sess'))
  writeFileSync(join(d.tmp, 'x'), '1')
  await d.commit()
  t.equal(readFileSync(join(dir, 'sess', 'x'), 'utf8'), '1')
  const { readdirSync } = await import('node:fs')
  t.same(readdirSync(dir).sort(), ['a.jsonl', 'sess'], 'no temp files left')
})

t.test('openBytes: small files (read whole, at once) and large ones (streamed) give the same bytes, endByte honoured', async (t) => {
  const dir = tempDir(t)
  const collect = async (p: string, opts: { endByte?: number } = {}) => {
    const { stream, compressed } = await openBytes(p, opts)
    const parts: Buffer[] = []
    for await (const c of stream) parts.push(c as Buffer)
    return { compressed, data: Buffer.concat(parts) }
  }
  // Both sides of the 1 MiB small-file bound, and an empty file.
  for (const size of [0, 5, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 17]) {
    const p = join(dir, `f${size}.jsonl`)
    const data = Buffer.alloc(size, 'x')
    for (let i = 99; i < size; i += 100) data[i] = 0x0a
    writeFileSync(p, data)
    const whole = await collect(p)
    t.equal(whole.compressed, false)
    t.ok(whole.data.equals(data), `${size} bytes: all of them`)
    const cut = Math.floor(size / 2)
    t.ok((await collect(p, { endByte: cut })).data.equals(data.subarray(0, cut)), `${size} bytes, endByte ${cut}: the first ${cut}`)
  }
  // A small zstd file is still sniffed and decompressed.
  const z = join(dir, 'small.jsonl')
  writeFileSync(z, '{"a":1}\n{"b":2}\n')
  execFileSync('zstd', ['-q', '-f', z, '-o', z + '.zst'])
  const zz = await collect(z + '.zst')
  t.equal(zz.compressed, true)
  t.equal(zz.data.toString(), '{"a":1}\n{"b":2}\n')
  await t.rejects(openBytes(join(dir, 'missing.jsonl')), { code: 'ENOENT' }, 'a missing file rejects')
})

/** Reads `r` to its end or error, waiting `ms` before each record, so the stream's buffer is full whenever it fails. */
async function slowly(r: Readable, ms: number): Promise<{ got: unknown[]; err: Error | null }> {
  const got: unknown[] = []
  try {
    for await (const x of r) {
      got.push(x)
      await sleep(ms)
    }
    return { got, err: null }
  } catch (err) {
    return { got, err: err as Error }
  }
}

t.test('readableOf: a generator that throws fails the stream only after every record before the throw was read', async (t) => {
  let closed = false
  async function* records() {
    try {
      for (let i = 0; i < 200; i++) yield { i }
      throw new Error('damaged at 200')
    } finally {
      closed = true
    }
  }
  const r = await slowly(readableOf(records(), 64), 1)
  t.equal(r.got.length, 200, 'all 200 records (Readable.from drops what is buffered: up to 64)')
  t.equal(r.err?.message, 'damaged at 200')
  t.ok(closed, 'the generator finished')

  // A consumer that stops early closes the generator (its finally blocks close files).
  closed = false
  const early = readableOf(records())
  for await (const x of early) if ((x as { i: number }).i === 3) break
  await sleep(10)
  t.ok(closed, 'stopping early runs the generator\'s finally')
})

t.test('destroyWhenDrained: a paused consumer still gets every buffered chunk, then the error', async (t) => {
  const r = new Readable({ objectMode: true, highWaterMark: 1000, read() {} })
  for (let i = 0; i < 50; i++) r.push(i)
  destroyWhenDrained(r, new Error('cut'))
  t.notOk(r.destroyed, 'not destroyed while chunks wait')
  const got = await slowly(r, 1)
  t.same(got.got, Array.from({ length: 50 }, (_, i) => i), 'every chunk, in order')
  t.equal(got.err?.message, 'cut')
  const empty = new Readable({ read() {} })
  empty.on('error', () => {})
  destroyWhenDrained(empty, new Error('now'))
  t.ok(empty.destroyed, 'an empty stream fails at once')
})
