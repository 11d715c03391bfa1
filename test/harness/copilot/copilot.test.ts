// Copilot CLI: the generated fixture (a genuine session's shape: sub-agent interleaved by agentId,
// compaction, event types 1.0.102 never wrote) read through the registry; other agents' sessions
// written into it with their sub-agents merged into the parent's log; the sink policy for sub-agents;
// `ferry continue --with copilot`. The real client's side is docs/formats/copilot.md (check-resume.sh).
import t from 'tap'
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { NotWrittenError } from '../../../lib/errors.js'
import type { BoundaryRec, EndRec, FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { FIXTURE, FIXTURES, ROOT, ferry, files, kit, tempDir } from '../../kit.js'

const k = kit('copilot')
const MAIN = '6c2e4f10-3b7a-4d2e-9f1c-5a8b7c6d5e4f'
const NAMED = '9d7b3a21-6e4f-4c8d-a2b1-0f9e8d7c6b5a'
const AGENT = '5f60a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b'

function fixtureHome(t: Parameters<typeof tempDir>[0]): string {
  const home = join(tempDir(t, 'ferry-copilot-'), 'home')
  cpSync(join(FIXTURES, 'copilot', 'home'), home, { recursive: true })
  return home
}

const msgs = (recs: FerryRecord[], sid?: string) => recs.filter((r): r is MessageRec => r.kind === 'message' && (sid === undefined || r.sid === sid))
const events = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>)

