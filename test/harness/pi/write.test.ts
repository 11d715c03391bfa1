import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { kit, tempDir } from '../../kit.js'

const k = kit('pi')
const SID = 'codex:01a0c0de-0000-7000-8000-000000000001'
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const usage = { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 200, scope: 'message' as const }

let n = 0
const msg = (role: MessageRec['role'], blocks: MessageRec['blocks'], more: Partial<MessageRec> = {}): MessageRec => ({ kind: 'message', sid: SID, id: `${SID}:m${++n}`, role, ts: `2026-11-20T10:00:${String(n).padStart(2, '0')}.000Z`, blocks, ...more })

/** A session from another agent with everything Pi must take: split parallel calls, images, thinking, a sub-agent, a compaction, a branch. */
function stream(): FerryRecord[] {
  n = 0
  return [
    { kind: 'session', ferry: '1.0', sid: SID, id: `${SID}:session`, source: { harness: 'codex', locator: {} }, native_id: '01a0c0de-0000-7000-8000-000000000001', cwd: '/home/dev/demo-app', created_at: '2026-11-20T10:00:00.000Z', model: 'gpt-5.5' },
    msg('user', [{ type: 'text', text: '<environment_context>cwd</environment_context>' }], { context: true, context_kind: 'environment' }),
    msg('user', [{ type: 'text', text: 'Run both probes and look at the picture.' }, { type: 'image', mime: 'image/png', data: PNG }]),
    msg('assistant', [{ type: 'thinking', text: 'Two independent commands.', encrypted: 'gAAAA-opaque', provider: 'openai' }], { model: 'gpt-5.5' }),
    msg('assistant', [{ type: 'tool_use', id: 'call_A', name: 'Bash', input: { command: 'echo one', timeout: 120000 } }], { model: 'gpt-5.5' }),
    msg('assistant', [{ type: 'tool_use', id: 'call_B', name: 'Read', input: { file_path: '/home/dev/demo-app/shot.png' } }], { model: 'gpt-5.5', usage, stop_reason: 'tool_use' }),
    msg('user', [{ type: 'tool_result', tool_use_id: 'call_A', content: 'one\n' }]),
    msg('user', [{ type: 'tool_result', tool_use_id: 'call_B', content: [{ type: 'text', text: 'an image' }, { type: 'image', mime: 'image/png', data: PNG }] }]),
    msg('assistant', [{ type: 'tool_use', id: 'call_T', name: 'Task', input: { description: 'check', prompt: 'Check the config' } }], { model: 'gpt-5.5' }),
    msg('user', [{ type: 'tool_result', tool_use_id: 'call_T', content: 'SUBAGENT-ANSWER: the config is fine' }]),
    { kind: 'boundary', sid: SID, id: `${SID}:c1`, type: 'compaction', ts: '2026-11-20T10:00:40.000Z', summary: 'SUMMARY: probes ran, config fine.', pre_tokens: 9000 },
    msg('user', [{ type: 'text', text: 'SUMMARY: probes ran, config fine.' }], { context: true, context_kind: 'summary' }),
    msg('user', [{ type: 'text', text: 'Now finish.' }]),
    msg('assistant', [{ type: 'text', text: 'FINAL-ANSWER' }], { model: 'gpt-5.5', stop_reason: 'end_turn' }),
    msg('assistant', [{ type: 'text', text: 'an answer the user rewound' }], { model: 'gpt-5.5', branch: { active: false } }),
  ]
}

function sessionFile(home: string): string {
  const dir = join(home, '.pi', 'agent', 'sessions', '--home-dev-demo-app--')
  const f = readdirSync(dir)
  return join(dir, f[0]!)
}

