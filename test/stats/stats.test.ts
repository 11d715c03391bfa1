/**
 * `ferry stats` as a user runs it: the CLI as a child process on stores laid out as the agents
 * write them (test/stats/stores.ts: Claude Code's one entry per content block, a rewound answer,
 * a resumed copy, a sub-agent; Codex's repeated token_count; OpenCode's recorded cost), and on
 * the archive made from them.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, FIXTURES, ROOT, ferry, scaled, tempDir } from '../kit.js'
import { EXPECTED, IDS, usageStores } from './stores.js'

const TOKENS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const
const FIELDS = [...TOKENS, 'cost_usd'] as const

const home = tempDir(t, 'ferry-stats-')
usageStores(home)
const env = { TZ: 'UTC' }

async function stats(...args: string[]) {
  const r = await ferry(['stats', '--home', home, ...args], { env })
  const json = args.includes('--json') && r.stdout ? JSON.parse(r.stdout) : undefined
  return { ...r, json }
}

const pick = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]))
const sums = (rows: Array<Record<string, number>>) => Object.fromEntries(FIELDS.map((k) => [k, rows.reduce((n, r) => n + r[k]!, 0)]))
const close = (a: Record<string, unknown>, b: Record<string, unknown>) => FIELDS.every((k) => Math.abs(Number(a[k]) - Number(b[k])) < 1e-9)

/** `--by agent --json`, which several tests read. */
const byAgent = stats('--by', 'agent', '--json')

t.test('per agent: each response once, the rewound and sub-agent ones too; totals are their sum; an unpriced model is named', async (t) => {
  const r = await byAgent
  t.equal(r.code, 0, r.stderr)
  t.same(Object.keys(r.json), ['rows', 'totals'])
  t.same(Object.keys(r.json.totals), FIELDS, 'the totals have exactly the issue\'s fields')
  const by = Object.fromEntries(r.json.rows.map((x: Record<string, unknown>) => [x.agent, x]))
  t.same(Object.keys(by).sort(), ['claude-code', 'codex', 'opencode'])
  t.same(pick(by['claude-code'], TOKENS), EXPECTED['claude-code'])
  t.same(pick(by.codex, TOKENS), EXPECTED.codex)
  t.same(pick(by.opencode, FIELDS), { ...EXPECTED.opencode, cost_usd: 0.016 }, 'OpenCode: its recorded cost')
  // Sonnet 4.5 $3/$15, cache $0.30 read / $3.75 write; Haiku 4.5 $1/$5, $0.10/$1.25; Opus 4.5 $5/$25, $0.50/$6.25 (per million).
  const sonnet = (41 * 3 + 1130 * 15 + 9000 * 0.3 + 3250 * 3.75) / 1e6
  const claude = sonnet + (400 * 1 + 60 * 5 + 1200 * 1.25) / 1e6 + (20 * 5 + 900 * 25 + 5000 * 6.25) / 1e6
  t.ok(Math.abs(by['claude-code'].cost_usd - claude) < 1e-9, `Claude Code priced from the pinned table: ${by['claude-code'].cost_usd} = ${claude}`)
  t.ok(Math.abs(by.codex.cost_usd - (12500 * 1.25 + 1020 * 10 + 3500 * 0.125) / 1e6) < 1e-9, 'Codex: gpt-5-codex and gpt-5.1-codex at $1.25/$10, cached $0.125')
  t.same(by['claude-code'].unpriced_models, ['claude-mystery-9'])
  t.notOk(by.codex.unpriced_models)
  t.ok(close(r.json.totals, sums(r.json.rows)), 'totals = the sum of the rows')
  t.match(r.stderr, /"code":"unpriced-model".*claude-mystery-9: no price.*its 10 tokens in 1 response/, 'the model without a price is named on stderr')
})

