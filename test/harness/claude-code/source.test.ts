import t from 'tap'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BoundaryRec, EndRec, FerryRecord, MessageRec, NativeRec, SessionRec, ToolResultBlock } from '../../../lib/model.js'
import { claudeCode } from '../../../lib/harness/claude-code/index.js'
import { FIXTURE, kit, longLineSession } from '../../kit.js'

const { home: FIXTURE_HOME, project: PROJECT, feature: FEATURE_ID, damaged: DAMAGED_ID, agent: AGENT_ID, long: LONG_ID } = FIXTURE.claudeCode
const cc = kit('claude-code')

const sid = `claude-code:${FEATURE_ID}`
const msgs = (recs: FerryRecord[], s = sid) => recs.filter((r): r is MessageRec => r.kind === 'message' && r.sid === s)
const texts = (m: MessageRec) => m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')

t.test('session header, then records in file order, then end; sub-agent session follows', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID)
  const heads = recs.filter((r): r is SessionRec => r.kind === 'session')
  t.equal(heads.length, 2)
  t.match(heads[0], {
    sid, native_id: FEATURE_ID, cwd: '/home/dev/demo-app', title: 'Fix the red build', title_source: 'custom',
    model: 'claude-sonnet-4-5', git: { branch: 'main' }, source: { harness: 'claude-code', agent_version: '2.1.332', locator: { path: join(PROJECT, `${FEATURE_ID}.jsonl`) } },
    created_at: '2026-11-02T09:15:00.000Z',
  })
  t.equal(recs[0]!.kind, 'session')
  const ends = recs.map((r, i) => [r, i] as const).filter(([r]) => r.kind === 'end')
  t.equal(ends.length, 2)
  t.equal(recs.indexOf(heads[1]!), ends[0]![1] + 1, 'sub-agent session starts after the parent ends')
  t.match(heads[1], { sid: `claude-code:agent-${AGENT_ID}`, parent: { sid, kind: 'subagent', tool_use_id: 'toolu_syn_03', agent_id: AGENT_ID }, title: 'Check jest config' })
  const sub = msgs(recs, heads[1]!.sid)
  t.same(sub.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'], 'sidechain entries are the sub-agent conversation')
  const seqs = recs.filter((r) => r.sid === sid && 'seq' in r && r.seq !== undefined).map((r) => (r as MessageRec).seq)
  t.same(seqs, [...seqs].sort((a, b) => a! - b!), 'seq increases')
})

t.test('the active branch only; the abandoned one is counted, not emitted', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID)
  const all = msgs(recs)
  t.notOk(all.some((m) => texts(m).includes('OLD-BRANCH')))
  t.ok(all.some((m) => texts(m) === 'Instead, just tell me the fix.'))
  const end = recs.find((r): r is EndRec => r.kind === 'end' && r.sid === sid)!
  t.equal(end.counts!.inactive, 3)
  t.equal(end.complete, true)
  // parent links follow the native graph, across the compaction boundary
  const fix = all.find((m) => texts(m) === 'Instead, just tell me the fix.')!
  t.equal(fix.parent, `${sid}:u3f1c9a2e-0000-4000-8000-000000000012`)
})

t.test('split assistant lines become one message, usage counted once', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID, { native: true })
  const first = msgs(recs).find((m) => m.role === 'assistant')!
  t.same(first.blocks.map((b) => b.type), ['thinking', 'text', 'tool_use'])
  t.equal(first.api_message_id, 'msg_syn_A1')
  t.equal(first.id, `${sid}:u3f1c9a2e-0000-4000-8000-000000000004`, 'id of the first line')
  t.same(first.usage, { scope: 'message', input_tokens: 1200, output_tokens: 64, cache_read_tokens: 800, cache_write_tokens: 0 })
  t.equal(first.stop_reason, 'tool_use')
  t.equal(first.native!.merged!.length, 2)
  t.match(first.blocks[0], { type: 'thinking', signature: 'sig-synthetic-A1', provider: 'anthropic' })
  t.match(first.blocks[2], { type: 'tool_use', id: 'toolu_syn_01', name: 'Read', input: { file_path: '/home/dev/demo-app/package.json' } })
  const usages = msgs(recs).filter((m) => m.api_message_id === 'msg_syn_A1' && m.usage)
  t.equal(usages.length, 1)
})

