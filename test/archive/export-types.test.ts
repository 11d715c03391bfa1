/**
 * `ferry export --format parquet` as DuckDB sees it (#46): times are
 * TIMESTAMP columns, `gone_from_source` a BOOLEAN, and the README's DuckDB
 * examples, run as printed (the path swapped for the export's), select what
 * their comments say: the second gives the prompts people typed, never tool
 * results or context the agent injected.
 */
import t from 'tap'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { ferry, FIXTURE, kit, ROOT, tempDir } from '../kit.js'

const CC = kit('claude-code')

/** The SQL statements of the README's DuckDB block, in order. */
function readmeQueries(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const block = /```sql\n(-- DuckDB[\s\S]*?)```/.exec(readme)?.[1]
  if (!block) throw new Error('README: no ```sql block starting with -- DuckDB')
  return block
    .split('\n')
    .filter((l) => !l.startsWith('--'))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
}

t.test('Parquet column types in DuckDB, and the README examples as printed', async (t) => {
  const home = CC.home(t)
  const gone = join(home, '.claude/projects/-home-dev-demo-app', `${FIXTURE.claudeCode.damaged}.jsonl`)
  const first = await ferry(['--home', home, 'archive', '--json'])
  t.equal(first.code, 1, 'the torn-line session is reported (exit 1) and the rest archived')
  rmSync(gone)
  const second = await ferry(['--home', home, 'archive', '--json'])
  t.equal(second.code, 0, second.stderr)
  const out = tempDir(t)
  const e = await ferry(['--home', home, 'export', '--format', 'parquet', '--out', out, '--json'])
  t.equal(e.code, 0, e.stderr)

  const duck = await DuckDBInstance.create(':memory:')
  t.teardown(() => duck.closeSync?.())
  const c = await duck.connect()
  const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS()
  const rec = `read_parquet('${out}/records/**/*.parquet', hive_partitioning = true)`
  const ses = `read_parquet('${out}/sessions/**/*.parquet', hive_partitioning = true)`
  const types = async (from: string) => Object.fromEntries((await rows(`DESCRIBE SELECT * FROM ${from}`)).map((r) => [r.column_name, r.column_type]))
  const rt = await types(rec)
  const st = await types(ses)
  t.match(rt.ts, /^TIMESTAMP/, `records.ts is ${rt.ts}`)
  t.match(st.created_at, /^TIMESTAMP/, `sessions.created_at is ${st.created_at}`)
  t.match(st.updated_at, /^TIMESTAMP/, `sessions.updated_at is ${st.updated_at}`)
  t.equal(st.gone_from_source, 'BOOLEAN', 'sessions.gone_from_source is BOOLEAN')
  t.equal(rt.active, 'BOOLEAN')

  const feature = `claude-code:${FIXTURE.claudeCode.feature}`
  const [s] = await rows(`SELECT strftime(created_at, '%Y-%m-%dT%H:%M:%S.%g') AS c, (updated_at > created_at) AS later FROM ${ses} WHERE sid = '${feature}'`)
  t.match(s?.c, /^2026-11-\d\dT\d\d:\d\d:\d\d\.\d{3}$/, `created_at is the session's instant (${String(s?.c)})`)
  t.equal(s?.later, true, 'timestamps compare as times')
  const byGone = await rows(`SELECT sid, gone_from_source AS g FROM ${ses} ORDER BY sid`)
  t.same(byGone.filter((r) => r.g === true).map((r) => r.sid), [`claude-code:${FIXTURE.claudeCode.damaged}`], 'only the deleted session is gone from source')
  t.ok(byGone.every((r) => typeof r.g === 'boolean'), 'never null')
  const [order] = await rows(`SELECT count(*)::INTEGER AS n, count(ts)::INTEGER AS with_ts, (max(ts) > min(ts)) AS ordered FROM ${rec} WHERE kind = 'message'`)
  t.equal(order?.with_ts, order?.n, 'every message of the fixture has its time')
  t.equal(order?.ordered, true)

  const [perMonth, prompts] = readmeQueries().map((q) => q.replaceAll('/srv/team/ferry', out))
  t.ok(perMonth && prompts, 'the README has two DuckDB queries')
  const months = await rows(perMonth!)
  t.ok(months.length > 0 && months.every((m) => m.harness === 'claude-code'), 'the first: counts per harness and month')
  const got = await rows(prompts!)
  t.comment(got.map((r) => `${String(r.title)} | ${(r.ts as Date).toISOString()} | ${String(r.prompt).slice(0, 60)}`).join('\n'))
  const texts = got.map((r) => String(r.prompt))
  for (const p of ['The build is red.', 'Instead, just tell me the fix.', 'So what is the fix?', 'Is jest installed in demo-app?']) t.ok(texts.some((x) => x.startsWith(p)), `a prompt the user typed: ${p}`)
  t.notOk(texts.some((x) => /<local-command-caveat>|<system-reminder>|continued from a previous conversation/.test(x)), 'no injected context')
  t.notOk(got.some((r) => r.prompt === null), 'no tool result (no text block)')
  const ts = got.map((r) => (r.ts as Date).getTime())
  t.same(ts, [...ts].sort((a, b) => b - a), 'latest first')
})
