// #47: one seeded run of each surface scenario this round added to `npm run fuzz` (fuzz/surfaces.mjs):
// Cursor and ZCode lines and rows damaged, Cursor's editor database behind a junk -wal, `continue`
// into read-only, full, symlinked and occupied targets, hostile sessions through `render` in
// Chromium and `show` on a terminal. The campaign itself runs many more (`npm run fuzz`).
import t from 'tap'
// @ts-expect-error the campaign is plain JS shared with fuzz/run.mjs
import { surfaces } from '../../fuzz/surfaces.mjs'

type Counts = Record<'inputs' | 'crashes' | 'hangs' | 'lost' | 'changed' | 'partial' | 'escapes', number>

t.test('each new surface scenario, once: nothing crashes, hangs, is lost, changed, left partial or escapes', async (t) => {
  const only = ['cursor and zcode', 'junk state.vscdb', 'continue:', 'render and show']
  const { totals, failures, perScenario } = (await surfaces({ runs: 1, seed: 47, only })) as {
    totals: Counts
    failures: Array<{ target: string; notes: string[] }>
    perScenario: Record<string, Counts>
  }
  for (const f of failures) t.comment(`${f.target}: ${f.notes.join(' | ').slice(0, 800)}`)
  t.equal(Object.keys(perScenario).length, only.length, Object.keys(perScenario).join(', '))
  t.same({ ...totals, inputs: 0 }, { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0, escapes: 0 })
})
