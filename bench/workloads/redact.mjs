/**
 * Redaction quality and speed (issue 7). A generated corpus of transcript-
 * shaped snippets with planted FAKE secrets of 59 kinds (made at run time by
 * bench/redact-corpus.mjs, never stored) and hard look-alike negatives:
 * recall (caught = no 8-character run of the secret survives), negatives
 * untouched, and MB/s of the engine; then the cost of `--redact` on the
 * codex → claude-code conversion. Targets: recall >= 99%, negatives >= 99.5%,
 * >= 20 MB/s.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const name = 'redact'

export default async function (b) {
  const dist = (p) => pathToFileURL(join(b.root, 'dist', p)).href
  const { Redactor } = await import(dist('lib/redact/engine.js'))
  const { corpus, score, SECRET_KIND_COUNT } = await import('../redact-corpus.mjs')

  const n = b.quick ? SECRET_KIND_COUNT * 20 : SECRET_KIND_COUNT * 200
  const snips = corpus(n, 2026)
  const r = new Redactor()
  const s = score(snips, snips.map((x) => r.redact(x.text)))
  const recall = s.caught / s.secrets
  const kept = s.kept / s.negatives
  b.report(`redact recall (${SECRET_KIND_COUNT} kinds, ${s.secrets} secrets)`, `${(recall * 100).toFixed(2)}% (target 99%)`, { missed: s.missedKinds })
  b.report(`redact negatives untouched (${s.negatives})`, `${(kept * 100).toFixed(2)}% (target 99.5%)`, { touched: s.touchedKinds })

  // Speed on the same text, one string per snippet (a record field or a native line each).
  const lines = snips.map((x) => x.text)
  let bytes = 0
  for (const l of lines) bytes += Buffer.byteLength(l)
  const rounds = Math.max(1, Math.ceil((b.quick ? 5e6 : 50e6) / bytes))
  const engine = new Redactor()
  const t0 = performance.now()
  for (let k = 0; k < rounds; k++) for (const l of lines) engine.redact(l)
  const secs = (performance.now() - t0) / 1000
  b.report('redact engine MB/s (every snippet holds a secret)', `${((bytes * rounds) / 1e6 / secs).toFixed(1)} MB/s (target 20)`)

  // The cost of --redact on a conversion.
  const size = b.quick ? '10M' : '1G'
  const home = await b.gen(['--harness', 'codex', '--big', size])
  const file = b.findFiles(home, /\.jsonl$/)[0]
  const fbytes = b.size(file)
  await b.baseline(`codex ${size} (redact)`, file)
  const out = join(b.outDir, `redact-codex-${size}`)
  rmSync(out, { recursive: true, force: true })
  await b.ferry(`codex ${size} → claude-code`, ['--home', home, 'convert', file, '--to', 'claude-code', '--out', out], { bytes: fbytes })
  rmSync(out, { recursive: true, force: true })
  const red = await b.ferry(`codex ${size} → claude-code --redact`, ['--home', home, 'convert', file, '--to', 'claude-code', '--out', out, '--redact'], { bytes: fbytes })
  b.ratio(`codex ${size} → claude-code --redact`, red.vsBaseline, 'MB/s vs the loop on the same file', { rss: red.rssVsBaseline })
  rmSync(out, { recursive: true, force: true })
}