t.test('the committed fixture is what make-fixtures.mjs makes', async (t) => {
  const dir = join(tempDir(t, 'ferry-copilot-gen-'), 'home')
  const r = spawnSync(process.execPath, [join(FIXTURES, 'copilot', 'make-fixtures.mjs'), dir], { cwd: ROOT, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const committed = join(FIXTURES, 'copilot', 'home')
  t.same(files(dir), files(committed), 'the same files')
  for (const rel of files(dir)) t.ok(readFileSync(join(dir, rel)).equals(readFileSync(join(committed, rel))), `${rel}: the same bytes`)
  const sample = join(tempDir(t, 'ferry-copilot-gen-'), 'home')
  const s = spawnSync(process.execPath, [join(FIXTURES, 'copilot', 'make-fixtures.mjs'), sample, '--sample'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(s.status, 0, s.stderr)
  const shared = join(FIXTURES, 'home', '.copilot')
  t.same(files(join(sample, '.copilot')), files(shared), 'the sample HOME: the same files')
  for (const rel of files(shared)) t.ok(readFileSync(join(sample, '.copilot', rel)).equals(readFileSync(join(shared, rel))), `sample ${rel}: the same bytes`)
})

t.test('reading: the main agent, then its sub-agent as a linked session', async (t) => {
  const home = fixtureHome(t)
  const ctx = k.ctx(home)
  const recs = await k.read(ctx, MAIN)
  const heads = recs.filter((r): r is SessionRec => r.kind === 'session')
  t.same(heads.map((h) => h.sid), [`copilot:${MAIN}`, `copilot:agent-${AGENT}`], 'the session, then the sub-agent after its end')
  t.match(heads[0], { cwd: '/home/dev/demo-app', model: 'claude-sonnet-4.5', created_at: '2026-11-24T09:30:00.000Z', source: { harness: 'copilot', agent_version: '1.0.102' } })
  t.match(heads[1], { title: 'Confirm the test runner', title_source: 'subagent', parent: { sid: `copilot:${MAIN}`, kind: 'subagent', tool_use_id: 'toolu_05Task4Ng1Vb', agent_id: AGENT } })
  const main = msgs(recs, `copilot:${MAIN}`)
  t.notOk(main.some((m) => m.blocks.some((b) => b.type === 'text' && b.text.includes('Listing the test folder'))), 'no sub-agent message in the main session')
  const first = main.find((m) => m.role === 'assistant')!
  t.match(first.blocks, [{ type: 'thinking', signature: 'EqQBCkYIBxgCKkDsynthetic-signature-0001', provider: 'anthropic' }, { type: 'text' }, { type: 'tool_use', id: 'toolu_01Bash7Hq2Lm', name: 'bash', input: { command: 'npm test' } }])
  t.same(first.usage, { input_tokens: 12150, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0, scope: 'message' }, 'usage from the usage record before it')
  t.equal(first.api_message_id, 'msg_fixture0001')
  const results = main.flatMap((m) => m.blocks.filter((b) => b.type === 'tool_result'))
  t.match(results[0], { tool_use_id: 'toolu_01Bash7Hq2Lm', exit_code: 1 })
  t.match(results[3], { tool_use_id: 'toolu_04Bash2Wq6Zn', is_error: true, content: 'Command timed out after 30000ms' }, 'a failure: the error text')
  t.match(results[4], { tool_use_id: 'toolu_05Task4Ng1Vb', content: 'node --test finds 3 test files under test/.' }, "the sub-agent's answer as the task's result")
  const b = recs.find((r): r is BoundaryRec => r.kind === 'boundary')!
  t.match(b, { type: 'compaction', trigger: 'auto', pre_tokens: 12443, replaces_history: true })
  t.match(b.summary, /<overview>/)
  t.match(main.find((m) => m.role === 'system'), { context: true, context_kind: 'instructions' })
  const sub = msgs(recs, `copilot:agent-${AGENT}`)
  t.same(sub.map((m) => [m.role, m.blocks.map((x) => x.type).join('+')]), [['user', 'text'], ['system', 'text'], ['assistant', 'text+tool_use'], ['user', 'tool_result'], ['assistant', 'text']], "the sub-agent's conversation")
  // Event types 1.0.102 never wrote: native records, one warning naming them, counted in the end record.
  t.same(recs.filter((r) => r.kind === 'native' && /future_insight|intent_update/.test(r.native_type)).map((r) => (r as { native_type: string }).native_type), ['copilot/session.future_insight', 'copilot/assistant.intent_update'])
  const warn = ctx.diagnostics.items.filter((d) => d.code === 'unsupported')
  t.equal(warn.length, 1, 'one unsupported warning')
  t.match(warn[0], { severity: 'warning', source: 'copilot', position: { line: 1 + readFileSync(join(home, '.copilot', 'session-state', MAIN, 'events.jsonl'), 'utf8').split('\n').findIndex((l) => l.includes('session.future_insight')) } })
  t.match(warn[0]!.message, /2 events .*session\.future_insight \(1\), assistant\.intent_update \(1\)/)
  const end = recs.find((r): r is EndRec => r.kind === 'end' && r.sid === `copilot:${MAIN}`)!
  t.match(end, { complete: true, counts: { unknown_events: 2 } })
  t.equal(ctx.diagnostics.errors, 0)
  const named = await k.read(k.ctx(home), NAMED)
  t.match(named[0], { title: 'Directory listing', title_source: 'custom', model: 'gpt-5.4' })
  t.match(msgs(named).find((m) => m.role === 'assistant')!.blocks[0], { type: 'thinking', encrypted: 'gAAAAAsynthetic-encrypted-reasoning', provider: 'openai' })
})

t.test('writing a Claude Code session with its sub-agent: one log, the sub-agent inside it', async (t) => {
  const src = join(tempDir(t, 'ferry-copilot-cc-'), 'home')
  cpSync(FIXTURE.claudeCode.home, src, { recursive: true })
  const recs = await kit('claude-code').read(kit('claude-code').ctx(src), FIXTURE.claudeCode.feature)
  const subs = recs.filter((r): r is SessionRec => r.kind === 'session' && r.parent?.kind === 'subagent')
  t.ok(subs.length > 0, 'the source has a sub-agent')
  const out = join(tempDir(t, 'ferry-copilot-out-'), 'home')
  const ctx = k.ctx(out)
  const written = await k.write(ctx, recs)
  t.equal(written.length, 1 + subs.length, 'the session and its sub-agents reported')
  t.ok(written.every((w) => w.path === written[0]!.path), 'all in the one log')
  const evs = events(written[0]!.path)
  t.equal(evs[0]!.type, 'session.start')
  t.same(evs.map((e) => e.parentId), [null, ...evs.slice(0, -1).map((e) => e.id)], 'one linear parentId chain through every event')
  t.equal(new Set(evs.map((e) => e.id)).size, evs.length, 'no event id twice')
  const started = evs.find((e) => e.type === 'subagent.started')!
  t.ok(started.agentId, 'sub-agent events carry agentId')
  for (const f of ['toolCallId', 'agentName', 'agentDisplayName', 'agentDescription', 'model', 'agentType', 'executionMode']) t.ok(started.data[f], `subagent.started has ${f}`)
  const at = evs.indexOf(started)
  const result = evs.findIndex((e) => e.type === 'tool.execution_complete' && !e.agentId && e.data.toolCallId === started.data.toolCallId)
  t.ok(result > at && evs.slice(at, result).every((e) => e.agentId === started.agentId), "the sub-agent's events sit just before the result of the call that started it")
  // Every request answered, per agent.
  for (const agent of new Set(evs.map((e) => e.agentId ?? ''))) {
    const mine = evs.filter((e) => (e.agentId ?? '') === agent)
    const asked = mine.filter((e) => e.type === 'assistant.message').flatMap((e) => e.data.toolRequests.map((r: { toolCallId: string }) => r.toolCallId))
    const answered = mine.filter((e) => e.type === 'tool.execution_complete').map((e) => e.data.toolCallId)
    t.same(answered.sort(), asked.sort(), `${agent || 'main'}: every tool request has its result`)
  }
  t.ok(existsSync(join(written[0]!.path, '..', 'workspace.yaml')), 'workspace.yaml beside it')
  // Read back: the same conversation, the sub-agent linked to its call.
  const back = await k.read(k.ctx(out), written[0]!.path)
  const backSubs = back.filter((r): r is SessionRec => r.kind === 'session' && r.parent?.kind === 'subagent')
  t.equal(backSubs.length, subs.length, 'the sub-agent reads back as a linked session')
  t.equal(backSubs[0]!.parent!.tool_use_id, started.data.toolCallId)
  const typed = (rs: FerryRecord[]) => msgs(rs).filter((m) => m.role === 'user' && !m.context).flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])))
  for (const p of typed(recs)) t.ok(typed(back).some((q) => q.includes(p)), `prompt kept: ${p.slice(0, 40)}`)
  t.same(readdirSync(join(written[0]!.path, '..')).filter((n) => n.startsWith('.ferry-tmp-')), [], 'no spool left beside the log')
  // Again without force: nothing changes; the sub-agent is refused as already there.
  const before = readFileSync(written[0]!.path)
  const again = await k.writeSettled(ctx, recs)
  t.ok(again.rejected instanceof NotWrittenError)
  if (again.rejected instanceof NotWrittenError) t.same(again.rejected.failures.map((f) => f.error.code), again.rejected.failures.map(() => 'exists'))
  t.ok(readFileSync(written[0]!.path).equals(before), 'the log unchanged')
})

