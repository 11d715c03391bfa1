// #11 fault suite, readers: seeded mutations of real session files (every
// line-based reader, plain and zstd) read through the library and written
// into a real sink. `npm run fuzz` runs the same campaign with many more runs.
import t from 'tap'
// @ts-expect-error the campaign is plain JS shared with fuzz/run.mjs
import { campaign } from '../../fuzz/campaign.mjs'

type Totals = Record<'inputs' | 'crashes' | 'hangs' | 'lost' | 'changed' | 'partial', number>

t.test('damaged sessions: no crash, no hang, nothing of the untouched prefix lost, no source changed, nothing partial left', async (t) => {
  const { totals, failures } = (await campaign({ runs: 10, seed: 11 })) as { totals: Totals; failures: Array<{ target: string; mutation: unknown; notes: string[] }> }
  for (const f of failures.slice(0, 5)) t.comment(`${f.target} ${JSON.stringify(f.mutation)}: ${f.notes.join(' | ').slice(0, 800)}`)
  t.ok(totals.inputs >= 30, `${totals.inputs} damaged inputs`)
  t.same({ ...totals, inputs: 0 }, { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0 })
})