t.test('tool results pair with calls and keep toolUseResult; spilled output as a reference or inlined', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID)
  const results = msgs(recs).flatMap((m) => m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result'))
  const read = results.find((r) => r.tool_use_id === 'toolu_syn_01')!
  t.match(read.structured, { type: 'text', file: { filePath: '/home/dev/demo-app/package.json' } })
  const spilled = results.find((r) => r.tool_use_id === 'toolu_syn_02')!
  const spillPath = join(PROJECT, FEATURE_ID, 'tool-results', 'b7x1k2qzp.txt')
  t.match(spilled, { is_error: true, truncated: { ref: { path: spillPath } } })
  t.equal(spilled.truncated!.original_bytes, readFileSync(spillPath).length)
  t.match(spilled.content, /^<persisted-output>/)

  const inl = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID, { inlineSpilled: true, native: true })
  const full = msgs(inl).flatMap((m) => m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result')).find((r) => r.tool_use_id === 'toolu_syn_02')!
  t.equal(full.content, readFileSync(spillPath, 'utf8'))
  t.notOk(full.truncated)
  const holder = msgs(inl).find((m) => m.blocks.includes(full))!
  t.notOk(holder.native, 'a record whose content changed carries no native bytes')
  const agent = results.find((r) => r.tool_use_id === 'toolu_syn_03')!
  t.same(agent.content, [{ type: 'text', text: 'jest is listed in scripts but not in devDependencies.' }])
})

t.test('images, context, slash commands, compaction, unknown types', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID)
  const m = msgs(recs)
  t.match(m[0]!.blocks[1], { type: 'image', mime: 'image/png', data: /^iVBORw0KGgo/ })
  t.notOk(m[0]!.context)
  const env = m.find((x) => x.x?.['claude-code.attachment'] === 'environment')!
  t.match(env, { role: 'system', context: true, context_kind: 'environment' })
  t.match(m.find((x) => texts(x).startsWith('<local-command-caveat>')), { context: true, context_kind: 'command' })
  t.match(m.find((x) => texts(x).startsWith('<system-reminder>\nThe user changed')), { context: true, context_kind: 'reminder' })
  t.match(m.find((x) => texts(x).startsWith('This session is being continued')), { context: true, context_kind: 'summary' })
  const call = m.find((x) => x.blocks[0]?.type === 'tool_use' && x.role === 'user')!
  t.match(call.blocks[0], { type: 'tool_use', name: '/model', input: { args: 'sonnet' } })
  const out = m[m.indexOf(call) + 1]!
  t.match(out, { role: 'user', context: true, context_kind: 'command', blocks: [{ type: 'tool_result', tool_use_id: (call.blocks[0] as { id: string }).id, content: 'Set model to sonnet' }] })
  t.notOk(texts(m.find((x) => texts(x) === 'So what is the fix?')!).includes('<'), 'a typed prompt stays a plain prompt')
  t.notOk(m.find((x) => texts(x) === 'So what is the fix?')!.context)

  const b = recs.find((r): r is BoundaryRec => r.kind === 'boundary')!
  t.match(b, { type: 'compaction', trigger: 'manual', pre_tokens: 48210, replaces_history: true })
  const nat = recs.filter((r): r is NativeRec => r.kind === 'native').map((r) => r.native_type)
  t.ok(nat.includes('claude-code/future-thing'), 'an unknown record type is kept as native')
  t.ok(nat.includes('claude-code/queue-operation') && nat.includes('claude-code/custom-title') && nat.includes('claude-code/api-request'))
  t.notOk(recs.some((r) => r.native), 'no native bytes unless asked')
})

