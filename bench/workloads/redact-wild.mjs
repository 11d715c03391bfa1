/**
 * Issue 48: redaction of credentials as they appear in real transcripts, on
 * the HELD-OUT split of the issue-48 corpus (test/redact/corpus/wild.mjs,
 * seed WILD_HELD_OUT_SEED; its generator imports no rule): tokens in URL
 * paths, `curl -u` and hand-built `user:secret` pairs, prose cues, provider
 * tokens named only by a nearby provider, generic assignments under unlisted
 * names, each at JSON escaping depths 0–3, with look-alikes in the same places.
 *
 * - `ferry redact --text` over >= 50 MB of it: recall per class, kind,
 *   context and depth; look-alikes kept per kind; MB/s.
 * - the oracle (bench/redact-oracle.mjs: a redactor told the planted values)
 *   on the same file, and ferry's speed as a ratio of the oracle's.
 * Targets: recall >= 0.995 per class, look-alikes kept >= 0.995, >= 0.9× the oracle.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const name = 'redact-wild'

const pct = (x) => `${(x * 100).toFixed(2)}%`
const table = (m) => Object.entries(m).sort().map(([k, e]) => `${k} ${pct(e.ok / e.n)} (${e.ok}/${e.n})`).join(', ')

export default async function (b) {
  const { generateWild, scoreWild, WILD_HELD_OUT_SEED, WILD_KINDS, WILD_LOOKALIKE_KINDS } = await import(pathToFileURL(join(b.root, 'test', 'redact', 'corpus', 'wild.mjs')).href)
  const SEPARATOR = '\n==== ferry corpus snippet ====\n'
  // About 640 bytes a snippet: 80,000 snippets are >= 50 MB.
  const n = b.quick ? 8_000 : 80_000
  const snips = generateWild(n, WILD_HELD_OUT_SEED)
  const file = join(b.outDir, `redact-wild-heldout-${n}.txt`)
  const values = join(b.outDir, `redact-wild-heldout-${n}.values.jsonl`)
  if (!existsSync(file)) writeFileSync(file, snips.map((s) => s.text).join(SEPARATOR))
  if (!existsSync(values)) writeFileSync(values, snips.map((s) => JSON.stringify(s.secrets.map((x) => x.value))).join('\n') + '\n')
  const bytes = b.size(file)
  const oracle = await b.script(`oracle (knows the planted values), ${(bytes / 1e6).toFixed(0)} MB`, join(b.root, 'bench', 'redact-oracle.mjs'), [values], { bytes, stdinFile: file, capture: true })
  const run = await b.ferry(`ferry redact --text, issue-48 held-out corpus (${(bytes / 1e6).toFixed(0)} MB)`, ['redact', '--text'], { bytes, stdinFile: file, capture: true })
  const outs = run.stdout.split(SEPARATOR)
  if (outs.length !== snips.length) throw new Error(`redact --text returned ${outs.length} snippets for ${snips.length}`)
  const s = scoreWild(snips, outs)
  b.report(`held-out recall (${WILD_KINDS.length} kinds, ${s.secrets} secrets)`, `${pct(s.recall)} (target 99.5% per class)`)
  b.report('  by class', table(s.byClass))
  b.report('  by kind', table(s.byKind))
  b.report('  by context', table(s.byContext))
  b.report('  by escaping depth', table(s.byDepth))
  b.report(`held-out look-alikes kept (${WILD_LOOKALIKE_KINDS.length} kinds, ${s.lookalikes})`, `${pct(s.keptRate)} (target 99.5%): ${table(s.byLookalike)}`)
  b.report('ferry redact --text vs the oracle', `${(run.mbs / oracle.mbs).toFixed(2)}× its MB/s (${run.mbs.toFixed(1)} against ${oracle.mbs.toFixed(1)}; target >= 0.9×)`)
}
