// `ferry archive --jobs N` (issues #16, #20): sessions read by reader threads
// while the main thread writes give the same archive, row for row, as one
// thread doing both, on the fixture stores of every harness; a broken session
// is reported and skipped the same way; kill -9 mid-run leaves a sound
// database that a re-run completes.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, fileTimeout, ROOT, tempDir } from '../kit.js'
import { CLAUDE, PROJECT, archive, dbOf, makeHome, query, queryParts } from './helpers.js'

fileTimeout(t, 10 * 60_000)

/** Everything an archive holds that does not depend on when it was made. */
function contents(db: string) {
  return {
    records: queryParts(db, 'SELECT rid, id, sid, ord, kind, role, ts, tools, active, bid, bidx FROM records ORDER BY rid'),
    sessions: query(db, 'SELECT sid, harness, native_id, cwd, title, header, end_rec, info, message_count, record_count, fingerprint, src_path, src_size, src_head, parent, parent_kind FROM sessions ORDER BY sid'),
    links: query(db, 'SELECT * FROM links ORDER BY rowid'),
    index: ['hello', 'error', 'test', 'read', 'bash', 'config'].map((w) => query(db, 'SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid', w)),
  }
}

/** Compared by digest: a tap diff of megabyte strings would not finish. */
const digest = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex')

const summary = (s: { sessions: unknown; records: unknown; bytes: unknown }) => ({ sessions: s.sessions, records: s.records, bytes: s.bytes })

/** Claude Code sessions of six lines each (the fixture's lines, re-chained), every line carrying `field` padded to `width`. */
function wideSessions(home: string, keys: number[], sidOf: (k: number) => string, field: string, width: number, pad: string): void {
  const lines = readFileSync(join(home, PROJECT, `${CLAUDE}.jsonl`), 'utf8').trimEnd().split('\n')
  for (const k of keys) {
    const sid = sidOf(k)
    let prev: string | null = null
    const out: string[] = []
    for (let i = 0; i < 6; i++) {
      const o = JSON.parse(lines[i % lines.length]!) as Record<string, unknown>
      const uuid = `${sid.slice(0, 24)}${String(i).padStart(12, '0')}`
      out.push(JSON.stringify({ ...o, sessionId: sid, uuid, parentUuid: prev, [field]: `${k}:${i}:`.padEnd(width, pad) }))
      prev = uuid
    }
    writeFileSync(join(home, PROJECT, `${sid}.jsonl`), out.join('\n') + '\n')
  }
}

/** The store archived with --jobs 1 and --jobs 2 (two readers): the same summary; the first archive's contents. */
async function bothWays(t: { equal: (a: unknown, b: unknown, m?: string) => unknown; same: (a: unknown, b: unknown, m?: string) => unknown }, home: string): Promise<ReturnType<typeof contents>> {
  const one = await archive(home, '--db', join(home, 'one.db'), '--jobs', '1')
  const two = await archive(home, '--db', join(home, 'two.db'), '--jobs', '2')
  t.equal(two.code, 0, two.stderr)
  t.equal(two.sum.readers, 2)
  t.same(summary(two.sum), summary(one.sum), 'the same summary')
  return contents(join(home, 'one.db'))
}

t.test('--jobs 2 gives the archive --jobs 1 gives, on every harness\'s fixture store', async (t) => {
  const home = makeHome(t)
  const one = await archive(home, '--db', join(home, 'one.db'), '--jobs', '1')
  const two = await archive(home, '--db', join(home, 'two.db'), '--jobs', '2')
  t.equal(one.code, 0, one.stderr)
  t.equal(two.code, 0, two.stderr)
  t.ok(one.sum.sessions.added >= 6, `${one.sum.sessions.added} sessions archived`)
  t.same(summary(two.sum), summary(one.sum), 'the same summary')
  t.equal(one.sum.readers, 0, '--jobs 1: read in the writer\'s thread')
  t.equal(two.sum.readers, 2, '--jobs 2: two reader threads')
  t.equal(two.stderr, one.stderr, 'the same diagnostics')
  const a = contents(join(home, 'one.db'))
  const b = contents(join(home, 'two.db'))
  t.ok(a.index.some((hits) => hits.length > 0), 'the index has hits to compare')
  t.same(b, a, 'row for row the same: records (in the same order), sessions, links, index')
  const again = await archive(home, '--db', join(home, 'two.db'), '--jobs', '2')
  t.equal(again.sum.sessions.unchanged, one.sum.sessions.added, 'a re-run reads nothing')
})

t.test('--jobs 2: a session too big for a reader\'s capped heap (over 8 MiB) is read by the writer, in its place', async (t) => {
  const home = makeHome(t)
  // Two sessions of ~9 MB (lines of 1.5 MB tool output) among the small ones: dealt between readers' sessions.
  wideSessions(home, [1, 2], (k) => `eeeeeeee-0000-4000-8000-00000000b1g${k}`, 'big', 1_600_000, 'x')
  const a = await bothWays(t, home)
  t.ok(a.records.some((r) => String(r.raw ?? '').includes('"big":"2:5:')), 'the big sessions are archived')
  t.same(contents(join(home, 'two.db')), a, 'row for row the same as --jobs 1')
})