t.test('a session from another agent is written the way Pi writes its own', async (t) => {
  const home = tempDir(t, 'ferry-pi-w-')
  const [w] = await k.write(k.ctx(home), stream())
  const file = sessionFile(home)
  t.equal(w!.path, file)
  t.match(file, /\/--home-dev-demo-app--\/2026-11-20T10-00-00-000Z_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$/, "Pi's folder and file name, a UUID v7")
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  t.same(lines[0], { type: 'session', version: 3, id: w!.id, timestamp: '2026-11-20T10:00:00.000Z', cwd: '/home/dev/demo-app' }, 'a valid version-3 header first')
  const entries = lines.slice(1)
  const seen = new Set<string>()
  for (const e of entries) {
    t.match(e.id, /^[0-9a-f]{8}$/, 'Pi-style entry id')
    t.notOk(seen.has(e.id), 'unique')
    t.ok(e.parentId === null ? seen.size === 0 : seen.has(e.parentId), 'the parent is an earlier entry')
    seen.add(e.id)
  }
  const assistants = entries.filter((e) => e.type === 'message' && e.message.role === 'assistant').map((e) => e.message)
  for (const a of assistants) t.match(a.usage, { input: Number, output: Number, cacheRead: Number, cacheWrite: Number, totalTokens: Number, cost: { total: Number } }, 'usage on every assistant message')
  const par = assistants[0]
  t.same(par.content.map((c: any) => c.type), ['thinking', 'toolCall', 'toolCall'], 'the split response is one message with both calls')
  t.same(par.content[0], { type: 'thinking', thinking: 'Two independent commands.' }, "another provider's opaque reasoning is not replayed")
  t.same(par.content.slice(1).map((c: any) => [c.name, c.arguments]), [['bash', { command: 'echo one', timeout: 120 }], ['read', { path: '/home/dev/demo-app/shot.png' }]])
  t.match(par, { api: 'openai-responses', provider: 'openai', model: 'gpt-5.5', stopReason: 'toolUse', usage: { input: 1000, output: 50, cacheRead: 200, totalTokens: 1250 } })
  const results = entries.filter((e) => e.message?.role === 'toolResult').map((e) => e.message)
  t.same(results.map((r) => [r.toolCallId, r.toolName]), [['call_A', 'bash'], ['call_B', 'read'], ['call_T', 'Task']])
  t.same(results[1].content[1], { type: 'image', data: PNG, mimeType: 'image/png' }, 'an image in a tool result')
  t.same(results[2].content, [{ type: 'text', text: 'SUBAGENT-ANSWER: the config is fine' }], "the sub-agent's answer is the tool result")
  const user = entries.find((e) => e.message?.role === 'user').message
  t.same(user.content.map((c: any) => c.type), ['text', 'image'], 'an image in a user message')
  const env = entries.find((e) => e.type === 'custom' && e.data?.kind === 'environment')
  t.ok(env, "the other agent's injected context is kept out of the model's context, not dropped")
  const ci = entries.findIndex((e) => e.type === 'compaction')
  t.match(entries[ci], { summary: 'SUMMARY: probes ran, config fine.', tokensBefore: 9000 })
  t.equal(entries[ci].firstKeptEntryId, entries[ci + 1].id, 'the first kept entry is the one after the compaction')
  // Pi's context: the path from the last line up to the root.
  const byId = new Map(entries.map((e) => [e.id, e]))
  const path: any[] = []
  for (let e: any = entries.at(-1); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e)
  const texts = path.filter((e) => e.type === 'message').flatMap((e) => (Array.isArray(e.message.content) ? e.message.content : [])).map((c: any) => c.text).filter(Boolean)
  t.ok(texts.includes('FINAL-ANSWER'), 'the active answer is on the resumed path')
  t.notOk(texts.includes('an answer the user rewound'), 'the inactive branch is not')
  t.ok(entries.some((e) => e.message?.content?.[0]?.text === 'an answer the user rewound'), 'but it is in the file')
})

t.test('the same stream written twice is the same file (stable ids)', async (t) => {
  const a = tempDir(t, 'ferry-pi-w-')
  const b = tempDir(t, 'ferry-pi-w-')
  await k.write(k.ctx(a), stream())
  await k.write(k.ctx(b), stream())
  t.equal(readFileSync(sessionFile(a), 'utf8'), readFileSync(sessionFile(b), 'utf8'))
})

t.test('what Pi writes reads back as the same conversation', async (t) => {
  const home = tempDir(t, 'ferry-pi-w-')
  const [w] = await k.write(k.ctx(home), stream())
  const recs = await k.read(k.ctx(home), w!.id)
  const active = recs.filter((r): r is MessageRec => r.kind === 'message' && r.branch?.active !== false && !r.context)
  const kinds = active.map((m) => `${m.role}:${m.blocks.map((b) => b.type).join('+')}`)
  t.same(kinds, ['user:text+image', 'assistant:thinking+tool_use+tool_use', 'user:tool_result', 'user:tool_result', 'assistant:tool_use', 'user:tool_result', 'user:text', 'assistant:text'])
  t.match(recs.find((r) => r.kind === 'boundary'), { type: 'compaction', summary: 'SUMMARY: probes ran, config fine.' })
  const call = active[1]!.blocks[1]
  t.match(call, { type: 'tool_use', name: 'bash', input: { command: 'echo one', timeout: 120 } })
})

t.test('a sub-agent session from another agent is a session of its own naming its parent file', async (t) => {
  const home = tempDir(t, 'ferry-pi-w-')
  const recs = stream()
  const sub = 'codex:01a0c0de-0000-7000-8000-0000000000aa'
  recs.push(
    { kind: 'end', sid: SID, id: `${SID}:end` },
    { kind: 'session', ferry: '1.0', sid: sub, id: `${sub}:session`, source: { harness: 'codex', locator: {} }, native_id: sub.slice(6), cwd: '/home/dev/demo-app', created_at: '2026-11-20T10:00:20.000Z', parent: { sid: SID, kind: 'subagent', tool_use_id: 'call_T' } },
    { kind: 'message', sid: sub, id: `${sub}:m1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'Check the config' }] },
    { kind: 'message', sid: sub, id: `${sub}:m2`, role: 'assistant', ts: null, blocks: [{ type: 'text', text: 'SUBAGENT-ANSWER: the config is fine' }] },
  )
  const written = await k.write(k.ctx(home), recs)
  t.equal(written.length, 2)
  const header = JSON.parse(readFileSync(written[1]!.path, 'utf8').split('\n')[0]!)
  t.equal(header.parentSession, written[0]!.path)
})

t.test("a Pi session read without its raw lines is written back with the same tree", async (t) => {
  const { cpSync } = await import('node:fs')
  const { FIXTURES } = await import('../../kit.js')
  const src = tempDir(t, 'ferry-pi-src-')
  cpSync(join(FIXTURES, 'pi', 'home'), src, { recursive: true })
  const recs = await k.read(k.ctx(src), '019a8f2c', { native: false })
  const out = tempDir(t, 'ferry-pi-w-')
  const [w] = await k.write(k.ctx(out), recs)
  const orig = readFileSync(join(src, '.pi/agent/sessions/--home-dev-demo-app--/2026-11-05T14-02-11-482Z_019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  const back = readFileSync(w!.path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  t.same(back.map((e) => [e.type, e.id, e.parentId]), orig.map((e) => [e.type, e.id, e.parentId]), 'every entry, its id and its parent')
  t.same(back.at(-1), orig.at(-1), 'the same leaf')
})
