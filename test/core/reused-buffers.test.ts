// The memory paths of long reads and writes: bytes interned off the heap,
// files read through one reused buffer, strings written through one
// buffer. Each is compared with the plain path it replaces.
import t from 'tap'
import fc from 'fast-check'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ByteInterner } from '../../lib/io/byte-interner.js'
import { LineSplitter } from '../../lib/io/lines.js'
import { readLines, type FileLine } from '../../lib/io/line-file.js'
import { AtomicFile } from '../../lib/io/atomic.js'
import { readSmallPlainFile, returnSmallFile, SMALL_FILE } from '../../lib/io/bytes.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { tempDir } from '../kit.js'

t.test('ByteInterner numbers equal bytes alike and different bytes apart, in first-seen order', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 400 }), fc.array(fc.nat(), { maxLength: 2000 }), (pool, picks) => {
      const interner = new ByteInterner()
      const seen = new Map<string, number>()
      const all = picks.length && pool.length ? picks.map((p) => pool[p % pool.length]!) : pool
      for (const bytes of all) {
        // Interned from the middle of a larger buffer, as the index does from a line.
        const host = Buffer.concat([Buffer.from('{"x":'), bytes, Buffer.from('}')])
        const id = interner.intern(host, 5, 5 + bytes.length)
        const key = Buffer.from(bytes).toString('hex')
        if (!seen.has(key)) seen.set(key, seen.size)
        if (id !== seen.get(key)) return false
      }
      return interner.size === seen.size
    }),
    { numRuns: 300 },
  )
})

function splitAll(chunks: Buffer[], reused: boolean): Array<[number, string]> {
  const out: Array<[number, string]> = []
  const s = new LineSplitter({ onLine: (b, n) => out.push([n, b.toString('latin1')]), reusedChunks: reused })
  const scratch = Buffer.alloc(Math.max(1, ...chunks.map((c) => c.length)))
  for (const c of chunks) {
    if (!reused) s.push(c)
    else {
      c.copy(scratch)
      s.push(scratch.subarray(0, c.length))
      // What the next read does to the buffer.
      scratch.fill(0x7a)
    }
  }
  s.end()
  return out
}

t.test('LineSplitter with reused chunks gives the lines of fresh chunks, whatever the chunk size', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 30 }), fc.integer({ min: 1, max: 50 }), (parts, size) => {
      const text = Buffer.from(parts.join('\n'), 'latin1')
      const chunks: Buffer[] = []
      for (let i = 0; i < text.length; i += size) chunks.push(text.subarray(i, i + size))
      return JSON.stringify(splitAll(chunks, true)) === JSON.stringify(splitAll(chunks, false))
    }),
    { numRuns: 500 },
  )
})

t.test('readLines through one reused buffer gives the same lines as the stream, plain and zstd, with endByte', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 's.jsonl')
  // Over the small-file size, with lines longer than a read (300 KB) and a torn last line.
  const lines: string[] = []
  for (let i = 0; i < 4000; i++) lines.push(JSON.stringify({ i, pad: 'ü'.repeat(i % 7 === 0 ? 1500 : 20), big: i % 1000 === 5 ? 'b'.repeat(300_000) : '' }))
  writeFileSync(file, lines.join('\n') + '\n{"torn":')
  execFileSync('zstd', ['-q', '-f', file, '-o', file + '.zst'])
  const ctx = { diagnostics: new Diagnostics({ stream: null }), maxLineBytes: 256 * 1024 * 1024 }
  const collect = async (path: string, transient: boolean, endByte?: number) => {
    const got: Array<Omit<FileLine, 'buf'> & { text: string }> = []
    const info: { compressed?: boolean } = {}
    for await (const l of readLines(ctx, path, { source: 'test', transient, info, ...(endByte === undefined ? {} : { endByte }) })) got.push({ no: l.no, offset: l.offset, text: l.buf.toString('utf8'), ...(l.unterminated ? { unterminated: true } : {}) })
    return { got, compressed: info.compressed }
  }
  for (const [path, endByte] of [[file, undefined], [file + '.zst', undefined], [file, 1_234_567]] as const) {
    const fresh = await collect(path, false, endByte)
    const reused = await collect(path, true, endByte)
    t.equal(reused.compressed, fresh.compressed)
    t.equal(reused.got.length, fresh.got.length, `${path} ${endByte ?? ''}: ${fresh.got.length} lines`)
    // The first difference only: a whole diff of megabyte lines would bury it.
    const at = fresh.got.findIndex((l, i) => JSON.stringify(l) !== JSON.stringify(reused.got[i]))
    t.equal(at, -1, 'no line differs')
  }
  const whole = await collect(file, true)
  t.equal(whole.got.length, 4001)
  t.equal(whole.got.at(-1)!.unterminated, true)
  t.ok(whole.got[5]!.text === lines[5], 'a line longer than a read comes out whole')
})

