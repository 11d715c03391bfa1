// Claude Code: one big generated transcript (bench/gen.mjs --harness claude; 1 GiB,
// 64 MiB with --quick), next to the baseline loop on the same file:
//   - `cat --no-native`: the two-pass source alone (uuid index, then the active
//     branch with split assistant lines merged), serialised as the interchange stream;
//   - `convert --to codex`: the cross-harness path (speed and peak RSS guarded);
//   - `convert --to claude-code`: read + write back, same harness (native lines
//     passed through: the output is byte-identical);
//   - `write --to claude-code` from the interchange stream: the sink writing
//     every line from modelled fields (what a conversion from another harness does).
import { spawnSync } from 'node:child_process'
import { closeSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'claude-code'

export default async function (b) {
  const size = b.quick ? '64M' : '1G'
  const home = await b.gen(['--harness', 'claude', '--big', size])
  const file = b.findFiles(join(home, '.claude', 'projects'), /\.jsonl$/)[0]
  const bytes = b.size(file)
  await b.baseline(`claude-code ${size}`, file)
  const cat = await b.ferry(`claude-code ${size} → ferry cat --no-native`, ['--home', home, 'cat', file, '--no-native'], { bytes })
  b.ratio(`claude-code ${size} → ferry cat --no-native`, cat.vsBaseline, 'MB/s vs the loop on the same file')
  const out = join(b.outDir, 'claude-code-out')
  const clean = () => rmSync(out, { recursive: true, force: true })
  const cx = await b.ferry(`claude-code ${size} → codex`, ['--home', home, 'convert', file, '--to', 'codex', '--out', out], { bytes, before: clean })
  b.ratio(`claude-code ${size} → codex`, cx.vsBaseline, 'MB/s vs the loop on the same file', { rss: cx.rssVsBaseline })
  clean()
  await b.ferry(`claude-code ${size} → convert --to claude-code (native)`, ['--home', home, 'convert', file, '--to', 'claude-code', '--out', out], { bytes, before: clean })
  clean()
  const stream = join(b.outDir, `claude-code-${size}.ferry.jsonl`)
  const fd = openSync(stream, 'w')
  const r = spawnSync(process.execPath, [join(b.root, 'bin', 'ferry.js'), '--home', home, 'cat', file, '--no-native'], { stdio: ['ignore', fd, 'pipe'] })
  closeSync(fd)
  if (r.status !== 0) throw new Error(`ferry cat failed: ${r.stderr}`)
  await b.ferry(`interchange → write --to claude-code (modelled)`, ['write', '--to', 'claude-code', '--out', out], { bytes: b.size(stream), stdinFile: stream, before: clean })
  clean()
  rmSync(stream, { force: true })
}
