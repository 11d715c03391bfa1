// `ferry stats` (issue #45) over the 10,000-session store of sessions.mjs (1,000 with --quick;
// the generator gives every assistant line a model and usage, several lines sharing one message id):
//   - `ferry ls` (discovery cache warm), the time stats has to add its one pass to;
//   - the baseline loop (split2 + JSON.parse + JSON.stringify) over the same files: one pass over the lines;
//   - `ferry stats` (by day) and `ferry stats --by session --json`: seconds, CPU and peak RSS;
//   - ccusage (the dev dependency, --offline) over the same HOME, for reference (its wall seconds).
// Target (the issue): about the time of `ls` plus one pass over the usage lines.
import { join } from 'node:path'
import { mkdirSync, writeFileSync } from 'node:fs'

export const name = 'stats'

export default async function (b) {
  const n = b.quick ? 1000 : 10000
  // The same arguments as sessions.mjs: one generated store for both.
  const home = await b.gen(['--harness', 'claude', '--sessions', String(n), '--lines-per-session', '20'])
  const files = b.findFiles(join(home, '.claude', 'projects'), /\.jsonl$/)
  const bytes = files.reduce((s, f) => s + b.size(f), 0)
  const label = `${files.length} Claude Code sessions, ${(bytes / 1e6).toFixed(0)} MB`
  mkdirSync(join(home, '.cache'), { recursive: true })
  // A first listing fills the discovery cache, as on any machine where ferry ran before.
  await b.ferry(`ferry ls (filling the discovery cache): ${label}`, ['--home', home, 'ls'], { note: 'not compared' })
  const ls = await b.ferry(`ferry ls: ${label}`, ['--home', home, 'ls'], { note: 'discovery cache warm' })
  const list = join(b.outDir, 'stats-files.txt')
  writeFileSync(list, files.join('\n') + '\n')
  const loop = await b.script(`baseline loop over the files: ${label}`, join(b.root, 'bench', 'baseline.mjs'), ['--list', list], { bytes })
  const day = await b.ferry(`ferry stats: ${label}`, ['--home', home, 'stats'], { bytes })
  const session = await b.ferry(`ferry stats --by session --json: ${label}`, ['--home', home, 'stats', '--by', 'session', '--json'], { bytes })
  const target = ls.seconds + loop.seconds
  b.report('  stats vs ls + one pass', `${day.seconds.toFixed(2)} s (by session ${session.seconds.toFixed(2)} s) against ${ls.seconds.toFixed(2)} s + ${loop.seconds.toFixed(2)} s = ${target.toFixed(2)} s; peak RSS ${(day.rssKiB / 1024).toFixed(0)} MiB (ls ${(ls.rssKiB / 1024).toFixed(0)} MiB)`)
  b.ratio('stats: ferry stats vs ls + the loop', target / day.seconds, 'target seconds (ls + one pass over the files) / seconds taken')
  await b.script(`ccusage daily --offline (reference): ${label}`, join(b.root, 'node_modules', 'ccusage', 'src', 'cli.js'), ['daily', '--offline', '--json'], { env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') }, note: 'native binary: RSS is its launcher\'s' })
}
