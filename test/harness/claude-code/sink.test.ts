import t from 'tap'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord } from '../../../lib/model.js'
import { kit, lines, tempDir } from '../../kit.js'

const cc = kit('claude-code')

const S = 'codex:019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b'
const base = { sid: S }
let n = 0
const id = () => `${S}:l${n++}`

/** A Codex-shaped conversation in the common model (what the Codex reader emits). */
function codexStream(extra: Partial<Record<'title_source', string>> = {}): FerryRecord[] {
  n = 0
  return [
    { kind: 'stream', ferry: '1.0' },
    { kind: 'session', ferry: '1.0', ...base, id: `${S}:session`, source: { harness: 'codex', agent_version: '0.171.0', locator: {} }, native_id: '019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b', cwd: '/home/dev/demo-app', title: 'Why does npm test fail?', title_source: extra.title_source ?? 'first_prompt', model: 'gpt-5.5', git: { branch: 'main' }, created_at: '2026-11-02T09:15:00.000Z' },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:00.010Z', context: true, context_kind: 'environment', blocks: [{ type: 'text', text: '<environment_context><cwd>/home/dev/demo-app</cwd></environment_context>' }] },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:00.020Z', blocks: [{ type: 'text', text: 'why does npm test fail?' }, { type: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }] },
    { kind: 'message', ...base, id: id(), role: 'assistant', ts: '2026-11-02T09:15:02.000Z', model: 'gpt-5.5', blocks: [
      { type: 'thinking', text: 'Look at package.json first.', encrypted: 'gAAAA-opaque', provider: 'openai' },
      { type: 'tool_use', id: 'call_7Qp2', name: 'exec_command', input: { cmd: 'cat package.json', workdir: '/home/dev/demo-app' } },
      { type: 'tool_use', id: 'call.8/Rq3', name: 'exec_command', input: { cmd: 'npm test' } },
      { type: 'tool_use', id: 'call_lost', name: 'exec_command', input: { cmd: 'ls' } },
    ] },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:02.500Z', blocks: [{ type: 'tool_result', tool_use_id: 'call_7Qp2', content: '{"scripts":{"test":"jest"}}', exit_code: 0, structured: { codex: true } }] },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:02.600Z', context: true, context_kind: 'other', blocks: [{ type: 'text', text: 'a note injected between two results' }] },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:03.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'call.8/Rq3', content: [{ type: 'text', text: 'sh: 1: jest: not found' }, { type: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }], is_error: true }] },
    { kind: 'message', ...base, id: id(), role: 'assistant', ts: '2026-11-02T09:15:07.100Z', model: 'gpt-5.5', blocks: [{ type: 'text', text: 'jest is not installed.' }], usage: { input_tokens: 870, output_tokens: 19 }, stop_reason: 'end_turn' },
    { kind: 'message', ...base, id: id(), role: 'user', ts: '2026-11-02T09:15:08.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'call_nowhere', content: 'orphan output' }] },
    { kind: 'native', ...base, id: id(), native_type: 'codex/turn_context', native: { format: 'codex/jsonl@0.171.0', raw: '{"type":"turn_context"}' } },
    { kind: 'weird-future-kind', ...base, id: id() } as unknown as FerryRecord,
    { kind: 'end', ...base, id: `${S}:end` },
  ] as FerryRecord[]
}

