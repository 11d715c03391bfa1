// Codex paginated history (history_mode "paginated", openai/codex PR #30188 / #37348): turn items from item_completed
// when their response items are absent, never twice; repeated session_meta and ordinals; the newer line types.
import t from 'tap'
import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { FIXTURES, kit, tempDir } from '../../kit.js'
// @ts-expect-error: the fixture generator is plain JavaScript
import { MIGRATED, PAGINATED, migratedThread, paginatedThread } from '../../../fixtures/codex/make-paginated.mjs'

// Rollout folders are in local time; the fixtures were made in UTC.
process.env.TZ = 'UTC'
const cx = kit('codex')
const FIX = join(FIXTURES, 'codex', 'paginated')
const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')
const text = (m: MessageRec) => m.blocks.map((b: any) => b.text ?? '').join('')

function home(t: any): string {
  const h = join(tempDir(t), 'home')
  cpSync(FIX, h, { recursive: true })
  return h
}

t.test('the committed fixtures are what the generator writes', async (t) => {
  const dir = join(FIX, '.codex', 'sessions', '2026', '12', '07')
  t.equal(readFileSync(join(dir, `rollout-2026-12-07T06-00-00-${PAGINATED}.jsonl`), 'utf8'), paginatedThread())
  t.equal(readFileSync(join(dir, `rollout-2026-12-07T07-00-00-${MIGRATED}.jsonl`), 'utf8'), migratedThread())
})

t.test('a 0.171-shaped paginated thread: each turn item once, usage per response, list outputs, new line types passed through', async (t) => {
  const recs = await cx.read(cx.ctx(home(t)), PAGINATED)
  const m = msgs(recs)
  t.same(m.filter((r) => r.role === 'user' && !r.context && r.blocks[0]?.type === 'text').map(text), ['List the files, please.'], 'the prompt once (its response item came first)')
  t.same(m.filter((r) => r.role === 'assistant' && r.blocks[0]?.type === 'text').map(text), ['Listing them now.', 'Two files: a.txt and b.txt.'], 'agent messages once (their response items came after)')
  t.same(m.filter((r) => r.blocks[0]?.type === 'thinking').length, 1, 'reasoning once')
  const call = m.find((r) => r.blocks[0]?.type === 'tool_use')!
  t.match(call.usage, { input_tokens: 1200, output_tokens: 40 }, 'token_usage_record on the response it follows')
  t.match(m.at(-1)!.usage, { input_tokens: 1300, output_tokens: 12 })
  const result = m.flatMap((r) => r.blocks).find((b) => b.type === 'tool_result') as any
  t.same(result.content, [{ type: 'text', text: 'a.txt\n' }, { type: 'text', text: 'b.txt\n' }], 'an output that is a list of input_text blocks')
  t.equal(result.exit_code, 0)
  const natives = recs.filter((r) => r.kind === 'native').map((r: any) => r.native_type)
  for (const ty of ['world_state', 'security_risk_score', 'inter_agent_communication', 'inter_agent_communication_metadata', 'realtime_item', 'token_usage_record']) t.ok(natives.includes(`codex/${ty}`), `${ty} passed through`)
  t.equal(new Set(recs.map((r: any) => r.id)).size, recs.length, 'ids unique')
})

t.test('turn items without response items (a migrated thread) are read; a resume repeating session_meta and ordinals keeps ids unique', async (t) => {
  const recs = await cx.read(cx.ctx(home(t)), MIGRATED)
  const m = msgs(recs)
  t.same(m.map((r) => [r.role, text(r)]), [
    ['user', 'What is in b.txt?'],
    ['assistant', 'b.txt holds the word banana.'],
    ['user', 'And a.txt?'],
    ['assistant', 'a.txt holds apple.'],
  ], 'every turn, in order, none twice')
  t.equal(m[0]!.turn, '01a25000-0001-7000-8000-0000000000b1')
  t.equal(m[1]!.api_message_id, 'msg_b_1')
  t.equal(recs.filter((r: any) => r.native_type === 'codex/session_meta').length, 1, 'the repeated session_meta passes through')
  t.equal(new Set(recs.map((r: any) => r.id)).size, recs.length, 'ids unique although ordinals repeat')
})

t.test('native round trip of paginated rollouts is byte-identical (turn items are not written twice; repeated ordinals come out contiguous)', async (t) => {
  const h = home(t)
  for (const id of [PAGINATED, MIGRATED]) {
    // In process (the CLI's cat | write is the contract suite's): the records with their native text, into an empty store.
    const out = tempDir(t)
    await cx.write(cx.ctx(out, { roots: { codex: out } }), await cx.read(cx.ctx(h), id, { native: true }))
    const name = id === PAGINATED ? `rollout-2026-12-07T06-00-00-${id}.jsonl` : `rollout-2026-12-07T07-00-00-${id}.jsonl`
    const src = readFileSync(join(h, '.codex', 'sessions', '2026', '12', '07', name), 'utf8')
    // The sink keeps ordinals contiguous (as it does when lines were dropped): a resume's repeated ones are renumbered.
    const contiguous = src.split('\n').map((l, i) => l.replace(/"ordinal":\d+/, `"ordinal":${i}`)).join('\n')
    t.equal(readFileSync(join(out, 'sessions', '2026', '12', '07', name), 'utf8'), contiguous, `${id} unchanged but for its ordinals`)
  }
})

t.test('converted into Claude Code, the migrated turns arrive', async (t) => {
  const h = home(t)
  const out = tempDir(t)
  const [w] = await kit('claude-code').write(cx.ctx(out, { roots: { 'claude-code': out } }), await cx.read(cx.ctx(h), MIGRATED))
  const file = w!.path
  const entries = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type === 'user' || e.type === 'assistant')
  const said = entries.map((e) => JSON.stringify(e.message.content))
  for (const s of ['What is in b.txt?', 'b.txt holds the word banana.', 'And a.txt?', 'a.txt holds apple.']) t.equal(said.filter((c) => c.includes(s)).length, 1, `${s} in one entry`)
})

t.test('listing: a thread whose prompt is only a turn item is titled by it', async (t) => {
  const infos = await cx.discover(cx.ctx(home(t)))
  t.equal(infos.find((i) => i.id === MIGRATED)?.title, 'What is in b.txt?')
  t.equal(infos.find((i) => i.id === PAGINATED)?.title, 'List the files, please.')
})