t.test('what Copilot cannot hold is made visible; a sub-agent needs its parent', async (t) => {
  const sid = 'ferry:demo-1'
  const ts = '2026-11-26T10:00:00.000Z'
  const recs: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'demo-1', cwd: '/home/dev/demo-app', created_at: ts },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts, blocks: [{ type: 'text', text: 'What is in this screenshot?' }, { type: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }] },
    { kind: 'message', sid, id: `${sid}:2`, role: 'assistant', ts, blocks: [{ type: 'thinking', text: 'unsigned reasoning' }, { type: 'tool_use', id: 'call:odd/id', name: 'Bash', input: { command: 'ls' } }] },
    { kind: 'boundary', sid, id: `${sid}:3`, type: 'compaction', ts, summary: 'FERRY-SUMMARY of the earlier turns' },
    { kind: 'message', sid, id: `${sid}:4`, role: 'user', ts, blocks: [{ type: 'text', text: 'go on' }] },
    { kind: 'end', sid, id: `${sid}:end` },
  ]
  const out = join(tempDir(t, 'ferry-copilot-vis-'), 'home')
  const [w] = await k.write(k.ctx(out), recs)
  const evs = events(w!.path)
  const users = evs.filter((e) => e.type === 'user.message').map((e) => e.data.content as string)
  t.match(users[0], /What is in this screenshot\?\n\n\[image: image\/png.*not carried/, 'an image: a visible placeholder')
  const asked = evs.find((e) => e.type === 'assistant.message')!
  t.notOk('reasoningText' in asked.data, 'reasoning without a signature is not written')
  t.same(asked.data.toolRequests.map((r: any) => [r.toolCallId, r.name, r.arguments]), [['call_odd_id', 'bash', { command: 'ls' }]], 'Bash → bash, the id made safe')
  const answered = evs.find((e) => e.type === 'tool.execution_complete')!
  t.match(answered.data, { toolCallId: 'call_odd_id', success: false, result: { content: /No result was recorded/ } }, 'an unanswered call gets a visible failure')
  t.same(users.slice(1), ['go on'], 'no summary message: the compaction is a record of its own')
  const done = evs.find((e) => e.type === 'session.compaction_complete')!
  t.match(done.data, { success: true, summaryContent: 'FERRY-SUMMARY of the earlier turns', checkpointNumber: 1 }, 'the boundary as the compaction Copilot replays on resume')
  t.equal(evs[evs.indexOf(done) - 1]!.type, 'session.compaction_start')
  t.match(readFileSync(done.data.checkpointPath, 'utf8'), /FERRY-SUMMARY/, 'its checkpoint file, where the event says')
  t.match(readFileSync(join(done.data.checkpointPath, '..', 'index.md'), 'utf8'), /\| 1 \| .* \| 001-/)
  t.equal(evs.find((e) => e.type === 'session.start')!.data.selectedModel, 'claude-sonnet-4.5')
  const back = await k.read(k.ctx(out), w!.path)
  t.match(back.find((r) => r.kind === 'boundary'), { type: 'compaction', summary: 'FERRY-SUMMARY of the earlier turns', replaces_history: true }, 'read back as the boundary')
  // A sub-agent whose parent is nowhere: refused, nothing written.
  const orphan: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid: 'ferry:sub-9', id: 'ferry:sub-9:session', source: { harness: 'ferry', locator: {} }, native_id: 'sub-9', parent: { sid: 'ferry:nowhere', kind: 'subagent', tool_use_id: 'toolu_x' } },
    { kind: 'message', sid: 'ferry:sub-9', id: 'ferry:sub-9:1', role: 'user', ts, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'end', sid: 'ferry:sub-9', id: 'ferry:sub-9:end' },
  ]
  const r = await k.writeSettled(k.ctx(out), orphan)
  t.ok(r.rejected instanceof NotWrittenError)
  if (r.rejected instanceof NotWrittenError) t.equal(r.rejected.failures[0]!.error.code, 'invalid-input')
})