t.test('grouping: per session the same totals, each session with its agent and project', async (t) => {
  const all = (await byAgent).json
  const r = await stats('--by', 'session', '--json')
  t.equal(r.code, 0, r.stderr)
  t.ok(close(r.json.totals, all.totals), 'the same totals as per agent')
  t.ok(close(sums(r.json.rows), all.totals), 'the rows add up to them')
  t.same([...new Set(r.json.rows.map((x: Record<string, string>) => x.project))].sort(), ['/home/dev/blog', '/home/dev/demo-app', '/home/dev/shop'])
  const row = (sid: string) => r.json.rows.find((x: Record<string, string>) => x.session === sid)
  t.same(pick(row('claude-code:agent-a5a7a00000000001'), ['agent', 'project', 'input_tokens', 'output_tokens', 'messages']), { agent: 'claude-code', project: '/home/dev/shop', input_tokens: 400, output_tokens: 60, messages: 1 }, 'the sub-agent is a session of its own')
  // The resumed session repeats msg_01shop: it is counted in the session that made it (the older one).
  t.same(pick(row(`claude-code:${IDS.shop2}`), ['input_tokens', 'messages']), { input_tokens: 12, messages: 1 }, 'a copied response counts in the session that made it')
})

t.test('filters: --harness, --cwd, --since/--until on each response\'s time', async (t) => {
  const blog = await stats('--harness', 'codex', '--harness', 'claude-code', '--cwd', '/home/dev/blog', '--by', 'agent', '--json')
  t.same(blog.json.rows.map((x: Record<string, unknown>) => [x.agent, x.input_tokens, x.output_tokens]), [['claude-code', 20, 900], ['codex', 9000, 700]])
  // The resumed session was last updated on the 3rd; of it only its new answer (msg_07) is in the window, plus Codex's first rollout.
  const window = await stats('--since', '2026-11-03T00:00:00Z', '--until', '2026-11-06T00:00:00Z', '--by', 'day', '--json')
  t.same(window.json.rows.map((x: Record<string, unknown>) => [x.day, x.input_tokens, x.output_tokens]), [['2026-11-03', 12, 300], ['2026-11-05', 3500, 320]])
  const bad = await stats('--since', 'someday')
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--since: not a date/)
})

