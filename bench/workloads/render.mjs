// Rendering: `render --format html` of the big generated Claude Code
// transcript (1 GiB, 64 MiB with --quick; redaction on, as by default), next
// to the baseline loop over the same file. The document goes to a file so
// its size is reported; peak RSS shows the renderer streams.
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'render'

export default async function (b) {
  const size = b.quick ? '64M' : '1G'
  const home = await b.gen(['--harness', 'claude', '--big', size])
  const file = b.findFiles(join(home, '.claude', 'projects'), /\.jsonl$/)[0]
  const bytes = b.size(file)
  await b.baseline(`claude-code ${size} (render)`, file)
  const out = join(b.outDir, 'render-out.html')
  const r = await b.ferry(`claude-code ${size} → render --format html`, ['--home', home, 'render', file, '--format', 'html', '--out', out], { bytes, before: () => rmSync(out, { force: true }) })
  b.report('  html document', `${(statSync(out).size / 1e6).toFixed(1)} MB written in ${r.seconds.toFixed(1)} s`)
  rmSync(out, { force: true })
  const md = join(b.outDir, 'render-out.md')
  await b.ferry(`claude-code ${size} → render --format md`, ['--home', home, 'render', file, '--format', 'md', '--out', md], { bytes, before: () => rmSync(md, { force: true }) })
  rmSync(md, { force: true })
}
