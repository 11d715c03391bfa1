/**
 * Redaction quality and speed (issues 7 and 19), on the HELD-OUT split of the
 * evaluation corpus (test/redact/corpus/, seed HELD_OUT_SEED: rules are never
 * tuned on it; generated here, never stored): transcript-shaped snippets with
 * planted fake secrets of every kind and look-alikes, over half of them
 * JSON-escaped (depths 1–3).
 *
 * - `ferry redact --text` over >= 50 MB of it, one process: recall (caught =
 *   no 8-character run of the secret survives), look-alikes kept, MB/s, and
 *   recall per kind / context / depth where below 100%.
 * - the engine alone (one string per snippet, as record fields are).
 * - the cost of `--redact` on the codex → claude-code conversion (1 GiB).
 * Targets: recall >= 0.99, look-alikes kept >= 0.995, >= 20 MB/s, --redact <= +25%.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const name = 'redact'

const pct = (x) => `${(x * 100).toFixed(2)}%`

export default async function (b) {
  const dist = (p) => pathToFileURL(join(b.root, 'dist', p)).href
  const { Redactor } = await import(dist('lib/redact/engine.js'))
  const corpusUrl = pathToFileURL(join(b.root, 'test', 'redact', 'corpus', 'index.mjs')).href
  const { generate, score, weakest, HELD_OUT_SEED, SEPARATOR, SECRET_KINDS, LOOKALIKE_KINDS } = await import(corpusUrl)

  // About 1.1 KB a snippet: 50,000 snippets are >= 50 MB.
  const n = b.quick ? 5_000 : 50_000
  const snips = generate(n, HELD_OUT_SEED)
  const file = join(b.outDir, `redact-heldout-${n}.txt`)
  if (!existsSync(file)) writeFileSync(file, snips.map((s) => s.text).join(SEPARATOR))
  const bytes = b.size(file)
  const run = await b.ferry(`ferry redact --text, held-out corpus (${(bytes / 1e6).toFixed(0)} MB)`, ['redact', '--text'], { bytes, stdinFile: file, capture: true, note: '(target >= 20 MB/s)' })
  const outs = run.stdout.split(SEPARATOR)
  if (outs.length !== snips.length) throw new Error(`redact --text returned ${outs.length} snippets for ${snips.length}`)
  const s = score(snips, outs)
  b.report(`held-out recall (${SECRET_KINDS.length} kinds, ${s.secrets} secrets)`, `${pct(s.recall)} (target 99%)`)
  b.report(`held-out look-alikes kept (${LOOKALIKE_KINDS.length} kinds, ${s.lookalikes})`, `${pct(s.keptRate)} (target 99.5%)`)
  b.report('  recall by escaping depth', Object.entries(s.byDepth).map(([d, e]) => `${d}: ${pct(e.ok / e.n)}`).join(', '))
  b.report('  kinds below 100%', weakest(s.byKind, 30).join(', ') || 'none')
  b.report('  contexts below 100%', weakest(s.byContext, 30).join(', ') || 'none')
  b.report('  look-alikes touched', weakest(s.byLookalike, 30).join(', ') || 'none')

  // The engine alone, one string per snippet (a record field or a native line each).
  const engine = new Redactor()
  let sum = 0
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const sn of snips) sum += engine.redact(sn.text).length
  const secs = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(c0)
  b.report('redact engine, one string per snippet', `${(bytes / 1e6 / secs).toFixed(1)} MB/s, ${(bytes / 1e6 / ((cpu.user + cpu.system) / 1e6)).toFixed(1)} MB per CPU-s`, { checksum: sum })

  // The cost of --redact on a conversion.
  const size = b.quick ? '10M' : '1G'
  const home = await b.gen(['--harness', 'codex', '--big', size])
  const src = b.findFiles(home, /\.jsonl$/)[0]
  const fbytes = b.size(src)
  await b.baseline(`codex ${size} (redact)`, src)
  const out = join(b.outDir, `redact-codex-${size}`)
  const clean = () => rmSync(out, { recursive: true, force: true })
  const plain = await b.ferry(`codex ${size} → claude-code`, ['--home', home, 'convert', src, '--to', 'claude-code', '--out', out], { bytes: fbytes, before: clean })
  clean()
  const red = await b.ferry(`codex ${size} → claude-code --redact`, ['--home', home, 'convert', src, '--to', 'claude-code', '--out', out, '--redact'], { bytes: fbytes, before: clean })
  b.ratio(`codex ${size} → claude-code --redact`, red.vsBaseline, 'MB/s vs the loop on the same file', { rss: red.rssVsBaseline })
  clean()
  const cpuCost = plain.cpuSeconds && red.cpuSeconds ? `, +${((red.cpuSeconds / plain.cpuSeconds - 1) * 100).toFixed(0)}% CPU time` : ''
  b.report('--redact cost on the convert', `+${((red.seconds / plain.seconds - 1) * 100).toFixed(0)}% wall time${cpuCost} (target <= +25%)`)
}