t.test('a foreign session becomes a loadable transcript: path, envelope, linear chain', async (t) => {
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), codexStream())
  t.match(w, { harness: 'claude-code', from: S, title: 'Why does npm test fail?' })
  t.match(w!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a fresh deterministic UUID, not the Codex id')
  t.equal(w!.path, join(out, '.claude', 'projects', '-home-dev-demo-app', `${w!.id}.jsonl`))
  const recs = lines(readFileSync(w!.path, 'utf8'))
  const chain = recs.filter((r) => r.type === 'user' || r.type === 'assistant' || r.type === 'system')
  let prev: string | null = null
  for (const r of chain) {
    t.match(r, { sessionId: w!.id, cwd: '/home/dev/demo-app', isSidechain: false, version: '2.1.332', gitBranch: 'main', userType: 'external' })
    t.equal(r.parentUuid, prev, 'each entry links to the one before')
    t.match(r.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    prev = r.uuid
  }
  t.equal(new Set(chain.map((r) => r.uuid)).size, chain.length)
  t.notOk(JSON.stringify(recs).includes('environment_context'), 'foreign environment scaffolding is not written')
  t.notOk(JSON.stringify(recs).includes('turn_context'), 'foreign native records are not written')
  const again = tempDir(t)
  const [w2] = await cc.write(cc.ctx(again), codexStream())
  t.equal(readFileSync(w2!.path, 'utf8'), readFileSync(w!.path, 'utf8'), 'the conversion is reproducible')
})

t.test('every tool_use is answered in the user entries right after it; names mapped by the tool table', async (t) => {
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), codexStream())
  const chain = lines(readFileSync(w!.path, 'utf8')).filter((r) => r.type === 'user' || r.type === 'assistant')
  const a = chain.findIndex((r) => r.type === 'assistant' && r.message.content.some((c: any) => c.type === 'tool_use'))
  const calls = chain[a].message.content.filter((c: any) => c.type === 'tool_use')
  t.same(calls.map((c: any) => c.name), ['Bash', 'Bash', 'Bash'])
  t.same(calls[0].input, { command: 'cat package.json', workdir: '/home/dev/demo-app' })
  t.equal(calls[1].id, 'call_8_Rq3', 'ids are made safe for the Messages API')
  t.equal(chain[a].message.stop_reason, 'tool_use')
  const next = chain.slice(a + 1, a + 4)
  t.same(next.map((r) => r.message.content[0].tool_use_id), ['call_7Qp2', 'call_8_Rq3', 'call_lost'], 'results first, in order, the missing one synthesized')
  t.match(next[1].message.content[0], { is_error: true, content: [{ type: 'text', text: 'sh: 1: jest: not found' }, { type: 'image', source: { type: 'base64', media_type: 'image/png' } }] })
  t.match(next[2].message.content[0], { is_error: true, content: /No result was recorded/ })
  t.equal(next[0].sourceToolAssistantUUID, chain[a].uuid)
  t.notOk('toolUseResult' in next[0], 'a foreign structured result is not passed off as Claude Code\'s')
  t.match(chain[a + 4], { type: 'user', isMeta: true, message: { content: 'a note injected between two results' } }, 'context held back until the calls were answered')
  const orphan = chain.find((r) => JSON.stringify(r).includes('orphan output'))
  t.equal(typeof orphan.message.content, 'string', 'a result with no call in the file is written as text')
  t.match(orphan.message.content, /call_nowhere/)
  const prompt = chain.find((r) => r.type === 'user' && Array.isArray(r.message.content) && r.message.content[0].text === 'why does npm test fail?')
  t.match(prompt.message.content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } })
})