t.test('native: true attaches the exact line to every record, off-branch lines included', async (t) => {
  const recs = await cc.read(cc.ctx(FIXTURE_HOME), FEATURE_ID, { native: true })
  const file = readFileSync(join(PROJECT, `${FEATURE_ID}.jsonl`), 'utf8').split('\n').slice(0, -1)
  const seen = new Map<number, string>()
  for (const r of recs) {
    if (r.kind === 'stream' || r.kind === 'session' || r.kind === 'end' || r.sid !== sid || r.native?.file) continue
    t.ok(r.native?.raw !== undefined, `${r.id} carries raw`)
    seen.set(r.native!.line!, r.native!.raw!)
    for (const x of r.native!.merged ?? []) seen.set(x.line!, x.raw!)
  }
  t.equal(seen.size, file.length, 'every line is carried by some record')
  for (const [no, raw] of seen) t.equal(raw, file[no])
  const off = recs.filter((r) => r.x?.['claude-code.inactive'] === true)
  t.equal(off.length, 3)
})

t.test('a damaged file: NUL-prefixed line read, torn last line reported with its position', async (t) => {
  const ctx = cc.ctx(FIXTURE_HOME)
  const recs = await cc.read(ctx, DAMAGED_ID)
  const m = msgs(recs, `claude-code:${DAMAGED_ID}`)
  t.same(m.map(texts), ['Summarise the README.', 'The README explains how to run the demo app.', 'And the licence?'])
  const end = recs.find((r): r is EndRec => r.kind === 'end')!
  t.equal(end.complete, false)
  t.equal(end.counts!.skipped_lines, 1)
  const d = ctx.diagnostics.items.find((x) => x.code === 'torn-line')!
  t.match(d, { severity: 'error', source: 'claude-code', position: { file: join(PROJECT, `${DAMAGED_ID}.jsonl`), line: 4 } })
  t.match(end.warnings, [{ code: 'torn-line', at: `${join(PROJECT, `${DAMAGED_ID}.jsonl`)}:4` }])
})

t.test('the run\'s line cap (ctx.maxLineBytes) holds on every read path', async (t) => {
  const home = cc.home(t)
  const path = longLineSession(home, 5000)
  const ctx = cc.ctx(home, { maxLineBytes: 1000 })
  const recs = await cc.read(ctx, LONG_ID, { native: true })
  const over = ctx.diagnostics.items.filter((d) => d.code === 'line-too-long')
  t.match(over, [{ severity: 'error', source: 'claude-code', position: { file: path, line: 2 } }], 'once, with file and line')
  t.same(msgs(recs, `claude-code:${LONG_ID}`).map(texts), ['Print the log.', 'Here it is.', 'Thanks.'])
  const end = recs.find((r): r is EndRec => r.kind === 'end')!
  t.match(end, { complete: false, counts: { skipped_lines: 1 }, warnings: [{ code: 'line-too-long', at: `${path}:2` }] })
  t.notOk(recs.some((r) => r.native?.raw?.includes('xxxx')), 'nothing of the over-long line is carried')
  // Discovery passes over it and still finds the session's metadata.
  const info = await claudeCode.resolve!(ctx, LONG_ID)
  t.match(info, { cwd: '/home/dev/demo-app', model: 'claude-sonnet-4-5', title: 'Print the log.' })
  // The cap is the context's: a larger one reads the line.
  const wide = cc.ctx(home, { maxLineBytes: 10_000 })
  await cc.read(wide, LONG_ID)
  t.equal(wide.diagnostics.errors, 0)
})

t.test('a sub-agent without its meta file is read without a warning', async (t) => {
  const home = cc.home(t)
  rmSync(join(home, '.claude', 'projects', '-home-dev-demo-app', FEATURE_ID, 'subagents', `agent-${AGENT_ID}.meta.json`))
  const ctx = cc.ctx(home)
  const recs = await cc.read(ctx, FEATURE_ID)
  t.match(recs.find((r) => r.kind === 'session' && r.sid === `claude-code:agent-${AGENT_ID}`), { parent: { kind: 'subagent', tool_use_id: 'toolu_syn_03' } }, 'linked through the parent\'s toolUseResult')
  t.same(ctx.diagnostics.items.filter((d) => d.code === 'bad-meta'), [])
})
