// The one sink policy, through the library entry: the Codex sink throws, SessionSink decides.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { concatSources, context, NotWrittenError, open, pipeline, sink } from '../../../lib/index.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { FIXTURE, kit, rollouts, tempDir } from '../../kit.js'

const { classic: CLASSIC_ID, codemode: CODEMODE_ID } = FIXTURE.codex
const cx = kit('codex')

t.test('an existing rollout without force: NotWrittenError (exists), file unchanged, the next session written', async (t) => {
  const home = cx.home(t, 'classic', 'codemode')
  const out = tempDir(t)
  const ctx = () => context({ home })

  // First copy the classic session into `out` (verbatim, it keeps its id and name).
  await pipeline(await open(`codex:${CLASSIC_ID}`, { ctx: ctx() }), sink('codex', { ctx: ctx(), out }))
  const [existing] = rollouts(out)
  const before = readFileSync(existing!, 'utf8')

  const c1 = ctx()
  const err = await pipeline(await open(`codex:${CLASSIC_ID}`, { ctx: c1 }), sink('codex', { ctx: c1, out })).then(
    () => null,
    (e: unknown) => e,
  )
  t.ok(err instanceof NotWrittenError, 'rejects with NotWrittenError')
  const nw = err as NotWrittenError
  t.equal(nw.failures.length, 1)
  t.equal(nw.failures[0]!.error.code, 'exists')
  t.equal(nw.failures[0]!.sid, `codex:${CLASSIC_ID}`)
  t.equal(readFileSync(existing!, 'utf8'), before, 'the existing rollout is unchanged')
  t.ok(c1.diagnostics.items.some((d) => d.code === 'exists' && d.source === 'codex'), 'reported once as a diagnostic')

  // Two sessions, the first exists: the second is still written.
  const c2 = ctx()
  const dest = sink('codex', { ctx: c2, out })
  const written: WrittenSession[] = []
  dest.on('written', (w: WrittenSession) => written.push(w))
  const both = concatSources([() => open(`codex:${CLASSIC_ID}`, { ctx: c2 }), () => open(`codex:${CODEMODE_ID}`, { ctx: c2 })])
  await t.rejects(pipeline(both, dest), { code: 'not-written', failures: [{ sid: `codex:${CLASSIC_ID}`, error: { code: 'exists' } }] })
  t.same(written.map((w) => w.id), [CODEMODE_ID], 'the second session is written')
  t.equal(rollouts(out).length, 2)
  t.equal(readFileSync(existing!, 'utf8'), before)

  // With force the first is replaced, and nothing fails.
  const c3 = ctx()
  await pipeline(await open(`codex:${CLASSIC_ID}`, { ctx: c3 }), sink('codex', { ctx: c3, out, force: true }))
  t.equal(readFileSync(existing!, 'utf8'), before, 'verbatim copy again')
})