t.test('thinking without an Anthropic signature: text by default, dropped on request, never signed', async (t) => {
  const dir1 = tempDir(t)
  const [w] = await cc.write(cc.ctx(dir1), codexStream())
  const text = readFileSync(w!.path, 'utf8')
  t.notOk(text.includes('"type":"thinking"'))
  t.ok(text.includes('[thinking]\\nLook at package.json first.'))
  const dir2 = tempDir(t)
  const [w2] = await cc.write(cc.ctx(dir2), codexStream(), { thinking: 'drop' })
  t.notOk(readFileSync(w2!.path, 'utf8').includes('Look at package.json'))
  // A genuine Anthropic block from another harness (OpenCode on Anthropic) keeps its signature.
  const sid = 'opencode:ses_x'
  const recs = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'opencode', locator: {} }, native_id: 'ses_x', cwd: '/w' },
    { kind: 'message', sid, id: `${sid}:m1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'message', sid, id: `${sid}:m2`, role: 'assistant', ts: null, model: 'claude-sonnet-4-5', blocks: [{ type: 'thinking', text: 'ok', signature: 'sig', provider: 'anthropic' }, { type: 'thinking', text: '', redacted: true, encrypted: 'blob', provider: 'anthropic' }, { type: 'text', text: 'hello' }] },
  ] as FerryRecord[]
  const dir3 = tempDir(t)
  const [w3] = await cc.write(cc.ctx(dir3), recs)
  const a = lines(readFileSync(w3!.path, 'utf8')).find((r) => r.type === 'assistant')
  t.same(a.message.content, [{ type: 'thinking', thinking: 'ok', signature: 'sig' }, { type: 'redacted_thinking', data: 'blob' }, { type: 'text', text: 'hello' }])
})

t.test('title records anchored to the last entry', async (t) => {
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), codexStream({ title_source: 'ai' }))
  const recs = lines(readFileSync(w!.path, 'utf8'))
  const last = recs.filter((r) => r.uuid).at(-1)
  t.same(recs.find((r) => r.type === 'summary'), { type: 'summary', summary: 'Why does npm test fail?', leafUuid: last.uuid })
  t.same(recs.find((r) => r.type === 'ai-title'), { type: 'ai-title', aiTitle: 'Why does npm test fail?', sessionId: w!.id })
  // and our own reader finds it again
  const back = await cc.read(cc.ctx(out), w!.id)
  t.match(back[0], { kind: 'session', title: 'Why does npm test fail?', cwd: '/home/dev/demo-app' })
})

t.test('sub-agent sessions go under their parent when the parent is written in the same run', async (t) => {
  const P = 'opencode:ses_parent'
  const C = 'opencode:ses_child'
  const recs = [
    { kind: 'session', ferry: '1.0', sid: P, id: `${P}:session`, source: { harness: 'opencode', locator: {} }, native_id: 'ses_parent', cwd: '/w' },
    { kind: 'message', sid: P, id: `${P}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'delegate' }] },
    { kind: 'message', sid: P, id: `${P}:2`, role: 'assistant', ts: null, blocks: [{ type: 'tool_use', id: 'tool:1', name: 'task', input: { description: 'look', prompt: 'look around', subagent_type: 'general' } }] },
    { kind: 'message', sid: P, id: `${P}:3`, role: 'user', ts: null, blocks: [{ type: 'tool_result', tool_use_id: 'tool:1', content: 'done' }] },
    { kind: 'end', sid: P, id: `${P}:end` },
    { kind: 'session', ferry: '1.0', sid: C, id: `${C}:session`, source: { harness: 'opencode', locator: {} }, native_id: 'ses_child', cwd: '/w', title: 'look', parent: { sid: P, kind: 'subagent', tool_use_id: 'tool:1' } },
    { kind: 'message', sid: C, id: `${C}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'look around' }] },
    { kind: 'message', sid: C, id: `${C}:2`, role: 'assistant', ts: null, blocks: [{ type: 'text', text: 'looked' }] },
  ] as FerryRecord[]
  const out = tempDir(t)
  const [p, c] = await cc.write(cc.ctx(out), recs)
  t.match(c!.path, new RegExp(`/${p!.id}/subagents/agent-a[0-9a-f]{16}\\.jsonl$`))
  const lns = lines(readFileSync(c!.path, 'utf8'))
  for (const l of lns) t.match(l, { isSidechain: true, sessionId: p!.id, agentId: c!.id.slice('agent-'.length) })
  const meta = JSON.parse(readFileSync(c!.path.replace(/\.jsonl$/, '.meta.json'), 'utf8'))
  t.match(meta, { toolUseId: 'tool_1', description: 'look', agentType: 'general-purpose' })
  const parentCall = lines(readFileSync(p!.path, 'utf8')).find((r) => r.type === 'assistant').message.content[0]
  t.equal(parentCall.id, meta.toolUseId, 'meta names the written call id')
  // read back: the sub-agent is linked to the parent and its call
  const back = await cc.read(cc.ctx(out), p!.id)
  t.match(back.find((r) => r.kind === 'session' && r.parent), { parent: { sid: `claude-code:${p!.id}`, kind: 'subagent', tool_use_id: 'tool_1' } })
})

t.test('a sub-agent whose parent is not in the run is written as a session of its own', async (t) => {
  const C = 'opencode:ses_orphan'
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), [
    { kind: 'session', ferry: '1.0', sid: C, id: `${C}:session`, source: { harness: 'opencode', locator: {} }, native_id: 'ses_orphan', cwd: '/w', parent: { sid: 'opencode:ses_gone', kind: 'subagent' } },
    { kind: 'message', sid: C, id: `${C}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
  ] as FerryRecord[])
  t.equal(w!.path, join(out, '.claude', 'projects', '-w', `${w!.id}.jsonl`))
})

