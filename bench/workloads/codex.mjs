/**
 * Codex rollouts: one big rollout (plain and .jsonl.zst) read into the
 * interchange stream and converted to Claude Code, against the baseline loop
 * on the same (plain) file. Targets (issue 4): >= 80% of the loop's MB/s
 * plain, >= 60% through zstd, peak RSS <= 1.5x the loop's and flat with size.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'codex'

export default async function (b) {
  const sizes = b.quick ? ['10M'] : ['100M', '1G']
  for (const size of sizes) {
    const home = await b.gen(['--harness', 'codex', '--big', size, '--zstd'])
    const file = b.findFiles(home, /\.jsonl$/)[0]
    const zst = `${file}.zst`
    const bytes = b.size(file)
    const label = `codex ${size}`
    await b.baseline(label, file)
    await b.ferry(`${label} → stream (cat --no-native)`, ['--home', home, 'cat', file, '--no-native'], { bytes, against: label })
    await b.ferry(`${label}.zst → stream`, ['--home', home, 'cat', zst, '--no-native'], { bytes, against: label, note: 'target 60%' })
    const out = join(b.outDir, `codex-to-claude-${size}`)
    const clean = () => rmSync(out, { recursive: true, force: true })
    const plain = await b.ferry(`${label} → claude-code`, ['--home', home, 'convert', file, '--to', 'claude-code', '--out', out], { bytes, against: label, before: clean })
    b.ratio(`${label} → claude-code`, plain.vsBaseline, 'MB/s vs the loop on the plain file')
    // The startup flags reached the process that did the work (lib/cli/relaunch.ts: two 8 MB semi-spaces).
    b.ceiling(`${label} → claude-code: young generation / 16 MiB`, plain.youngKiB / (16 * 1024), "the command's young generation at its largest vs the 16 MiB its startup flag allows")
    clean()
    const z = await b.ferry(`${label}.zst → claude-code`, ['--home', home, 'convert', zst, '--to', 'claude-code', '--out', out], { bytes, against: label, before: clean })
    b.ratio(`${label}.zst → claude-code`, z.vsBaseline, 'MB/s (uncompressed) vs the loop on the plain file', { rss: z.rssVsBaseline })
    clean()
  }
  // One pathological line: linear cost and bounded memory, not a crash.
  const bigLine = b.quick ? '10M' : '100M'
  const home = await b.gen(['--harness', 'codex', '--big', bigLine, '--line-size', bigLine])
  const file = b.findFiles(home, /\.jsonl$/)[0]
  if (!b.quick) b.report(`codex one ${bigLine} line: baseline loop`, 'skipped: split2 is quadratic here (~189 s, 2 GB per notes/node20.md)')
  const one = await b.ferry(`codex one ${bigLine} line → stream`, ['--home', home, 'cat', file, '--no-native'], { bytes: b.size(file), against: 'no baseline' })
  b.ceiling(`codex one ${bigLine} line: peak RSS / line size`, (one.rssKiB * 1024) / b.size(file), 'peak RSS vs the size of the line')
}
