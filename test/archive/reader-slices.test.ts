// Reader threads are handed their sessions a slice at a time (issue #49): all of
// them in a reader's start-up data put every session's discovery info in its
// capped heap at once, and `ferry archive` of 100,000 generated sessions failed
// every session ("Worker terminated due to reaching memory limit"). Here 4,000
// sessions whose info is 40 KB each (160 MB, 80 MB a reader, past the 64 MB
// cap) are read by two readers; only the first few are taken, which is what
// start-up decides.
import t from 'tap'
import { join } from 'node:path'
import type { ReadItem, SessionEvent } from '../../lib/archive/sync.js'
import { fileTimeout, ROOT } from '../kit.js'
import { CLAUDE, PROJECT, makeHome } from './helpers.js'

// The compiled modules: a reader thread starts on its module's file, which must be JavaScript.
const { createContext } = (await import(join(ROOT, 'dist/lib/context.js'))) as typeof import('../../lib/context.js')
const { archiveReaders } = (await import(join(ROOT, 'dist/lib/archive/readers.js'))) as typeof import('../../lib/archive/readers.js')
const { getHarness } = (await import(join(ROOT, 'dist/lib/harness/registry.js'))) as typeof import('../../lib/harness/registry.js')

fileTimeout(t, 3 * 60_000)

t.test('two readers given 160 MB of session info read their sessions under the 64 MB cap', async (t) => {
  const home = makeHome(t)
  const ctx = createContext({ home })
  const path = join(home, PROJECT, `${CLAUDE}.jsonl`)
  let info: ReadItem['session'] | undefined
  for await (const s of getHarness('claude-code').discover!(ctx, {})) if (s.path === path) info = s as ReadItem['session']
  t.ok(info, 'the fixture session discovered')
  // One string in this thread; each reader would get its own copy of every one.
  const title = 't'.repeat(40_000)
  const items: ReadItem[] = Array.from({ length: 4000 }, () => ({ src: 'claude-code', session: { ...info!, title }, bytes: 1 }))
  const ahead = archiveReaders(2)(ctx, items, 1e9)
  t.ok(ahead, 'readers started')
  try {
    t.equal(ahead!.threads, 2)
    for (let i = 0; i < 6; i++) {
      const evs: SessionEvent[] = []
      for await (const batch of ahead!.session(i)) evs.push(...batch)
      const header = evs.find((e) => 'kind' in e && e.kind === 'session') as { sid?: string } | undefined
      t.equal(header?.sid, info!.sid, `session ${i} read by reader ${i % 2}`)
      t.ok(evs.filter((e) => 'data' in e).length > 5, `session ${i}: its records' rows`)
    }
  } finally {
    await ahead!.close()
  }
})
