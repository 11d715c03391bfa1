// #11 defect 6, for every writer (one loop over the registry): a sub-agent
// goes under its parent or is skipped with it, never a duplicate top-level
// session. An identical re-run adds nothing; a re-run after a run cut between
// parent and sub-agent completes the store to exactly what one uninterrupted
// run leaves; a sub-agent whose parent could not be written in the same run
// is not written either (a later complete run writes both, linked).
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Readable } from 'node:stream'
import { collect, context, discover, open, pipeline, sink } from '../../lib/index.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { writable } from '../../lib/harness/registry.js'
import type { Harness } from '../../lib/harness/types.js'
import type { FerryRecord } from '../../lib/model.js'
import { createDb as createZCodeDb } from '../../fixtures/zcode/zcode-db.mjs'
import { FIXTURES, tempDir } from '../kit.js'
import type { Test } from 'tap'

const SOURCE_HOME = join(FIXTURES, 'claude-code', 'home')
const PARENT = 'claude-code:3f1c9a2e-5b7d-4c1e-9a3f-000000000001'

const quiet = (home: string) => context({ home, diagnostics: new Diagnostics({ stream: null }) })

/** A target store as the agent leaves it before ferry writes (ZCode must have created its database). */
type Store = { home: string; out?: string; seeded?: string[] }

function targetStore(t: Test, h: Harness): Store {
  const dir = tempDir(t, `ferry-sub-${h.id}-`)
  const home = join(dir, 'home')
  if (h.id === 'zcode') createZCodeDb(join(h.root(quiet(home)), 'cli', 'db', 'db.sqlite')).close()
  return h.kind === 'stream' ? { home, out: join(dir, 'out') } : { home, seeded: files(home) }
}

/** Everything a reader sees in the store: each session with its parent, or each file of a stream directory. */
async function contents(h: Harness, s: Store): Promise<string[]> {
  if (s.out) {
    if (!existsSync(s.out)) return []
    return readdirSync(s.out).map((n) => {
      const head = JSON.parse(readFileSync(join(s.out!, n), 'utf8').split('\n').find((l) => l.includes('"kind":"session"'))!)
      return `${n} parent=${head.parent?.sid ?? '-'}`
    }).sort()
  }
  const out: string[] = []
  for await (const info of discover({ ctx: quiet(s.home), harness: [h.id as never] })) {
    const recs = await collect(await open(`${h.id}:${info.id}`, { ctx: quiet(s.home) }))
    for (const r of recs) if (r.kind === 'session') out.push(`${r.sid} parent=${r.parent?.sid ?? '-'}`)
  }
  // A store whose reader does not see what ferry wrote (OpenCode: documents handed to `opencode import`): its files.
  return out.length ? [...new Set(out)].sort() : files(s.home).filter((f) => !s.seeded?.includes(f))
}

/** Every file under the home (SQLite side files aside): what a re-run must leave as it was. */
function files(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    if (!existsSync(d)) return
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else if (!/-(wal|shm|journal)$/.test(n)) out.push(relative(dir, p))
    }
  }
  walk(dir)
  return out.sort()
}

async function write(h: Harness, s: Store, recs: FerryRecord[]): Promise<{ written: string[]; error: unknown }> {
  const ctx = quiet(s.home)
  const dest = sink(h.id as never, { ctx, ...(s.out ? { out: s.out } : {}) })
  const written: string[] = []
  dest.on('written', (w: { from?: string }) => written.push(w.from ?? '?'))
  try {
    await pipeline(Readable.from(recs), dest)
    return { written, error: null }
  } catch (error) {
    return { written, error }
  }
}

t.test('defect 6 for every writer', async (t) => {
  const full = await collect(await open(PARENT, { ctx: quiet(SOURCE_HOME) }))
  const heads = full.filter((r) => r.kind === 'session')
  const child = heads.find((r) => r.parent?.kind === 'subagent')!
  t.ok(child, 'the source has a sub-agent session')
  const parentOnly = full.filter((r) => r.kind === 'stream' || (r as { sid?: string }).sid === PARENT)
  // The parent's read stopped midway (salvage): it is not committed, so neither is its sub-agent.
  const parentCut = full.map((r) => (r.kind === 'end' && r.sid === PARENT ? { ...r, complete: false, warnings: [{ code: 'incomplete', detail: 'read error at line 9' }] } : r)) as FerryRecord[]

  for (const h of writable()) {
    if (h.holdsCopies) continue // the archive keeps copies keyed by source session: a re-run updates them
    await t.test(h.id, async (t) => {
      const whole = targetStore(t, h)
      const first = await write(h, whole, full)
      t.equal(first.error, null, 'an uninterrupted run writes both')
      const expected = await contents(h, whole)
      t.ok(expected.length >= 1, `read back: ${expected.join('; ')}`)
      const before = files(whole.home)

      const again = await write(h, whole, full)
      t.match(again.error, { code: 'not-written' }, 'an identical re-run writes nothing and says so')
      t.same(again.written, [], 'no session written twice')
      t.same(await contents(h, whole), expected, 'no duplicate session')
      t.same(files(whole.home), before, 'no new file')

      const cut = targetStore(t, h)
      t.equal((await write(h, cut, parentOnly)).error, null)
      const resumed = await write(h, cut, full)
      t.same(resumed.written, [child.sid], 'the re-run writes only the missing sub-agent')
      t.same(await contents(h, cut), expected, 'the same store as one uninterrupted run: the sub-agent under its parent')

      const failed = targetStore(t, h)
      const r = await write(h, failed, parentCut)
      t.match(r.error, { code: 'not-written', failures: [{ sid: PARENT, error: { code: 'incomplete' } }, { sid: child.sid, error: { code: 'incomplete' } }] }, 'the sub-agent shares its parent\'s fate')
      t.same(r.written, [], 'no stray top-level sub-agent')
      t.same(await contents(h, failed), [], 'nothing in the store')
      t.equal((await write(h, failed, full)).error, null, 'a complete run afterwards writes both')
      t.same(await contents(h, failed), expected)
    })
  }
})
