// #47 item 12: two Claude Code writers at once. Both open the parent session before either commits it;
// the one that commits second finds it there (exists). Its sub-agent must go under the stored parent
// (and be found there too), never beside it as a second, top-level session. Lockstep writes into two
// sinks make the race deterministic (main duplicated the sub-agent in 1 of 3 trials of real processes).
import t from 'tap'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { Writable } from 'node:stream'
import { collect, context, open, sink } from '../../lib/index.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import type { FerryRecord } from '../../lib/model.js'
import { FIXTURES, tempDir } from '../kit.js'

const SOURCE_HOME = join(FIXTURES, 'claude-code', 'home')
const PARENT = 'claude-code:3f1c9a2e-5b7d-4c1e-9a3f-000000000001'
const quiet = (home: string) => context({ home, diagnostics: new Diagnostics({ stream: null }) })

function sessionFiles(home: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    if (!existsSync(d)) return
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else if (n.endsWith('.jsonl')) out.push(relative(home, p))
    }
  }
  walk(home)
  return out.sort()
}

const put = (w: Writable, rec: FerryRecord) => new Promise<void>((res) => (w.write(rec, () => res()) ? undefined : undefined))
const done = (w: Writable) =>
  new Promise<unknown>((res) => {
    w.on('error', (e) => res(e))
    w.on('finish', () => res(null))
    w.end()
  })

t.test('item 12: two writers at once leave one parent with its sub-agent under it', async (t) => {
  const recs = await collect(await open(PARENT, { ctx: quiet(SOURCE_HOME) }))
  t.ok(recs.some((r) => r.kind === 'session' && r.parent?.kind === 'subagent'), 'the source has a sub-agent')
  const one = join(tempDir(t), 'home')
  const solo = sink('claude-code', { ctx: quiet(one) })
  for (const r of recs) await put(solo, r)
  t.equal(await done(solo), null)
  const expected = sessionFiles(one)
  t.equal(expected.filter((f) => !f.includes('/subagents/')).length, 1, `one run: one top-level session (${expected.join(', ')})`)

  const home = join(tempDir(t), 'home')
  const a = sink('claude-code', { ctx: quiet(home) })
  const b = sink('claude-code', { ctx: quiet(home) })
  a.on('error', () => {})
  b.on('error', () => {})
  for (const r of recs) {
    await put(a, r)
    await put(b, r)
  }
  const [ea, eb] = await Promise.all([done(a), done(b)])
  t.ok(ea === null || eb === null, 'one of them wrote the sessions')
  t.same(sessionFiles(home), expected, 'the same files as one run: no sub-agent as a second top-level session')
})
