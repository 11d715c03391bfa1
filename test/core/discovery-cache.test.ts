/**
 * The discovery metadata cache (issue #20) through the real CLI: a second
 * `ferry ls` over an unchanged store answers from `$XDG_CACHE_HOME/ferry`
 * without opening the session files (counted with strace where installed),
 * gives exactly what a cache-less listing gives, and never gives stale data:
 * an appended line, a same-size rewrite under a new inode, and an in-place
 * rewrite with the old mtime put back are all seen. With `--home DIR` the
 * cache is DIR's (its cache folder made when missing), never the real HOME's
 * or XDG_CACHE_HOME's; a damaged cache file is ignored, and a home where the
 * cache cannot be written is listed the same.
 */
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, ROOT, ferry, tempDir } from '../kit.js'

const hasStrace = spawnSync('strace', ['-V']).status === 0
const SESSIONS = 40

/** Past the cache's racy window (3 s): a file whose ctime is that recent is read but not cached. */
const settle = () => new Promise((r) => setTimeout(r, 3200))

function store(t: Parameters<typeof tempDir>[0], withCache: boolean): { home: string; files: string[] } {
  const home = tempDir(t, 'ferry-dcache-')
  execFileSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', String(SESSIONS), '--lines-per-session', '6', '--seed', 'dcache', '--quiet'])
  if (withCache) mkdirSync(join(home, '.cache'))
  const projects = join(home, '.claude', 'projects')
  const files = readdirSync(projects).flatMap((p) => readdirSync(join(projects, p)).map((f) => join(projects, p, f)))
  // Files changed in the last seconds are never cached (racy): make them an hour old.
  const old = new Date(Date.now() - 3600_000)
  for (const f of files) utimesSync(f, old, old)
  return { home, files }
}

