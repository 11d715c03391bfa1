// One 64 MB line (issue #49): a Codex rollout whose one record is 64 MB, converted to Claude Code. Target:
// peak RSS ≤ 3× the line (a value that only passes through should stay bytes, lib/io/json-bytes.ts). No baseline
// loop: split2 is quadratic on one huge line (bench/workloads/codex.mjs).
import { rmSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'huge-line'

export default async function (b) {
  const size = b.quick ? '16M' : '64M'
  const home = await b.gen(['--harness', 'codex', '--big', size, '--line-size', size])
  const file = b.findFiles(home, /\.jsonl$/)[0]
  const out = join(b.outDir, `huge-line-${size}`)
  const clean = () => rmSync(out, { recursive: true, force: true })
  const r = await b.ferry(`codex one ${size} line → claude-code`, ['--home', home, 'convert', file, '--to', 'claude-code', '--out', out], { bytes: b.size(file), against: 'no baseline', before: clean })
  clean()
  b.ceiling(`codex one ${size} line → claude-code: peak RSS / line size`, (r.rssKiB * 1024) / b.size(file), 'peak RSS vs the size of the line (target ≤ 3)')
}
