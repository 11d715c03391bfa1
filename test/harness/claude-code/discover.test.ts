import t from 'tap'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { claudeCode } from '../../../lib/harness/claude-code/index.js'
import { createContext } from '../../../lib/context.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { SessionInfo } from '../../../lib/harness/types.js'
import { FIXTURE, kit, tempDir } from '../../kit.js'

const { home: FIXTURE_HOME, project: PROJECT, feature: FEATURE_ID, damaged: DAMAGED_ID, agent: AGENT_ID } = FIXTURE.claudeCode
const cc = kit('claude-code')

async function list(home: string): Promise<SessionInfo[]> {
  const out: SessionInfo[] = []
  for await (const s of claudeCode.discover!(cc.ctx(home))) out.push(s)
  return out
}

t.test('one session per <uuid>.jsonl; side folders are not sessions', async (t) => {
  const all = await list(FIXTURE_HOME)
  t.same(all.map((s) => s.id).sort(), [FEATURE_ID, DAMAGED_ID].sort())
  t.notOk(all.some((s) => s.id.startsWith('agent-') || s.path.includes('/subagents/') || s.path.includes('tool-results')))
})

t.test('metadata from head and tail: title, cwd, model, version, branch, times', async (t) => {
  const f = (await list(FIXTURE_HOME)).find((s) => s.id === FEATURE_ID)!
  t.match(f, {
    harness: 'claude-code',
    sid: `claude-code:${FEATURE_ID}`,
    path: join(PROJECT, `${FEATURE_ID}.jsonl`),
    cwd: '/home/dev/demo-app',
    title: 'Fix the red build',
    model: 'claude-sonnet-4-5',
    agent_version: '2.1.332',
    git_branch: 'main',
    created_at: '2026-11-02T09:15:00.000Z',
  })
  t.ok(f.updated_at! > f.created_at!, 'updated from the tail')
  t.ok(f.bytes! > 1000)
  const d = (await list(FIXTURE_HOME)).find((s) => s.id === DAMAGED_ID)!
  t.equal(d.title, 'Summarise the README.', 'first typed prompt when no title record')
})

t.test('a head line over the head budget is skipped; the title still comes from the tail', async (t) => {
  const home = tempDir(t)
  const dir = join(home, '.claude', 'projects', '-x')
  mkdirSync(dir, { recursive: true })
  const id = '11111111-2222-4333-8444-555555555555'
  const big = JSON.stringify({ type: 'api-request-shape', sessionId: id, system: 'x'.repeat(600 * 1024) })
  const user = JSON.stringify({ parentUuid: null, type: 'user', message: { role: 'user', content: 'hello there' }, uuid: '11111111-2222-4333-8444-000000000001', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/x', sessionId: id, version: '2.1.332' })
  writeFileSync(join(dir, `${id}.jsonl`), `${user}\n${big}\n${JSON.stringify({ type: 'custom-title', customTitle: 'Named', sessionId: id })}\n`)
  const [s] = await list(home)
  t.equal(s!.title, 'Named')
  t.equal(s!.cwd, '/x')
})

t.test('CLAUDE_CONFIG_DIR moves the store; --home ignores it', async (t) => {
  const ctx = createContext({ env: { HOME: '/nonexistent', CLAUDE_CONFIG_DIR: join(FIXTURE_HOME, '.claude') }, diagnostics: new Diagnostics({ stream: null }) })
  t.equal(claudeCode.root(ctx), join(FIXTURE_HOME, '.claude'))
  const empty = createContext({ env: { HOME: '/h', CLAUDE_CONFIG_DIR: '' }, diagnostics: new Diagnostics({ stream: null }) })
  t.equal(claudeCode.root(empty), '/h/.claude', 'an empty variable is ignored')
  const homed = createContext({ home: '/h2', env: { CLAUDE_CONFIG_DIR: '/elsewhere' }, storeEnvVars: ['CLAUDE_CONFIG_DIR'], diagnostics: new Diagnostics({ stream: null }) })
  t.equal(claudeCode.root(homed), '/h2/.claude')
})

t.test('resolve: id, unique prefix, file path, side folder; ambiguous and hostile refs', async (t) => {
  const ctx = cc.ctx(FIXTURE_HOME)
  t.equal((await claudeCode.resolve!(ctx, FEATURE_ID))?.id, FEATURE_ID)
  t.equal((await claudeCode.resolve!(ctx, '3f1c'))?.id, FEATURE_ID)
  t.equal((await claudeCode.resolve!(ctx, join(PROJECT, `${FEATURE_ID}.jsonl`)))?.id, FEATURE_ID)
  t.equal((await claudeCode.resolve!(ctx, join(PROJECT, FEATURE_ID)))?.id, FEATURE_ID, 'side folder → its session')
  // A sub-agent by the id a write reports for it (#46): exact ids only, naming its parent.
  t.match(await claudeCode.resolve!(ctx, `agent-${AGENT_ID}`), { id: `agent-${AGENT_ID}`, parent: `claude-code:${FEATURE_ID}` })
  t.equal(await claudeCode.resolve!(ctx, `agent-${AGENT_ID}`.slice(0, 12)), null, 'not by a prefix')
  t.equal(await claudeCode.resolve!(ctx, '../../etc/passwd'), null)
  t.equal(await claudeCode.resolve!(ctx, 'nope'), null)
  const home = cc.home(t)
  writeFileSync(join(home, '.claude', 'projects', '-home-dev-demo-app', '3f1c0000-0000-4000-8000-000000000000.jsonl'), '')
  await t.rejects(claudeCode.resolve!(cc.ctx(home), '3f1c'), { code: 'ambiguous' })
})

t.test('an absent store yields nothing', async (t) => {
  t.same(await list(tempDir(t)), [])
})