t.test('AtomicFile: strings gathered in its buffer come out in order with buffers and big strings, file after file', async (t) => {
  const dir = tempDir(t)
  for (let round = 0; round < 3; round++) {
    const path = join(dir, `out-${round}.txt`)
    const f = await AtomicFile.create(path, { root: dir })
    const expected: Buffer[] = []
    const put = async (d: string | Buffer) => {
      expected.push(typeof d === 'string' ? Buffer.from(d) : d)
      await f.write(d)
    }
    for (let i = 0; i < 3000; i++) {
      await put(`{"n":${i},"text":"${'héllo 👋 '.repeat(i % 50)}"}\n`)
      if (i % 500 === 7) await put(Buffer.from(`raw ${i}\n`))
      if (i % 1000 === 9) await put('x'.repeat(700_000) + '\n')
      if (i % 1000 === 11) await put('€'.repeat(300_000) + '\n')
    }
    await f.commit()
    t.ok(readFileSync(path).equals(Buffer.concat(expected)), `file ${round} byte for byte`)
  }
  const aborted = await AtomicFile.create(join(dir, 'gone.txt'), { root: dir })
  await aborted.write('partial\n')
  await aborted.abort()
  t.same(readdirSync(dir).sort(), ['out-0.txt', 'out-1.txt', 'out-2.txt'], 'an abort leaves nothing')
})

t.test('readSmallPlainFile lends a buffer: a returned one is reused, one still lent is never written over', async (t) => {
  const dir = tempDir(t)
  const files = [0, 1, 2, 3].map((k) => {
    const p = join(dir, `s${k}.jsonl`)
    writeFileSync(p, `{"n":${k},"pad":"${String(k).repeat(1000 + k * 3000)}"}\n`)
    return p
  })
  const a = readSmallPlainFile(files[0]!)!
  const aCopy = Buffer.from(a)
  // Lent and not returned: reading others must not touch it.
  const b = readSmallPlainFile(files[1]!)!
  t.not(b.buffer, a.buffer, 'a second read while the first is lent gets another buffer')
  returnSmallFile(b)
  const c = readSmallPlainFile(files[2]!)!
  t.equal(c.buffer, b.buffer, 'a returned buffer is lent again')
  t.ok(c.equals(readFileSync(files[2]!)), 'and holds the new file, exactly (shorter or longer than the last)')
  t.ok(a.equals(aCopy), 'the buffer still lent is unchanged')
  returnSmallFile(c)
  returnSmallFile(c)
  const d = readSmallPlainFile(files[3]!)!
  const e = readSmallPlainFile(files[0]!)!
  t.not(d.buffer, e.buffer, 'a buffer returned twice is lent once')
  t.ok(d.equals(readFileSync(files[3]!)) && e.equals(readFileSync(files[0]!)), 'both read right')
  t.ok(a.equals(aCopy), 'the first is still unchanged')
  // Not a small plain file: null, and the buffer it would have used is not lost.
  const zst = join(dir, 'z.jsonl.zst')
  writeFileSync(zst, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]))
  t.equal(readSmallPlainFile(zst), null, 'zstd bytes: null')
  const big = join(dir, 'big.jsonl')
  writeFileSync(big, Buffer.alloc(SMALL_FILE + 1, 0x41))
  t.equal(readSmallPlainFile(big), null, 'over the small size: null')
  for (const x of [a, d, e]) returnSmallFile(x)
})