t.test('compaction and slash commands are written the way Claude Code writes them', async (t) => {
  const sid = 'codex:cmp'
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: 'cmp', cwd: '/w' },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'before' }] },
    { kind: 'message', sid, id: `${sid}:2`, role: 'assistant', ts: null, blocks: [{ type: 'text', text: 'ok' }] },
    { kind: 'boundary', sid, id: `${sid}:3`, type: 'compaction', trigger: 'auto', pre_tokens: 1000, summary: 'we talked' },
    { kind: 'message', sid, id: `${sid}:4`, role: 'user', ts: null, blocks: [{ type: 'tool_use', id: 'cmd1', name: '/model', input: { args: 'opus' } }] },
    { kind: 'message', sid, id: `${sid}:5`, role: 'user', ts: null, context: true, context_kind: 'command', blocks: [{ type: 'tool_result', tool_use_id: 'cmd1', content: 'Set model to opus' }] },
    { kind: 'message', sid, id: `${sid}:6`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'after' }] },
  ] as FerryRecord[])
  const recs = lines(readFileSync(w!.path, 'utf8'))
  const b = recs.findIndex((r) => r.subtype === 'compact_boundary')
  t.match(recs[b], { type: 'system', parentUuid: null, logicalParentUuid: recs[b - 1].uuid, compactMetadata: { trigger: 'auto', preTokens: 1000 } })
  t.match(recs[b + 1], { type: 'user', parentUuid: recs[b].uuid, isCompactSummary: true, message: { content: 'we talked' } })
  t.match(recs[b + 2].message.content, /^<command-name>\/model<\/command-name>[\s\S]*<command-args>opus<\/command-args>$/)
  t.equal(recs[b + 3].message.content, '<local-command-stdout>Set model to opus</local-command-stdout>')
  const back = await cc.read(cc.ctx(out), w!.id)
  const call = back.find((r) => r.kind === 'message' && r.blocks[0]?.type === 'tool_use') as any
  t.match(call.blocks[0], { name: '/model', input: { args: 'opus' } })
  t.ok(back.some((r) => r.kind === 'boundary'))
})

t.test('hostile ids and paths never escape the store', async (t) => {
  const sid = 'claude-code:../../../etc/x'
  const out = tempDir(t)
  const [w] = await cc.write(cc.ctx(out), [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'claude-code', locator: { path: '/a/../../b/c.jsonl' } }, native_id: '../../../etc/x', cwd: '../../..' },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'native', sid, id: `${sid}:2`, native_type: 'claude-code/tool-result-file', native: { format: 'claude-code/jsonl@2.1.332', file: 'tool-results/../../../../evil.txt', raw: 'x' } },
  ] as FerryRecord[])
  t.ok(w!.path.startsWith(join(out, '.claude', 'projects') + '/'))
  t.match(w!.path, /\/projects\/[A-Za-z0-9-]+\/[0-9a-f-]{36}\.jsonl$/)
  const all = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? all(join(d, e.name)) : [join(d, e.name)]))
  t.same(all(out), [w!.path])
  t.notOk(existsSync(join(out, '..', 'evil.txt')))
})
