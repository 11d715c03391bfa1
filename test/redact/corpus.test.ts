// The evaluation corpus (test/redact/corpus/) on its dev split: the quality
// bar holds there, the generator is deterministic per seed, covers every kind
// and escaping depth, and the held-out seed (read only by `npm run bench`)
// is not a dev seed.
import t from 'tap'
import { Redactor } from '../../lib/redact/engine.js'
import { DEV_SEEDS, HELD_OUT_SEED, LOOKALIKE_KINDS, SECRET_KINDS, generate, score, weakest } from './corpus/index.mjs'

t.test('dev split: recall >= 0.99, look-alikes kept >= 0.995', async (t) => {
  t.ok(SECRET_KINDS.length >= 75, `${SECRET_KINDS.length} secret kinds`)
  t.ok(LOOKALIKE_KINDS.length >= 24, `${LOOKALIKE_KINDS.length} look-alike kinds`)
  const snips = generate(SECRET_KINDS.length * 6, DEV_SEEDS[0]!)
  const red = new Redactor()
  const s = score(snips, snips.map((x: { text: string }) => red.redact(x.text)))
  t.ok(s.recall >= 0.99, `recall ${s.caught}/${s.secrets}; weakest kinds ${weakest(s.byKind).join(', ')}; contexts ${weakest(s.byContext).join(', ')}`)
  t.ok(s.keptRate >= 0.995, `kept ${s.kept}/${s.lookalikes}; ${weakest(s.byLookalike).join(', ')}`)
  t.same(Object.keys(s.byDepth).sort(), ['0', '1', '2', '3'], 'every escaping depth occurs')
  t.equal(Object.keys(s.byKind).length, SECRET_KINDS.length, 'every kind planted')
  t.ok(snips.filter((x: { depth: number }) => x.depth > 0).length > snips.length / 2, 'over half JSON-escaped')
})

t.test('the generator is deterministic per seed; the held-out seed is not a dev seed', async (t) => {
  const a = generate(50, 99).map((x: { text: string }) => x.text)
  t.same(generate(50, 99).map((x: { text: string }) => x.text), a)
  t.not(generate(50, 98)[0].text, a[0])
  t.notOk(DEV_SEEDS.includes(HELD_OUT_SEED))
})
