// Gemini CLI: what the contract suite cannot see. Reading replays the file as
// Gemini's loader does (upserts, rewinds, checkpoints) and reads each tool
// result once; writing puts one result per call and registers the project.
import t from 'tap'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord, MessageRec, SessionRec, ToolResultBlock } from '../../../lib/model.js'
import { FIXTURE, FIXTURES, ferry, kit, tempDir } from '../../kit.js'

const gk = kit('gemini')
const HOME = join(FIXTURES, 'gemini', 'home')
const MAIN = '3f0c2a9e-1b7d-4c55-9e21-5a8d7c6b4e10'
const SECOND = 'b2c4e6f8-0a1b-4c2d-8e3f-5a6b7c8d9e0f'
const msgs = (recs: FerryRecord[], sid?: string) => recs.filter((r): r is MessageRec => r.kind === 'message' && (!sid || r.sid === sid))
const results = (ms: MessageRec[]) => ms.flatMap((m) => m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result'))
const calls = (ms: MessageRec[]) => ms.flatMap((m) => m.blocks.filter((b) => b.type === 'tool_use'))

t.test('reading replays upserts and rewinds and reads each result once', async (t) => {
  const ctx = gk.ctx(HOME)
  const recs = await gk.read(ctx, MAIN)
  const main = msgs(recs, `gemini:${MAIN}`)
  // Each model turn is written twice; it is one message, with the calls of its last copy.
  const first = main.find((m) => m.role === 'assistant')!
  t.same(first.blocks.map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use'], 'the first turn: its thought, text and both parallel calls')
  t.same(first.usage, { scope: 'message', input_tokens: 11700, output_tokens: 25, cache_read_tokens: 0, reasoning_tokens: 5, total_tokens: 11725 }, 'usage from tokens: output includes the thoughts')
  t.equal(new Set(main.map((m) => m.id)).size, main.length, 'no record twice')
  t.equal(results(main).length, calls(main).length, 'one result per call, though the file holds each twice')
  t.ok(recs.some((r) => r.kind === 'native' && r.native_type === 'gemini/function-response'), 'the separate copies pass as native')
  const image = results(main).find((b) => Array.isArray(b.content))
  t.match(image?.content, [{ type: 'text' }, { type: 'image', mime: 'image/png' }], 'the image a tool returned is in its result')
  // The rewound attempt stays, as an inactive branch; everything after the rewind is active.
  const rewound = main.filter((m) => m.branch?.active === false)
  t.same(rewound.map((m) => m.role), ['user', 'assistant'], 'the prompt and answer the rewind removed are inactive')
  t.match(rewound[0]!.blocks, [{ type: 'text', text: 'Try pnpm instead.' }], 'and the typed text is kept')
  t.ok(recs.some((r) => r.kind === 'boundary' && r.type === 'rewind'), 'the rewind is a boundary')
  const last = main.filter((m) => m.role === 'user' && !m.context && m.branch?.active !== false).at(-1)!
  t.match(last.blocks, [{ type: 'text' }, { type: 'image', mime: 'image/png' }], 'an image prompt')
  const ctxMsg = main.find((m) => m.context)
  t.equal(ctxMsg?.context_kind, 'environment', 'the <session_context> checkpoint message is context')
  // The sub-agent follows its parent, linked to the invoke_agent call.
  const sub = recs.find((r): r is SessionRec => r.kind === 'session' && r.sid !== `gemini:${MAIN}`)
  t.match(sub?.parent, { sid: `gemini:${MAIN}`, kind: 'subagent', tool_use_id: 'call_3' }, 'sub-agent linked to its call')
  t.same(ctx.diagnostics.items, [], 'no diagnostics')
})

t.test('a spilled output points at its file; a UI notice is system context', async (t) => {
  const ms = msgs(await gk.read(gk.ctx(HOME), SECOND))
  t.match(results(ms)[0]?.truncated?.ref?.path, /tool-outputs\/session-b2c4e6f8-0a1b-4c2d-8e3f-5a6b7c8d9e0f\/run_shell_command__call_9\.txt$/, 'truncated.ref')
  t.match(ms.find((m) => m.role === 'system'), { context: true, blocks: [{ text: 'Request cancelled.' }] }, 'info record')
})

t.test('writing: one result per call, the project registered, rewinds kept', async (t) => {
  const src = await gk.read(gk.ctx(HOME), MAIN)
  const home = tempDir(t)
  const written = await gk.write(gk.ctx(home), src.map((r) => ({ ...r, native: undefined }) as FerryRecord))
  const root = join(home, '.gemini')
  t.same(JSON.parse(readFileSync(join(root, 'projects.json'), 'utf8')), { projects: { '/home/dev/demo-app': 'demo-app' } }, 'projects.json')
  t.equal(readFileSync(join(root, 'tmp', 'demo-app', '.project_root'), 'utf8'), '/home/dev/demo-app', '.project_root')
  t.match(written[0], { id: MAIN, cwd: '/home/dev/demo-app', note: /resume it from \/home\/dev\/demo-app/ }, 'the note says where to resume')
  const text = readFileSync(written[0]!.path, 'utf8')
  const lines = text.trim().split('\n').map((l) => JSON.parse(l))
  const nCalls = lines.reduce((n, l) => n + (l.toolCalls?.length ?? 0), 0)
  t.equal((text.match(/"functionResponse"/g) ?? []).length, nCalls, 'each result once, inside its call')
  t.ok(lines.some((l) => typeof l.$rewindTo === 'string'), 'the inactive records are rewound again')
  t.match(written[1]?.path, new RegExp(`/chats/${MAIN}/[0-9a-f-]+\\.jsonl$`), 'the sub-agent under its parent')
  const back = msgs(await gk.read(gk.ctx(home), MAIN), `gemini:${MAIN}`)
  t.same(back.filter((m) => m.branch?.active === false).map((m) => m.role), ['user', 'assistant'], 'read back: the same inactive records')
  t.equal(results(back).length, calls(back).length, 'read back: one result per call')
})

t.test('a project whose short id another root owns gets the next one', async (t) => {
  const home = tempDir(t)
  const root = join(home, '.gemini')
  mkdirSync(join(root, 'tmp', 'demo-app'), { recursive: true })
  writeFileSync(join(root, 'tmp', 'demo-app', '.project_root'), '/elsewhere/demo-app')
  writeFileSync(join(root, 'projects.json'), JSON.stringify({ projects: { '/elsewhere/demo-app': 'demo-app' } }, null, 2))
  const src = await gk.read(gk.ctx(HOME), SECOND)
  const [w] = await gk.write(gk.ctx(home), src)
  t.match(w?.path, /\/tmp\/demo-app-1\/chats\/session-/, 'demo-app-1')
  t.same(JSON.parse(readFileSync(join(root, 'projects.json'), 'utf8')).projects, { '/elsewhere/demo-app': 'demo-app', '/home/dev/demo-app': 'demo-app-1' }, 'both projects registered')
  t.same(readdirSync(join(root, 'tmp', 'demo-app')), ['.project_root'], 'the other project untouched')
})

t.test('a Claude Code session into Gemini through the CLI', async (t) => {
  const home = tempDir(t)
  const r = await ferry(['--home', FIXTURE.claudeCode.home, 'convert', `claude-code:${FIXTURE.claudeCode.feature}`, '--to', 'gemini', '--out', join(home, '.gemini'), '--json'], { env: { PATH: '/nonexistent' } })
  t.equal(r.code, 0, r.stderr)
  const w = JSON.parse(r.stdout.split('\n')[0]!)
  const text = readFileSync(w.path, 'utf8')
  const lines = text.trim().split('\n').map((l) => JSON.parse(l))
  t.match(lines[0], { sessionId: w.id, kind: 'main' }, 'a metadata line first')
  t.notOk(lines.some((l) => l.type === 'user' && Array.isArray(l.content) && l.content.some((p: any) => p.functionResponse)), 'no separate functionResponse record')
  const nCalls = lines.reduce((n, l) => n + (l.toolCalls?.length ?? 0), 0)
  t.ok(nCalls > 0, 'calls written')
  t.equal((text.match(/"functionResponse"/g) ?? []).length, nCalls, 'one result per call')
})
