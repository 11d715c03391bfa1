import t from 'tap'
import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BoundaryRec, MessageRec, NativeRec, SessionRec } from '../../../lib/model.js'
import { FIXTURES, kit, tempDir } from '../../kit.js'

const k = kit('pi')
const S1 = '019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c'
const FILE1 = '.pi/agent/sessions/--home-dev-demo-app--/2026-11-05T14-02-11-482Z_019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c.jsonl'

function home(t: Parameters<typeof tempDir>[0]): string {
  const h = tempDir(t, 'ferry-pi-')
  cpSync(join(FIXTURES, 'pi', 'home'), h, { recursive: true })
  return h
}

t.test('the active path is the conversation; the branch left by /tree is kept, inactive', async (t) => {
  const h = home(t)
  const recs = await k.read(k.ctx(h), S1)
  const msgs = recs.filter((r): r is MessageRec => r.kind === 'message')
  const inactive = recs.filter((r): r is NativeRec => r.kind === 'native' && r.x?.['pi.inactive'] === true)
  t.same(inactive.map((r) => [r.id.split(':').pop(), r.native_type]), [['18293a4b', 'pi/message'], ['293a4b5c', 'pi/message'], ['3a4b5c6d', 'pi/label']], 'the entries off the path, and nothing else')
  t.match(inactive[0]!.x, { 'pi.parent': `pi:${S1}:0718293a`, 'pi.fields': { message: { role: 'user', content: [{ text: 'No, switch the project to vitest instead.' }] } } }, 'with their parent and fields')
  t.notOk(msgs.some((m) => m.id.endsWith(':18293a4b')), 'not in the conversation')
  const yes = msgs.find((m) => m.id.endsWith(':4b5c6d7e'))!
  t.equal(yes.parent, `pi:${S1}:0718293a`, 'the resumed branch names its branch point as parent')
  const header = recs.find((r): r is SessionRec => r.kind === 'session')!
  t.match(header, { native_id: S1, cwd: '/home/dev/demo-app', title: 'Fix the npm test glob', title_source: 'custom', created_at: '2026-11-05T14:02:11.482Z' })
})

