// #47 items 5 and 13: a .jsonl.zst whose content checksum fails is `bad-zstd` from both decoders
// (fzstd does not check it itself), and one that starts with a skippable frame is read whole.
import t from 'tap'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openBytes, zstdDecoders } from '../../lib/io/bytes.js'
import { ferry, FIXTURES, has, rollouts, tempDir, zstd } from '../kit.js'

if (!has('zstd')) t.skip('zstd(1) is not installed')

const SKIPPABLE = Buffer.concat([Buffer.from([0x5e, 0x2a, 0x4d, 0x18]), Buffer.from([16, 0, 0, 0]), Buffer.alloc(16)])

async function read(file: string, decoder: (typeof zstdDecoders)[number]): Promise<{ bytes: Buffer; error: unknown }> {
  const parts: Buffer[] = []
  try {
    const { stream } = await openBytes(file, { decoder })
    for await (const c of stream as AsyncIterable<Buffer>) parts.push(c)
    return { bytes: Buffer.concat(parts), error: null }
  } catch (error) {
    return { bytes: Buffer.concat(parts), error }
  }
}

t.test('item 5: an altered frame is bad-zstd at that frame, from every decoder', async (t) => {
  const dir = tempDir(t)
  const plain = join(dir, 'a.jsonl')
  const text = Array.from({ length: 400 }, (_, i) => JSON.stringify({ i, text: `line ${i} `.repeat(8) })).join('\n') + '\n'
  writeFileSync(plain, text)
  const z = readFileSync(zstd(plain))
  // Two frames: the first whole, the second with one bit of its checksum flipped (the data decodes, the checksum fails).
  const bad = Buffer.concat([z, z])
  bad[bad.length - 2] ^= 0x01
  writeFileSync(join(dir, 'bad.zst'), bad)
  writeFileSync(join(dir, 'good.zst'), Buffer.concat([SKIPPABLE, z, SKIPPABLE, z]))
  for (const decoder of zstdDecoders) {
    const g = await read(join(dir, 'good.zst'), decoder)
    t.equal(g.error, null, `${decoder}: skippable frames and two checked frames read`)
    t.equal(g.bytes.toString('utf8'), text + text, `${decoder}: byte for byte`)
    const b = await read(join(dir, 'bad.zst'), decoder)
    t.match(b.error, { code: 'bad-zstd', position: { file: join(dir, 'bad.zst') } }, `${decoder}: bad-zstd, located`)
    // Node's decoder drops what it decoded in the same input chunk as the failing check (all of this small file): fzstd only.
    if (decoder === 'fzstd') t.equal(b.bytes.subarray(0, text.length).toString('utf8'), text, `${decoder}: the checked frame before it still read`)
  }
})

t.test('items 5, 13: a Codex .jsonl.zst through the CLI: a skippable frame first, and an altered checksum', async (t) => {
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'codex', 'classic'), home, { recursive: true })
  const file = rollouts(join(home, '.codex', 'sessions')).find((f) => f.includes('019a3c1e'))!
  const plain = await ferry(['--home', home, 'cat', 'codex:019a3c1e'])
  const z = readFileSync(zstd(file))
  rmSync(file)
  writeFileSync(`${file}.zst`, Buffer.concat([SKIPPABLE, z]))
  const ls = await ferry(['--home', home, 'ls', '--json'])
  t.match(JSON.parse(ls.stdout.trim().split('\n')[0]!), { cwd: '/home/dev/demo-app' }, 'ls reads its head through the skippable frame')
  const r = await ferry(['--home', home, 'cat', 'codex:019a3c1e'])
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stdout.split('\n').length, plain.stdout.split('\n').length, 'every record')
  const bad = Buffer.from(z)
  bad[bad.length - 2] ^= 0x01
  writeFileSync(`${file}.zst`, bad)
  for (const decoder of zstdDecoders) {
    const b = await ferry(['--home', home, 'cat', 'codex:019a3c1e'], { env: { FERRY_ZSTD_DECODER: decoder === 'fzstd' ? 'fzstd' : '' } })
    t.equal(b.code, 1, `${decoder}: exit 1`)
    t.match(b.stderr, /codex:bad-zstd: .*\.jsonl\.zst/, `${decoder}: bad-zstd naming the file`)
  }
})