t.test('--csv, the table, --prices FILE', async (t) => {
  const csv = await stats('--by', 'week', '--csv')
  const lines = csv.stdout.trimEnd().split('\r\n')
  t.equal(lines[0], 'week,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,total_tokens,cost_usd,messages,sessions,unpriced_models')
  t.same(lines.slice(1, -1).map((l) => l.split(',')[0]), ['2026-11-02', '2026-11-09', '2026-11-23'], 'weeks start on Monday')
  t.match(lines[1], /,claude-mystery-9$/)
  t.match(lines.at(-1), /^total,22564,3757,12500,9450,540,48271,[\d.]+,19,,claude-mystery-9$/)
  const table = await stats('--by', 'model')
  t.match(table.stdout, /^MODEL +INPUT +OUTPUT +CACHE READ +CACHE WRITE +REASONING +TOTAL +COST$/m)
  t.match(table.stdout, /^gpt-5-codex +3,500 +320 +3,500 +0 +80 +7,320 +\$0\.0080$/m, 'models as the agents recorded them')
  t.match(table.stdout, /^claude-mystery-9 +3 +7 +0 +0 +0 +10 +\$0\.00\*$/m)
  t.match(table.stdout, /^TOTAL +22,564 +3,757 +12,500 +9,450 +540 +48,271 +\$[\d.]+\*$/m, 'totals last, starred: one model is not priced')
  t.match(table.stdout, /^\* without the cost of models that have no price .*claude-mystery-9 \(10 tokens\)$/m)
  t.match(table.stderr, /^ferry: warning: stats:unpriced-model: claude-mystery-9: no price/m)
  // On a terminal of 60 columns (a pseudo-terminal from script(1)): optional columns go, the session keys are cut, the note wraps.
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`
  const pty = spawnSync('script', ['-qfec', `stty cols 60 rows 50; exec ${[process.execPath, FERRY, 'stats', '--home', home, '--by', 'session'].map(quote).join(' ')} 2>/dev/null`, '/dev/null'], { env: { ...process.env, TZ: 'UTC' }, encoding: 'utf8', timeout: scaled(60_000) })
  const rows = pty.stdout.replace(/\r/g, '').split('\n').filter(Boolean)
  t.ok(rows.length >= 9, pty.stdout)
  t.same(rows.filter((l) => [...l].length > 60), [], 'every line fits 60 columns')
  t.match(rows[0], /^SESSION +INPUT +OUTPUT +COST$/)
  t.match(pty.stdout, /^claude-code:5a7a0…8000-000000000001 /m, 'keys cut in the middle, so they stay apart')
  t.match(pty.stdout, /^TOTAL +22,564 +3,757 +\$[\d.]+\*/m)

  const prices = join(home, 'prices.json')
  writeFileSync(prices, JSON.stringify({ date: '2026-12-06', models: { 'claude-mystery-9': { input: 100, output: 1000 } } }))
  const before = (await byAgent).json.totals.cost_usd
  const priced = await stats('--by', 'agent', '--json', '--prices', prices)
  t.equal(priced.code, 0)
  t.notMatch(priced.stderr, /unpriced-model/, 'every model has a price now')
  t.ok(Math.abs(priced.json.totals.cost_usd - before - (3 * 100 + 7 * 1000) / 1e6) < 1e-9, 'the mystery model costs what the file says')
  writeFileSync(prices, '{"models": {"x": {"input": "cheap"}}}')
  const bad = await stats('--prices', prices)
  t.equal(bad.code, 1)
  t.match(bad.stderr, new RegExp(`bad-config.*${prices.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*"x" no valid "input"`))
  t.equal(bad.stderr.trim().split('\n').length, 1, 'one line, no stack')
})

/** ccusage's names for the agents both count. */
const CCUSAGE_AGENT: Record<string, string> = { 'claude-code': 'claude', codex: 'codex', opencode: 'opencode' }

/** `ccusage daily --by-agent --json --offline` on a HOME (the dev dependency's own launcher; no network, no other HOME), summed per agent. */
function ccusage(h: string): Record<string, Record<string, number>> {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/ccusage/src/cli.js'), 'daily', '--by-agent', '--json', '--offline'], { env: { PATH: process.env.PATH, HOME: h, TZ: 'UTC', NO_COLOR: '1' }, encoding: 'utf8', timeout: scaled(60_000) })
  if (r.status !== 0) throw new Error(`ccusage: ${r.status} ${r.stderr}`)
  const out: Record<string, Record<string, number>> = {}
  for (const day of JSON.parse(r.stdout).daily)
    for (const a of day.agents) {
      const x = (out[a.agent] ??= { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 0, cost_usd: 0 })
      x.input_tokens! += a.inputTokens
      x.output_tokens! += a.outputTokens
      x.cache_read_tokens! += a.cacheReadTokens
      x.cache_write_tokens! += a.cacheCreationTokens
      x.total_tokens! += a.totalTokens
      x.cost_usd! += a.totalCost
    }
  return out
}

t.test('ccusage (offline) counts the same tokens per agent, and the same cost', async (t) => {
  const ours = Object.fromEntries((await byAgent).json.rows.map((r: Record<string, unknown>) => [r.agent, r]))
  const theirs = ccusage(home)
  t.same(Object.keys(theirs).sort(), Object.values(CCUSAGE_AGENT).sort(), 'ccusage found every agent')
  const COUNTS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens']
  for (const [id, name] of Object.entries(CCUSAGE_AGENT)) {
    t.same(pick(ours[id], COUNTS), pick(theirs[name]!, COUNTS), `${id}: the same tokens`)
    // ccusage prices claude-mystery-9 at nothing, silently; ferry leaves it out of cost_usd and names it.
    t.ok(Math.abs(ours[id].cost_usd - theirs[name]!.cost_usd!) < 1e-9, `${id}: the same cost (${ours[id].cost_usd} and ${theirs[name]!.cost_usd})`)
  }
  // docs/stats.md: ccusage's OpenCode total adds reasoning tokens, which OpenCode keeps apart from output.
  t.equal(theirs.opencode!.total_tokens! - ours.opencode.total_tokens, EXPECTED.opencode.reasoning_tokens, 'OpenCode: ccusage\'s total includes reasoning')
})

t.test('the contract fixtures: ZCode and Cursor counted; where ccusage counts differently, by design (docs/stats.md)', async (t) => {
  const h = tempDir(t, 'ferry-stats-contract-')
  cpSync(join(FIXTURES, 'claude-code', 'home'), h, { recursive: true })
  cpSync(join(FIXTURES, 'codex', 'classic'), h, { recursive: true })
  cpSync(join(FIXTURES, 'zcode', 'home'), h, { recursive: true })
  const made = spawnSync(process.execPath, [join(FIXTURES, 'cursor', 'make-fixtures.mjs'), h], { cwd: ROOT, encoding: 'utf8' })
  t.equal(made.status, 0, made.stderr)
  const r = await ferry(['stats', '--home', h, '--by', 'agent', '--json'], { env })
  // The fixture has a torn last line: reported with its place, exit 1, everything else counted.
  t.equal(r.code, 1)
  t.match(r.stderr, /"code":"torn-line","source":"claude-code".*7c1e4b2d-9f3a-4e5b-8c7d-000000000002\.jsonl/)
  const ours = Object.fromEntries(JSON.parse(r.stdout).rows.map((x: Record<string, unknown>) => [x.agent, x]))
  // ZCode (fixtures/zcode/scenarios.mjs): the steps' tokens, 4810+5160+900+300+200+400 input, 96+58+58+12+20+30 output,
  // 4800 cache read, 41 reasoning; its recorded cost is 0 and GLM-5.2 has no price: named, not free.
  t.same(pick(ours.zcode, TOKENS), { input_tokens: 11770, output_tokens: 274, cache_read_tokens: 4800, cache_write_tokens: 0, reasoning_tokens: 41 }, 'ZCode: the message tokens')
  t.same(ours.zcode.unpriced_models, ['GLM-5.2'])
  // Cursor (fixtures/cursor/make-fixtures.mjs): one editor bubble with a non-zero tokenCount.
  t.same(pick(ours.cursor, ['input_tokens', 'output_tokens', 'messages']), { input_tokens: 100, output_tokens: 12, messages: 1 }, 'Cursor: the bubbles\' tokenCount')
  const theirs = ccusage(h)
  // ZCode: ccusage reads the model_usage ledger, which this fixture leaves empty; it has no Cursor report.
  t.notOk(theirs.zcode, 'ccusage: no ZCode usage without ledger rows')
  // Claude Code entries without a requestId (older versions; this fixture): ccusage de-duplicates only
  // by message id AND request id, so it counts every content-block entry of a response; ferry counts a
  // message id once. Three such extra entries here (msg_syn_A1 twice more, msg_syn_A3 once), each 1200/64/800.
  t.same(
    { input: theirs.claude!.input_tokens! - ours['claude-code'].input_tokens, output: theirs.claude!.output_tokens! - ours['claude-code'].output_tokens, cache_read: theirs.claude!.cache_read_tokens! - ours['claude-code'].cache_read_tokens },
    { input: 3 * 1200, output: 3 * 64, cache_read: 3 * 800 },
    'Claude Code: ccusage counts the repeated entries of a response without requestId',
  )
  // Codex: newer rollouts give each response a token_usage_record; ccusage reads token_count events
  // only, and this rollout has one token_count (after the first of its three responses).
  t.same(pick(theirs.codex!, ['input_tokens', 'output_tokens', 'cache_read_tokens']), { input_tokens: 1000, output_tokens: 40, cache_read_tokens: 200 }, 'Codex: ccusage counts the one token_count')
  t.same(pick(ours.codex, ['input_tokens', 'output_tokens', 'cache_read_tokens']), { input_tokens: 1000 + 100 + 200, output_tokens: 40 + 12 + 50, cache_read_tokens: 200 + 1200 + 1300 }, 'Codex: ferry counts the three token_usage_records')
})

t.test('every harness that records usage is counted: the sample home, one session of each', async (t) => {
  const r = await ferry(['--home', join(FIXTURES, 'home'), 'stats', '--by', 'agent', '--json'])
  t.equal(r.code, 0, r.stderr)
  const rows = JSON.parse(r.stdout).rows as Array<{ agent: string; input_tokens: number; output_tokens: number }>
  const byAgent = new Map(rows.map((x) => [x.agent, x]))
  // Cursor's transcripts and Grok's logs record no token counts (docs/stats.md); every other agent does.
  for (const h of ['claude-code', 'codex', 'opencode', 'zcode', 'copilot', 'pi', 'gemini', 'qwen', 'kilo']) {
    const row = byAgent.get(h)
    t.ok(row && row.input_tokens > 0 && row.output_tokens > 0, `${h}: its tokens are counted`)
  }
})