t.test('every entry type maps: blocks, usage, results, compaction, commands, extension messages', async (t) => {
  const recs = await k.read(k.ctx(home(t)), S1)
  const msgs = recs.filter((r): r is MessageRec => r.kind === 'message')
  const first = msgs[0]!
  t.same(first.blocks.map((b) => b.type), ['text', 'image'], 'user text and image')
  const a = msgs[1]!
  t.same(a.blocks.map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use'], 'thinking, text and two parallel calls')
  t.match(a.blocks[0], { signature: 'EqQBCkYIBxgCKkDsynthetic0signature0for0the0fixture==', provider: 'anthropic' })
  t.match(a.blocks[2], { id: 'toolu_01A9synthRead0000000001', name: 'read', input: { path: 'package.json' } })
  t.same(a.usage, { scope: 'message', input_tokens: 2140, output_tokens: 96, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 2236, cost_usd: 0.00786 })
  t.match(a, { model: 'claude-sonnet-4-5', stop_reason: 'tool_use', native_stop_reason: 'toolUse', api_message_id: 'msg_01d4e5f607d4e5f607' })
  const edit = msgs.find((m) => m.blocks.some((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_01A9synthEdit000000003'))!
  t.match(edit.blocks[0], { type: 'tool_result', is_error: false, structured: { firstChangedLine: 3 } })
  const c = recs.find((r): r is BoundaryRec => r.kind === 'boundary')!
  t.match(c, { type: 'compaction', pre_tokens: 5210, replaces_history: true, x: { 'pi.first_kept': `pi:${S1}:7e8f90a1` } })
  t.match(c.summary, /npm test passes/)
  const bang = msgs.find((m) => m.x?.['pi.bash'])!
  t.match(bang.blocks[0], { type: 'text', text: 'Ran `git status --short`\n```\n M package.json\n\n```' })
  const ext = msgs.find((m) => m.x?.['pi.custom_type'] === 'todo-reminder')!
  t.match(ext, { context: true, parent: `pi:${S1}:a1b2c3d5` })
  const end = recs.at(-1)!
  t.match(end, { kind: 'end', complete: true, counts: { inactive: 3 } })
})

t.test('reading twice gives the same ids', async (t) => {
  const h = home(t)
  const a = (await k.read(k.ctx(h), S1)).map((r) => ('id' in r ? r.id : ''))
  const b = (await k.read(k.ctx(h), S1)).map((r) => ('id' in r ? r.id : ''))
  t.same(a, b)
})

t.test('a missing parent, an unknown entry and a torn last line are located diagnostics, and the rest still comes', async (t) => {
  const h = home(t)
  const f = join(h, FILE1)
  appendFileSync(f, JSON.stringify({ type: 'message', id: 'ffff0001', parentId: 'nothere1', timestamp: '2026-11-05T14:03:00.000Z', message: { role: 'user', content: 'after a gap', timestamp: 1 } }) + '\n')
  appendFileSync(f, JSON.stringify({ type: 'hologram', id: 'ffff0002', parentId: 'ffff0001', timestamp: '2026-11-05T14:03:01.000Z' }) + '\n')
  appendFileSync(f, '{"type":"message","id":"ffff0003","parentId":"ffff00')
  const lines = readFileSync(f, 'utf8').split('\n').length
  const ctx = k.ctx(h)
  const recs = await k.read(ctx, S1)
  const diags = ctx.diagnostics.items.map((d) => `${d.code} ${d.position?.file === f ? 'at' : 'no'}:${d.position?.line}`)
  t.same(diags, [`dangling-parent at:${lines - 2}`, `unsupported at:${lines - 1}`, `torn-line at:${lines}`])
  const gap = recs.find((r) => r.kind === 'message' && r.id.endsWith(':ffff0001')) as MessageRec
  t.ok(gap, 'the entry after the gap is read')
  t.equal(gap.branch, undefined, 'it is the leaf Pi would resume from: active')
  t.match(recs.at(-1), { kind: 'end', complete: false, counts: { skipped_lines: 1 } })
})

t.test('a file without a Pi header is not a Pi session unless Pi named it; a damaged header is reported and the rest read', async (t) => {
  const h = home(t)
  const text = readFileSync(join(h, FILE1), 'utf8').split('\n')
  const other = join(h, '.pi/agent/sessions/--x--/notes.jsonl')
  cpSync(join(h, FILE1), other)
  writeFileSync(other, text.slice(1).join('\n'))
  t.equal(await k.h.resolve!(k.ctx(h), other), null, 'not a session: no header, not a Pi file name')
  const whole = (await k.read(k.ctx(h), S1)).filter((r) => r.kind === 'message').map((r) => r.id)
  writeFileSync(join(h, FILE1), ['{"type":"sess', ...text.slice(1)].join('\n'))
  const ctx = k.ctx(h)
  t.same((await k.discover(ctx)).map((s) => s.id).sort(), [S1, '6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b'].sort(), 'the damaged one is listed by its file name')
  const recs = await k.read(ctx, S1)
  t.same(ctx.diagnostics.items.map((d) => `${d.code}:${d.position?.line}`), ['bad-line:1'], 'the header is the one bad line')
  t.same(recs.filter((r) => r.kind === 'message').map((r) => r.id), whole, 'every entry is still read, with the same ids')
  t.match(recs.at(-1), { kind: 'end', complete: false })
})

t.test('PI_CODING_AGENT_SESSION_DIR: sessions directly in the folder', async (t) => {
  const h = home(t)
  const flat = tempDir(t, 'ferry-pi-flat-')
  cpSync(join(h, FILE1), join(flat, 'x_019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c.jsonl'))
  const ctx = k.ctx(tempDir(t), { env: { PI_CODING_AGENT_SESSION_DIR: flat } })
  t.same((await k.discover(ctx)).map((s) => s.id), [S1])
})