async function ls(home: string, env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>[]> {
  const r = await ferry(['--home', home, 'ls', '--json', '--harness', 'claude-code'], { env })
  if (r.code !== 0) throw new Error(`ls failed: ${r.stderr}`)
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
}

function cacheFiles(home: string): string[] {
  const dir = join(home, '.cache', 'ferry', 'discovery')
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : []
}

/** How many session files `ferry ls` opened. */
function opens(home: string): number {
  const log = join(home, 'ls.strace')
  spawnSync('strace', ['-f', '-qq', '-e', 'trace=open,openat', '-o', log, process.execPath, FERRY, '--home', home, 'ls', '--json'], { stdio: 'ignore' })
  const projects = join(home, '.claude', 'projects')
  return readFileSync(log, 'utf8').split('\n').filter((l) => l.includes(projects) && l.includes('.jsonl"')).length
}

function titleOf(rows: Record<string, unknown>[], path: string): unknown {
  return rows.find((r) => r.path === path)?.title
}

t.test('a second ls comes from the cache and matches a cache-less listing', async (t) => {
  const { home } = store(t, true)
  await settle()
  const uncached = await ls(home, { FERRY_NO_CACHE: '1' })
  t.equal(uncached.length, SESSIONS)
  t.same(cacheFiles(home), [], 'FERRY_NO_CACHE=1 writes no cache')
  const first = await ls(home)
  t.equal(cacheFiles(home).length, 1, 'the first ls writes one cache file')
  t.same(first, uncached, 'same listing as without the cache')
  const second = await ls(home)
  t.same(second, uncached, 'a listing from the cache is the same, field for field')
  if (hasStrace) t.equal(opens(home), 0, 'the cached listing opened no session file')
  t.same(readdirSync(join(home, '.cache', 'ferry', 'discovery')).filter((f) => f.startsWith('.')), [], 'no temp file left beside the cache')
})

t.test('a changed file is read again, whatever its size, mtime and inode say', async (t) => {
  const { home, files } = store(t, true)
  await settle()
  await ls(home)
  const [a, b, c] = files.sort() as [string, string, string]

  // Appended (size changes), with the mtime set back.
  const stA = statSync(a)
  appendFileSync(a, JSON.stringify({ type: 'custom-title', customTitle: 'Appended title', sessionId: 'x' }) + '\n')
  utimesSync(a, stA.atime, stA.mtime)

  // Same size, new inode (written beside it and renamed over, as editors and agents do), same mtime.
  const stB = statSync(b)
  const textB = readFileSync(b, 'utf8')
  const lines = textB.trimEnd().split('\n')
  const marker = JSON.stringify({ type: 'custom-title', customTitle: 'Renamed', sessionId: 'x' })
  // Drop a line of at least the marker's size and pad the marker so the total size is unchanged.
  const i = lines.findIndex((l, n) => n > 0 && l.length >= marker.length + 20)
  t.ok(i > 0, 'a line to replace')
  const pad = lines[i]!.length - marker.length
  lines[i] = JSON.stringify({ type: 'custom-title', customTitle: 'Renamed' + ' '.repeat(0), sessionId: 'x'.repeat(1 + pad) })
  const newB = lines.join('\n') + '\n'
  t.equal(Buffer.byteLength(newB), Buffer.byteLength(textB), 'the rewrite keeps the size')
  writeFileSync(`${b}.new`, newB)
  utimesSync(`${b}.new`, stB.atime, stB.mtime)
  renameSync(`${b}.new`, b)

  // In place: same size, same inode, old mtime put back (only the ctime moves).
  const stC = statSync(c)
  const textC = readFileSync(c, 'utf8')
  const linesC = textC.trimEnd().split('\n')
  const j = linesC.findIndex((l, n) => n > 0 && l.length >= marker.length + 20)
  linesC[j] = JSON.stringify({ type: 'custom-title', customTitle: 'In place', sessionId: 'x'.repeat(1 + linesC[j]!.length - JSON.stringify({ type: 'custom-title', customTitle: 'In place', sessionId: 'x' }).length) })
  const newC = linesC.join('\n') + '\n'
  t.equal(Buffer.byteLength(newC), Buffer.byteLength(textC), 'the in-place rewrite keeps the size')
  writeFileSync(c, newC)
  utimesSync(c, stC.atime, stC.mtime)
  t.equal(statSync(c).ino, stC.ino, 'same inode')
  t.equal(statSync(c).mtimeMs, stC.mtimeMs, 'same mtime')

  const rows = await ls(home)
  t.equal(titleOf(rows, a), 'Appended title', 'appended line seen')
  t.equal(titleOf(rows, b), 'Renamed', 'same-size rewrite under a new inode seen')
  t.equal(titleOf(rows, c), 'In place', 'in-place rewrite with its mtime set back seen')
  t.same(rows, await ls(home, { FERRY_NO_CACHE: '1' }), 'and the whole listing matches a cache-less one')
})

t.test('--home without a cache folder: the cache goes under it, not the real HOME; a damaged cache is ignored', async (t) => {
  const bare = store(t, false)
  const before = readdirSync(bare.home).sort()
  const real = tempDir(t, 'ferry-dcache-real-')
  const xdg = join(real, 'xdg-cache')
  await settle()
  const cold = await ls(bare.home, { HOME: real, XDG_CACHE_HOME: xdg })
  t.same(readdirSync(bare.home).sort(), [...before, '.cache'].sort(), 'the only new entry of DIR is its cache folder')
  t.equal(cacheFiles(bare.home).length, 1, 'one cache file, under DIR/.cache/ferry/discovery')
  t.same(readdirSync(real), [], 'nothing in the real HOME, nor in its XDG_CACHE_HOME')
  t.same(await ls(bare.home, { HOME: real, XDG_CACHE_HOME: xdg }), cold, 'the warm listing is the cold one')
  if (hasStrace) t.equal(opens(bare.home), 0, 'and opens no session file')

  const { home } = store(t, true)
  await settle()
  const good = await ls(home)
  const [file] = cacheFiles(home)
  writeFileSync(file!, '{"format":1,"entries":[["x", 1')
  t.same(await ls(home), good, 'a truncated cache file is ignored')
  t.ok(JSON.parse(readFileSync(file!, 'utf8')).entries.length === SESSIONS, 'and rewritten whole')
})

t.test('a home where the cache cannot be written: the same listing, no error, no cache', async (t) => {
  // DIR/.cache is a file, so the cache folder cannot be made (root ignores permission bits; this holds for root too).
  const { home } = store(t, false)
  writeFileSync(join(home, '.cache'), 'not a folder')
  await settle()
  const uncached = await ls(home, { FERRY_NO_CACHE: '1' })
  const r = await ferry(['--home', home, 'ls', '--json', '--harness', 'claude-code'])
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stderr, '', 'nothing on stderr')
  t.same(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), uncached, 'the listing a cache-less run gives')
  t.equal(readFileSync(join(home, '.cache'), 'utf8'), 'not a folder', 'the file in the way is left as it was')
})
