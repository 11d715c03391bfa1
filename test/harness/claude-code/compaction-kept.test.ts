// Claude Code compactions that keep part of the history (2.1.332 `/compact`:
// compactMetadata.preservedSegment {headUuid, anchorUuid, tailUuid} and/or
// preservedMessages {anchorUuid, uuids}). The client, on load, puts the kept
// entries after the summary (the anchor) and drops the rest before the
// boundary (claude-code.md §3); the reader emits the same order, with the
// dropped turns before the boundary, and the writer writes what the client
// reads back.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { collect, context, open, pipeline, sink } from '../../../lib/index.js'
import { tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder
import { claudeKept, MARK } from '../../../fixtures/fidelity/make-fixtures.mjs'

type Rec = Record<string, any>
const text = (r: Rec): string => (r.blocks ?? []).map((b: Rec) => b.text ?? '').join('\n')

/** The main-session messages and boundaries, as [kind, first marker key found] in order. */
function outline(recs: Rec[]): string[] {
  const keys = ['p1', 'a1', 'p2', 'a2', 'p4', 'a4'] as const
  const out: string[] = []
  for (const r of recs) {
    if (r.kind === 'boundary') out.push('boundary')
    else if (r.kind === 'message' && r.context_kind === 'summary') out.push('summary')
    else if (r.kind === 'message' && !r.context) {
      const k = keys.find((k) => text(r).includes(MARK[k]))
      if (k) out.push(k)
    }
  }
  return out
}

const KEPT = ['p1', 'a1', 'p2', 'boundary', 'summary', 'a2', 'p4', 'a4']

t.test('segment, list or both: the kept answer follows the summary, once', async (t) => {
  const home = tempDir(t)
  for (const [k, variant] of ['both', 'segment', 'list'].entries()) {
    const sid = claudeKept(home, variant, `5e1f0c2a-7d3b-4a6e-9f10-0000000000${k}${k}`)
    for (const native of [false, true]) {
      const recs = (await collect(await open(`claude-code:${sid}`, { ctx: context({ home }), native }))) as Rec[]
      t.same(outline(recs), KEPT, `${variant}, native ${native}`)
      const kept = recs.find((r) => r.kind === 'message' && text(r).includes(MARK.a2))!
      const summary = recs.find((r) => r.kind === 'message' && r.context_kind === 'summary')!
      t.equal(kept.parent, summary.id, `${variant}: the kept answer's parent is the summary, as the client relinks it`)
      const p4 = recs.find((r) => r.kind === 'message' && text(r).includes(MARK.p4))!
      t.ok(p4, `${variant}: the turn after`)
    }
  }
})

t.test('a list naming an entry that is not there: nothing is relinked (as in the client)', async (t) => {
  const home = tempDir(t)
  const sid = claudeKept(home, 'missing', '5e1f0c2a-7d3b-4a6e-9f10-000000000033')
  const recs = (await collect(await open(`claude-code:${sid}`, { ctx: context({ home }), native: false }))) as Rec[]
  t.same(outline(recs), ['p1', 'a1', 'p2', 'a2', 'boundary', 'summary', 'p4', 'a4'])
})

t.test('written back: the client reads the same order from what ferry writes', async (t) => {
  const home = tempDir(t)
  const sid = claudeKept(home, 'both', '5e1f0c2a-7d3b-4a6e-9f10-000000000044')
  for (const native of [true, false]) {
    const out = tempDir(t)
    const written: Rec[] = []
    const ctx = context({ home })
    const s = sink('claude-code', { ctx, out })
    s.on('written', (w: Rec) => written.push(w))
    await pipeline(await open(`claude-code:${sid}`, { ctx, native }), s)
    const lines = readFileSync(written[0]!.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const b = lines.findIndex((l) => l.subtype === 'compact_boundary')
    const a2 = lines.findIndex((l) => l.type === 'assistant' && JSON.stringify(l.message.content).includes(MARK.a2))
    t.ok(b >= 0 && a2 > b, `native ${native}: the kept answer is written after the boundary`)
    const cm = lines[b].compactMetadata
    if (native) t.ok(cm.preservedMessages, 'verbatim: the boundary still names what it kept (the kept lines are there, after it)')
    else t.notOk(cm.preservedSegment || cm.preservedMessages, 'modelled: a plain boundary, the kept answer an ordinary line after the summary')
    const back = (await collect(await open(written[0]!.path, { ctx: context({ home: tempDir(t) }), native: false }))) as Rec[]
    t.same(outline(back), KEPT, `native ${native}: read back in the same order`)
  }
})
