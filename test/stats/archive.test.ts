/**
 * `ferry stats --archive` gives the numbers the live stores give: the stores of stores.ts archived
 * with `ferry archive`, then counted from the archive, per session (the finest grouping) and per day.
 */
import t from 'tap'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, tempDir } from '../kit.js'
import { EXPECTED, IDS, usageStores } from './stores.js'

const TOKENS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const
const pick = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]))
const home = tempDir(t, 'ferry-stats-archive-')
usageStores(home)
const env = { TZ: 'UTC' }

t.test('the archive gives the same numbers as the stores', async (t) => {
  const db = join(home, 'archive.db')
  const a = await ferry(['--home', home, 'archive', '--db', db, '--json'], { env })
  t.equal(a.code, 0, a.stderr)
  // Per session (the finest grouping: the others are sums of it) and per day.
  for (const by of ['session', 'day']) {
    const live = JSON.parse((await ferry(['stats', '--home', home, '--by', by, '--json'], { env })).stdout)
    const arch = await ferry(['stats', '--archive', '--db', db, '--by', by, '--json'], { env })
    t.equal(arch.code, 0, arch.stderr)
    t.same(JSON.parse(arch.stdout), live, `--by ${by}`)
  }
  const codex = await ferry(['stats', '--archive', '--db', db, '--harness', 'codex', '--json'], { env })
  t.same(pick(JSON.parse(codex.stdout).totals, TOKENS), EXPECTED.codex, '--harness on the archive')

  // The agent deletes a session: the archive still counts it.
  rmSync(join(home, '.claude', 'projects', '-home-dev-blog', `${IDS.blog}.jsonl`))
  const after = await ferry(['stats', '--archive', '--db', db, '--by', 'session', '--harness', 'claude-code', '--json'], { env })
  const gone = JSON.parse(after.stdout).rows.find((r: Record<string, unknown>) => r.session === `claude-code:${IDS.blog}`)
  t.same(pick(gone, ['input_tokens', 'output_tokens', 'cache_write_tokens']), { input_tokens: 20, output_tokens: 900, cache_write_tokens: 5000 }, 'a session gone from its store is counted from the archive')
})
