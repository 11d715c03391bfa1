// Qwen Code: what the contract suite cannot see. Reading follows the
// parentUuid chain Qwen resumes (a rewound branch is inactive), keeps the
// injected reminders apart from what was typed, and links sub-agents by their
// meta file; writing makes one continuous chain Qwen can walk.
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { FIXTURE, FIXTURES, ferry, kit, tempDir } from '../../kit.js'

const qk = kit('qwen')
const HOME = join(FIXTURES, 'qwen', 'home')
const MAIN = 'd3b1c0de-5e6f-4a7b-8c9d-0e1f2a3b4c5d'
const SECOND = 'e4c2d1ef-6f70-4b8c-9dae-1f2a3b4c5d6e'
const msgs = (recs: FerryRecord[], sid?: string) => recs.filter((r): r is MessageRec => r.kind === 'message' && (!sid || r.sid === sid))
const count = (ms: MessageRec[], type: string) => ms.reduce((n, m) => n + m.blocks.filter((b) => b.type === type).length, 0)

t.test('reading: the active chain, reminders as context, the sub-agent linked', async (t) => {
  const ctx = qk.ctx(HOME)
  const recs = await qk.read(ctx, MAIN)
  const main = msgs(recs, `qwen:${MAIN}`)
  t.same(main.filter((m) => m.branch?.active === false).map((m) => m.role), ['user', 'assistant'], 'the rewound branch is inactive')
  t.match(main.find((m) => m.branch?.active === false)?.blocks, [{ type: 'text', text: 'Try pnpm instead.' }], 'its typed text kept')
  const reminder = main.find((m) => m.context)
  t.match(reminder, { context_kind: 'reminder', blocks: [{ type: 'text', text: /^<system-reminder>/ }] }, 'the injected reminder is a context message')
  const typed = main[main.indexOf(reminder!) + 1]!
  t.match(typed.blocks, [{ type: 'text', text: 'Here is the error screenshot.' }, { type: 'image', mime: 'image/png' }], 'what the user typed beside it is the prompt')
  const first = main.find((m) => m.role === 'assistant')!
  t.same(first.blocks.map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use'], 'thought part, text and parallel calls')
  t.same(first.usage, { scope: 'message', input_tokens: 18900, output_tokens: 40, cache_read_tokens: 0, reasoning_tokens: 20, total_tokens: 18940 }, 'usage from usageMetadata')
  t.equal(count(main, 'tool_result'), count(main, 'tool_use'), 'one result per call')
  t.ok(recs.some((r) => r.kind === 'native' && r.native_type === 'qwen/system:ui_telemetry'), 'system records pass as native')
  const sub = recs.find((r): r is SessionRec => r.kind === 'session' && r.sid !== `qwen:${MAIN}`)
  t.match(sub, { native_id: 'agent-general-purpose-call_agent_1', parent: { sid: `qwen:${MAIN}`, kind: 'subagent', tool_use_id: 'call_agent_1' } }, 'sub-agent linked to its call')
  t.same(ctx.diagnostics.items, [], 'no diagnostics')
})

t.test('a compression is a boundary; a spilled output points at its file', async (t) => {
  const recs = await qk.read(qk.ctx(HOME), SECOND)
  t.match(recs.find((r) => r.kind === 'boundary'), { type: 'compaction', replaces_history: true, summary: /Summary: the repo has two files/, pre_tokens: 40000 }, 'compaction')
  const res = msgs(recs).flatMap((m) => m.blocks).find((b) => b.type === 'tool_result')
  t.match(res, { truncated: { ref: { path: '/home/dev/.qwen/tmp/0f0e/run_shell_command_ab12cd34ef56.output' } } }, 'truncated.ref')
})

t.test('writing: one chain, one result per call, the branch kept off it', async (t) => {
  const src = await qk.read(qk.ctx(HOME), MAIN)
  const home = tempDir(t)
  const written = await qk.write(qk.ctx(home), src.map((r) => ({ ...r, native: undefined }) as FerryRecord))
  t.match(written[0], { id: MAIN, cwd: '/home/dev/demo-app', path: /\/\.qwen\/projects\/-home-dev-demo-app\/chats\/d3b1c0de-[^/]+\.jsonl$/, note: /resume it from \/home\/dev\/demo-app/ }, 'where, and the note')
  const lines = readFileSync(written[0]!.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  const byUuid = new Map(lines.map((l) => [l.uuid, l]))
  t.ok(lines.every((l, i) => i === 0 ? l.parentUuid === null : byUuid.has(l.parentUuid)), 'every parentUuid names a record of the file')
  const calls = lines.flatMap((l) => (l.type === 'assistant' ? l.message.parts.filter((p: any) => p.functionCall) : []))
  t.equal(lines.filter((l) => l.type === 'tool_result').length, calls.length, 'one tool_result record per call')
  t.ok(lines.every((l) => l.type !== 'assistant' || l.message.role === 'model'), "assistant records carry role 'model'")
  const back = msgs(await qk.read(qk.ctx(home), MAIN), `qwen:${MAIN}`)
  t.same(back.filter((m) => m.branch?.active === false).map((m) => m.role), ['user', 'assistant'], 'read back: the same inactive records')
  t.ok(back.some((m) => m.context_kind === 'reminder'), 'read back: the reminder is context again')
  t.match(written[1]?.path, /\/subagents\/[0-9a-f-]+\/agent-general-purpose-call_agent_1\.jsonl$/, 'the sub-agent under its parent')
  t.ok(existsSync(written[1]!.path.replace(/\.jsonl$/, '.meta.json')), 'with its meta file')
})

t.test('a Claude Code session into Qwen Code through the CLI', async (t) => {
  const home = tempDir(t)
  const r = await ferry(['--home', FIXTURE.claudeCode.home, 'convert', `claude-code:${FIXTURE.claudeCode.feature}`, '--to', 'qwen', '--out', join(home, '.qwen'), '--json'], { env: { PATH: '/nonexistent' } })
  t.equal(r.code, 0, r.stderr)
  const w = JSON.parse(r.stdout.split('\n')[0]!)
  const lines = readFileSync(w.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  const calls = lines.flatMap((l) => (l.type === 'assistant' ? l.message.parts.filter((p: any) => p.functionCall).map((p: any) => p.functionCall.id) : []))
  const answered = lines.filter((l) => l.type === 'tool_result').map((l) => l.message.parts[0].functionResponse.id)
  t.ok(calls.length > 0, 'calls written')
  t.same([...answered].sort(), [...calls].sort(), 'each call answered once')
  t.ok(lines.every((l) => l.sessionId === w.id && l.cwd === '/home/dev/demo-app'), 'the envelope names the session and its cwd')
})