t.test('ferry continue --with copilot prints the resume command', async (t) => {
  const home = fixtureHome(t)
  cpSync(FIXTURE.claudeCode.home, home, { recursive: true })
  const state = tempDir(t, 'ferry-copilot-state-')
  const r = await ferry(['--home', home, 'continue', `copilot:${NAMED.slice(0, 8)}`, '--with', 'claude-code', '--cwd', home], { env: { XDG_STATE_HOME: state } })
  t.equal(r.code, 0, r.stderr)
  const c = await ferry(['--home', home, 'continue', 'claude-code:' + FIXTURE.claudeCode.feature.slice(0, 8), '--with', 'copilot', '--cwd', home], { env: { XDG_STATE_HOME: state } })
  t.equal(c.code, 0, c.stderr)
  t.match(c.stdout, /copilot --resume=[0-9a-f-]{36}/)
  const id = /--resume=([0-9a-f-]{36})/.exec(c.stdout)![1]!
  t.ok(existsSync(join(home, '.copilot', 'session-state', id, 'events.jsonl')), 'written into the store the command names')
})

t.test('a Copilot session one of whose records a transform changed: the rest verbatim, one chain, nothing twice', async (t) => {
  const home = fixtureHome(t)
  let n = 0
  const recs = (await k.read(k.ctx(home), MAIN, { native: true })).map((r) => {
    if (r.kind !== 'message' || r.role !== 'assistant' || r.sid !== `copilot:${MAIN}` || n++ !== 1) return r
    const { native: _n, ...rest } = r
    return { ...rest, blocks: r.blocks.map((b) => (b.type === 'text' ? { ...b, text: `${b.text} [changed]` } : b)) } as MessageRec
  })
  const out = join(tempDir(t, 'ferry-copilot-mixed-'), 'home')
  const [w] = await k.write(k.ctx(out), recs)
  const evs = events(w!.path)
  const src = events(join(home, '.copilot', 'session-state', MAIN, 'events.jsonl'))
  t.ok(evs.some((e) => e.type === 'assistant.message' && String(e.data.content).endsWith('[changed]')), 'the change is written')
  t.same(evs.map((e) => e.type).sort(), src.map((e) => e.type).sort(), 'the same events: no usage record or tool start written twice')
  const ids = new Set(evs.map((e) => e.id))
  t.same(evs.slice(1).filter((e) => !ids.has(e.parentId)).map((e) => e.type), [], 'every parentId names an event of the log')
})
