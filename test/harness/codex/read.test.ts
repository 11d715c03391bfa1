import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FerryError } from '../../../lib/errors.js'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { FIXTURE, kit, rollouts, tempDir, zstd } from '../../kit.js'

const { classic: CLASSIC_ID, codemode: CODEMODE_ID, legacy: LEGACY_ID } = FIXTURE.codex
const cx = kit('codex')

const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')
const local = (id: string) => id.slice(id.lastIndexOf(':') + 1)

t.test('classic dialect (0.171 shape): messages, context, reasoning, tools, exit codes, usage, passthrough', async (t) => {
  const home = cx.home(t, 'classic')
  const { recs, error } = await cx.readSettled(cx.ctx(home), CLASSIC_ID)
  t.equal(error, undefined)
  t.equal(recs[0]!.kind, 'session')
  t.equal(recs.at(-1)!.kind, 'end')
  const s = recs[0] as any
  t.equal(s.sid, `codex:${CLASSIC_ID}`)
  t.equal(s.cwd, '/home/dev/demo-app')
  t.equal(s.model, 'gpt-5.5')
  t.equal(s.provider, 'openai')
  t.equal(s.source.agent_version, '0.171.0')
  t.same(s.git, { branch: 'main', commit: '0123abc' })
  t.equal(s.title, 'Why does `npm test` fail?')
  t.same(recs.slice(1, -1).map((r) => local(r.id)), Array.from({ length: 25 }, (_, i) => `o${i + 1}`), 'one record per line, ids from ordinals')

  const m = msgs(recs)
  const dev = m.find((r) => r.role === 'system')!
  t.ok(dev.context, 'developer message is context')
  const env = m.find((r) => r.role === 'user' && (r.blocks[0] as any).text?.startsWith('<environment_context>'))!
  t.equal(env.context_kind, 'environment')
  const prompt = m.find((r) => r.role === 'user' && !r.context && r.blocks[0]!.type === 'text')!
  t.equal((prompt.blocks[0] as any).text, 'Why does `npm test` fail?')
  const think = m.find((r) => r.blocks[0]!.type === 'thinking')!
  t.match(think.blocks[0], { text: 'Check package.json, then run the tests.', encrypted: 'enc-opaque-reasoning-0001', provider: 'openai' })
  const uses = m.flatMap((r) => r.blocks).filter((b) => b.type === 'tool_use') as any[]
  t.same(uses.map((u) => u.name), ['exec_command', 'exec_command', 'apply_patch'], 'native names at read time')
  t.same(uses[0].input, { cmd: 'cat package.json', workdir: '/home/dev/demo-app' })
  t.match(uses[2].input, /^\*\*\* Begin Patch/)
  const results = m.flatMap((r) => r.blocks).filter((b) => b.type === 'tool_result') as any[]
  t.same(results.map((r) => [r.tool_use_id, r.exit_code, r.is_error]), [['call_pkg', 0, false], ['call_test', 127, true], ['call_patch', 0, false]])
  const withUsage = m.filter((r) => r.usage)
  t.equal(withUsage.length, 3)
  t.same(withUsage[0]!.usage, { input_tokens: 1000, output_tokens: 40, cache_read_tokens: 200, cache_write_tokens: 0, reasoning_tokens: 10, total_tokens: 1240, scope: 'message' }, 'uncached input')
  t.equal(local(withUsage[0]!.id), 'o10', 'usage lands on the last item of the response (the function call)')
  const unknown = recs.find((r) => r.kind === 'native' && r.native_type === 'codex/ferry_future_record')
  t.ok(unknown, 'unknown record type passes through as native')
  t.same((recs.at(-1) as any).counts, { messages: 12, tool_uses: 3, native: 13, skipped_lines: 0 })
})

