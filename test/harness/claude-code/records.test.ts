// Claude Code's newer records (2.1.332): metadata without uuid passed through in order, signature-only thinking,
// away_summary / informational / api_error, sub-agents spawning sub-agents five levels deep with their .meta.json.
import t from 'tap'
import { cpSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { FIXTURES, kit, tempDir } from '../../kit.js'
// @ts-expect-error: the fixture generator is plain JavaScript
import { AGENTS, PROJECT, SESSION, agentFolder, agentMeta, agentSession, mainSession } from '../../../fixtures/claude-code/make-records.mjs'

const cc = kit('claude-code')
const FIX = join(FIXTURES, 'claude-code', 'records')
const PROJ = join(FIX, '.claude', 'projects', PROJECT)

function home(t: any): string {
  const h = join(tempDir(t), 'home')
  cpSync(FIX, h, { recursive: true })
  return h
}
const sessions = (recs: FerryRecord[]) => recs.filter((r): r is SessionRec => r.kind === 'session')

t.test('the committed fixture is what the generator writes', async (t) => {
  t.equal(readFileSync(join(PROJ, `${SESSION}.jsonl`), 'utf8'), mainSession())
  for (let d = 1; d <= 5; d++) {
    const dir = join(PROJ, SESSION, 'subagents', agentFolder(d))
    t.equal(readFileSync(join(dir, `agent-${AGENTS[d - 1]}.jsonl`), 'utf8'), agentSession(d))
    t.equal(readFileSync(join(dir, `agent-${AGENTS[d - 1]}.meta.json`), 'utf8'), agentMeta(d))
  }
})

t.test('records without uuid pass through where they are; thinking with only a signature; system notices', async (t) => {
  const recs = await cc.read(cc.ctx(home(t)), SESSION)
  const main = recs.slice(0, recs.findIndex((r) => r.kind === 'end') + 1)
  const shape = main.filter((r) => r.kind === 'native' || r.kind === 'message').map((r: any) => (r.kind === 'native' ? r.native_type.slice('claude-code/'.length) : `${r.role}${r.context ? ':context' : ''}`))
  t.same(shape, ['queue-operation', 'user', 'atis-latch', 'assistant', 'pr-link', 'user', 'system:context', 'assistant', 'cost-state', 'system:context', 'system:context', 'frame-link', 'agent-setting', 'custom-title', 'last-prompt'], 'file order kept')
  const m = main.filter((r): r is MessageRec => r.kind === 'message')
  t.match(m[1]!.blocks[0], { type: 'thinking', text: '', signature: 'EqoBCkYIBxgCKkD-signature-only', provider: 'anthropic' }, 'a thinking block that holds only its signature')
  const notices = m.filter((r) => r.role === 'system')
  t.same(notices.map((r) => (r.blocks[0] as any).text), ['API error (attempt 1 of 10): Overloaded', 'While you were away: the five agents finished.', "Git Bash wasn't found, so a hook ran in PowerShell."])
  t.same(notices.map((r) => r.x?.['claude-code.subtype']), ['api_error', 'away_summary', 'informational'])
  t.equal((main[0] as SessionRec).title, 'Five levels of agents', 'custom-title read although type is not its first key')
})

t.test('sub-agents five levels deep: each linked to the agent that spawned it, the deepest found in a folder below subagents/', async (t) => {
  const recs = await cc.read(cc.ctx(home(t)), SESSION)
  const s = sessions(recs)
  t.same(s.map((x) => x.sid), [`claude-code:${SESSION}`, ...AGENTS.map((a: string) => `claude-code:agent-${a}`)])
  t.same(s.slice(1).map((x) => x.parent?.sid), [`claude-code:${SESSION}`, ...AGENTS.slice(0, 4).map((a: string) => `claude-code:agent-${a}`)], 'parentAgentId followed')
  t.same(s.slice(1).map((x) => x.parent?.tool_use_id), ['toolu_main_1', ...AGENTS.slice(0, 4).map((a: string) => `toolu_${a}`)])
})

t.test('native round trip: main transcript, five sub-agents and their meta files byte for byte', async (t) => {
  const out = tempDir(t)
  // In process (the CLI's cat | write is the contract suite's): the records with their native text, into an empty store.
  const recs = await cc.read(cc.ctx(home(t)), SESSION, { native: true })
  await cc.write(cc.ctx(out, { roots: { 'claude-code': out } }), recs)
  t.equal(readFileSync(join(out, 'projects', PROJECT, `${SESSION}.jsonl`), 'utf8'), mainSession())
  const sub = join(out, 'projects', PROJECT, SESSION, 'subagents')
  for (let d = 1; d <= 5; d++) {
    t.equal(readFileSync(join(sub, `agent-${AGENTS[d - 1]}.jsonl`), 'utf8'), agentSession(d), `agent ${d}`)
    t.equal(readFileSync(join(sub, `agent-${AGENTS[d - 1]}.meta.json`), 'utf8'), agentMeta(d), `agent ${d} meta`)
  }
})

t.test('written from the model (no native text): nested sub-agents get parentAgentId and spawnDepth, and read back nested', async (t) => {
  const out = tempDir(t)
  await cc.write(cc.ctx(out, { roots: { 'claude-code': out } }), await cc.read(cc.ctx(home(t)), SESSION))
  const projects = join(out, 'projects')
  const proj = join(projects, readdirSync(projects)[0]!)
  const main = readdirSync(proj).find((n) => n.endsWith('.jsonl'))!
  const sub = join(proj, main.replace(/\.jsonl$/, ''), 'subagents')
  const metas = readdirSync(sub).filter((n) => n.endsWith('.meta.json')).map((n) => JSON.parse(readFileSync(join(sub, n), 'utf8')))
  t.same(metas.map((m) => m.spawnDepth).sort(), [1, 2, 3, 4, 5])
  const byDepth = new Map(metas.map((m) => [m.spawnDepth, m]))
  for (let d = 2; d <= 5; d++) t.equal(byDepth.get(d).parentAgentId, AGENTS[d - 2], `depth ${d} names its parent`)
  t.notOk(byDepth.get(1).parentAgentId)
  const back = sessions(await cc.read(cc.ctx(out, { roots: { 'claude-code': out } }), main.replace(/\.jsonl$/, '')))
  t.same(back.slice(1).map((x) => x.parent?.sid), [back[0]!.sid, ...AGENTS.slice(0, 4).map((a: string) => `claude-code:agent-${a}`)])
})