t.test('--jobs 2: sessions of megabyte lines, many times the readers\' window of row text, arrive whole and in order', async (t) => {
  const home = makeHome(t)
  // Eight sessions of ~3 MB (six 500 KB lines each), read by the readers (under 8 MiB): a batch is most of
  // the 8 MiB window of row text on its own, so a reader waits for the writer after nearly every one.
  wideSessions(home, [0, 1, 2, 3, 4, 5, 6, 7], (k) => `dddddddd-0000-4000-8000-0000000w1n${k}`, 'wide', 500_000, 'y')
  const a = await bothWays(t, home)
  const wide = a.records.filter((r) => String(r.raw ?? '').includes('"wide":"')).length
  t.equal(wide, 48, 'every megabyte line is archived')
  t.equal(digest(contents(join(home, 'two.db'))), digest(a), 'row for row the same as --jobs 1')
})

t.test('--jobs 2: multibyte text of every width around a chunk of row text arrives byte for byte', async (t) => {
  const home = makeHome(t)
  // Row text crosses threads as UTF-8 in 256 KiB chunks, used again from batch to batch: two- three- and
  // four-byte characters (a pad of emoji may end on a lone surrogate), lines that fill a chunk, spill over
  // one, or need one of their own, over 20 sessions' batches, so chunks come back and are used again.
  const pads = ['é', '字', '😀', 'a']
  const widths = [1_000, 43_000, 87_500, 65_000, 130_000]
  const keys = Array.from({ length: 20 }, (_, k) => k)
  for (const k of keys) wideSessions(home, [k], (x) => `cccccccc-0000-4000-8000-000000mb${String(x).padStart(4, '0')}`, 'mbpad', widths[k % widths.length]!, pads[k % pads.length]!)
  const a = await bothWays(t, home)
  t.equal(a.records.filter((r) => String(r.raw ?? '').includes('"mbpad":"')).length, 120, 'every line is archived')
  t.ok(['é', '字', '😀'].every((c) => a.records.some((r) => String(r.raw).includes(c.repeat(3)))), 'multibyte text is in the archive')
  t.equal(digest(contents(join(home, 'two.db'))), digest(a), 'row for row the same as --jobs 1')
})

t.test('--jobs 2: a session with a bad line and one whose file is cut are reported and skipped as with --jobs 1', async (t) => {
  const zstd = spawnSync('zstd', ['--version']).status === 0
  const home = makeHome(t)
  const bad = join(home, PROJECT, 'dddddddd-0000-4000-8000-00000000bad1.jsonl')
  const good = readFileSync(join(home, PROJECT, `${CLAUDE}.jsonl`), 'utf8').split('\n').slice(0, 2).map((l) => l.replaceAll(CLAUDE, 'dddddddd-0000-4000-8000-00000000bad1').replace(/"uuid":"([^"]+)"/, '"uuid":"b$1"'))
  writeFileSync(bad, `${good[0]}\n{"type":"user", not json\n${good[1]}\n`)
  if (zstd) {
    // A generated Codex rollout, compressed, then cut in its frame: the read fails midway.
    const gen = join(home, 'gen')
    spawnSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'codex', '--out', gen, '--sessions', '1', '--lines-per-session', '300', '--seed', 'readers-cut', '--quiet'])
    const day = join(gen, '.codex', 'sessions')
    const find = (d: string): string => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name)
        if (e.isDirectory()) return find(p)
        if (e.name.endsWith('.jsonl')) return p
      }
      return ''
    }
    const rollout = find(day)
    const z = spawnSync('zstd', ['-q', '-c', rollout]).stdout as Buffer
    writeFileSync(join(home, '.codex', 'sessions', '2026', '11', '02', `${rollout.split('/').pop()}.zst`), z.subarray(0, Math.floor(z.length / 2)))
    rmSync(gen, { recursive: true })
  }
  const one = await archive(home, '--db', join(home, 'one.db'), '--jobs', '1')
  const two = await archive(home, '--db', join(home, 'two.db'), '--jobs', '2')
  t.equal(two.code, 1, 'exit 1')
  t.equal(two.sum.sessions.failed, zstd ? 2 : 1, 'the broken sessions failed')
  t.same(summary(two.sum), summary(one.sum), 'the same summary as --jobs 1')
  t.same(two.stderr.split('\n').sort(), one.stderr.split('\n').sort(), `the same diagnostics:\n${two.stderr}`)
  t.ok(two.stderr.split('\n').some((l) => l.includes(`"file":"${bad}"`) && l.includes('"line":2')), 'the bad line located')
  t.notMatch(two.stderr, /\n\s+at /, 'no stack trace')
  t.same(contents(join(home, 'two.db')), contents(join(home, 'one.db')), 'what was archived is the same')
})

t.test('--jobs: a positive whole number, else exit 2 and no archive made', async (t) => {
  const home = makeHome(t)
  for (const bad of ['0', 'x', '2.5']) {
    const r = await archive(home, '--jobs', bad)
    t.equal(r.code, 2, `--jobs ${bad}: exit 2`)
    t.match(r.stderr, /--jobs/, 'the message names --jobs')
  }
  t.notOk(existsSync(dbOf(home)), 'no archive made')
})