t.test('code mode: the exec script call carries its nested commands from item_completed', async (t) => {
  const home = cx.home(t, 'codemode')
  const { recs } = await cx.readSettled(cx.ctx(home), CODEMODE_ID)
  const m = msgs(recs)
  const use = m.flatMap((r) => r.blocks).find((b) => b.type === 'tool_use') as any
  t.equal(use.name, 'exec')
  t.match(use.input, /tools\.exec_command/)
  const res = m.flatMap((r) => r.blocks).find((b) => b.type === 'tool_result') as any
  t.equal(res.tool_use_id, 'call_exec1')
  t.same(res.content.map((p: any) => p.text), ['Script completed\nWall time 0.4 seconds\nOutput:\n', '{"scripts":{"test":"jest"}}\nsh: 1: jest: not found\n'])
  const nested = res.structured['codex.nested']
  t.same(nested.map((n: any) => [n.command.at(-1), n.exit_code]), [['cat package.json', 0], ['npm test', 127]])
  t.equal(recs.filter((r) => r.kind === 'native' && r.native_type === 'codex/event_msg:item_completed').length, 2, 'the events stay as passthrough')
})

t.test('legacy rollout: line/item ids, shell argv, wrapped outputs, local shell, web search, compaction, torn last line', async (t) => {
  const home = cx.home(t, 'legacy')
  const ctx = cx.ctx(home)
  const { recs, error } = await cx.readSettled(ctx, LEGACY_ID)
  t.equal(error, undefined, 'a torn last line is not fatal')
  const ids = recs.map((r) => local(r.id))
  t.ok(ids.includes('irs_dup'), 'first use of a payload id gives an i-locator')
  t.ok(ids.includes('l6'), 'its duplicate falls back to the line number')
  t.ok(ids.includes('l18#1') && ids.includes('l18#2'), 'replacement history: one line, several records')
  const d = ctx.diagnostics.items.find((i) => i.code === 'torn-line')!
  t.same(d.position, { file: rollouts(home)[0], line: 22 }, 'torn line reported with its 1-based number')
  t.equal(d.source, 'codex')
  t.notOk(ctx.diagnostics.items.some((i) => i.code === 'bad-line'), 'a torn last line is not reported as a bad line')
  t.equal((recs.at(-1) as any).counts.skipped_lines, 1)
  const s = recs[0] as any
  t.equal(s.git.remote, 'https://example.invalid/demo.git', 'credentials stripped from the remote')
  const m = msgs(recs)
  const img = m.flatMap((r) => r.blocks).find((b) => b.type === 'image') as any
  t.same(img, { type: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' })
  t.equal(m.find((r) => r.context && r.context_kind === 'instructions')!.role, 'user')
  const blocks = m.flatMap((r) => r.blocks) as any[]
  t.same(blocks.find((b) => b.name === 'shell').input.command, ['bash', '-lc', 'ls'])
  t.match(blocks.find((b) => b.tool_use_id === 'call_ls'), { content: 'package.json\n', exit_code: 0, is_error: false })
  t.equal(blocks.find((b) => b.name === 'update_plan').input, 'not json {', 'unparsable arguments kept raw')
  t.same(blocks.find((b) => b.name === 'local_shell').input.command, ['cat', 'package.json'])
  const ws = blocks.find((b) => b.name === 'web_search')
  t.equal(ws.id, `codex:${LEGACY_ID}:l13#call`, 'synthesized call id')
  const b = recs.find((r) => r.kind === 'boundary') as any
  t.match(b, { type: 'compaction', summary: /jest is not installed/, replaces_history: true })
  t.equal(m.filter((r) => r.context_kind === 'summary').length, 2)
  t.ok(m.find((r) => r.usage && r.role === 'assistant'), 'token_count usage attached across the agent_message event')
})

t.test('ids are identical for a rollout read plain and read as .jsonl.zst', async (t) => {
  for (const [fix, id] of [['classic', CLASSIC_ID], ['codemode', CODEMODE_ID], ['legacy', LEGACY_ID]] as const) {
    const home = cx.home(t, fix)
    const plain = await cx.readSettled(cx.ctx(home), id, { native: true })
    const file = rollouts(join(home, '.codex', 'sessions'))[0]!
    zstd(file, false)
    const z = await cx.readSettled(cx.ctx(home), id, { native: true })
    t.equal((z.recs[0] as any).source.locator.compressed, true, `${fix}: read from .zst`)
    t.same(z.recs.map((r) => r.id), plain.recs.map((r) => r.id), `${fix}: same ids`)
    t.same(z.recs.map((r: any) => r.native?.raw), plain.recs.map((r: any) => r.native?.raw), `${fix}: same raw lines`)
  }
})

t.test('native: true attaches each original line; native records always carry raw', async (t) => {
  const home = cx.home(t, 'classic')
  const { recs } = await cx.readSettled(cx.ctx(home), CLASSIC_ID, { native: true })
  const lines = readFileSync(rollouts(home)[1]!, 'utf8').split('\n')
  for (const r of recs.slice(0, -1) as any[]) t.equal(r.native.raw, lines[r.native.line], r.id)
  const { recs: bare } = await cx.readSettled(cx.ctx(home), CLASSIC_ID)
  t.notOk(bare.some((r: any) => r.native), 'no native without the option')
})

t.test('a truncated .zst gives every complete line, then a located FerryError', async (t) => {
  const dir = tempDir(t)
  const id = '019a0000-0000-7000-8000-00000000abcd'
  const file = join(dir, '.codex', 'sessions', '2026', '11', '05', `rollout-2026-11-05T10-00-00-${id}.jsonl`)
  execFileSync('mkdir', ['-p', join(dir, '.codex', 'sessions', '2026', '11', '05')])
  const lines = [JSON.stringify({ timestamp: '2026-11-05T10:00:00.000Z', ordinal: 0, type: 'session_meta', payload: { id, timestamp: '2026-11-05T10:00:00.000Z', cwd: '/w', originator: 'x', cli_version: '0.171.0' } })]
  // Incompressible-ish text so the cut lands well inside the data.
  let seed = 7
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed.toString(36))
  for (let i = 1; i < 3000; i++) {
    lines.push(JSON.stringify({ timestamp: '2026-11-05T10:00:01.000Z', ordinal: i, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: Array.from({ length: 30 }, rnd).join(' ') }] } }))
  }
  writeFileSync(file, lines.join('\n') + '\n')
  const z = zstd(file, false)
  truncateSync(z, Math.floor(statSync(z).size / 2))
  const { recs, error } = await cx.readSettled(cx.ctx(dir), id)
  t.ok(error instanceof FerryError, 'a FerryError')
  t.equal(error.code, 'bad-zstd')
  t.equal(error.source, 'codex')
  t.equal(error.position.file, z)
  t.ok(error.position.line > 100, `names the line (${error.position.line})`)
  t.match(error.message, /line \d+/)
  const m = msgs(recs)
  t.equal(m.length, error.position.line - 2, 'every complete line before the cut was emitted')
  t.same(m.map((r) => local(r.id)), m.map((_, i) => `o${i + 1}`), 'in order, nothing skipped')
  t.equal(recs.at(-1)!.kind, 'end')
  t.equal((recs.at(-1) as any).complete, false)
})

t.test('a file that does not start with session_meta is read with a located error', async (t) => {
  const home = cx.home(t, 'classic')
  const file = rollouts(join(home, '.codex', 'sessions'))[0]!
  const lines = readFileSync(file, 'utf8').split('\n')
  writeFileSync(file, lines.slice(1).join('\n'))
  const ctx = cx.ctx(home)
  const { recs } = await cx.readSettled(ctx, file)
  t.equal(recs[0]!.kind, 'session', 'session still comes first')
  t.ok(ctx.diagnostics.items.some((d) => d.code === 'bad-meta' && d.source === 'codex' && d.position?.line === 1))
  t.ok(msgs(recs).length > 5)
  rmSync(file)
})
