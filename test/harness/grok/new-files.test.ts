// Grok Build's newer session files (xai-org/grok-build, docs/formats/grok.md §Newer files):
// legacy camelCase summary.json, compaction checkpoints (the turns before a compaction are only
// in updates.jsonl once chat_history.jsonl is replaced), and the files read knowingly as nothing.
import t from 'tap'
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BoundaryRec, FerryRecord, MessageRec } from '../../../lib/model.js'
import { FIXTURE, kit, tempDir } from '../../kit.js'

const gk = kit('grok')
const ID = '7c1f2a9e-4b3d-4e8a-9f10-2b3c4d5e6f70'
const REL = join('sessions', '%2Fhome%2Fdev%2Fdemo-app', ID)
const msgs = (recs: FerryRecord[]) => recs.filter((r): r is MessageRec => r.kind === 'message')
const texts = (recs: FerryRecord[]) => msgs(recs).flatMap((m) => m.blocks.filter((b) => b.type === 'text').map((b: any) => `${m.role}:${m.context ? 'ctx:' : ''}${b.text}`))

/** A copy of the 0.2.x fixture store; returns its root and the session dir. */
function store(t: any): { root: string; dir: string } {
  const root = tempDir(t, 'ferry-grok-new-')
  cpSync(join(FIXTURE.grok.root, 'v02'), root, { recursive: true })
  return { root, dir: join(root, REL) }
}

const upd = (update: object, ts: number) => JSON.stringify({ timestamp: ts, method: 'session/update', params: { sessionId: ID, update, _meta: { agentTimestampMs: ts * 1000 } } })
const xai = (update: object, ts: number) => JSON.stringify({ timestamp: ts, method: '_x.ai/session/update', params: { sessionId: ID, update } })
const CK = '3f0e6c1a-5b2d-4c8e-9a7f-1d2e3c4b5a69'
const SUMMARY = 'Summary: npm test fails because scripts.test is `exit 1`.'

/** What Grok leaves after a compaction: the marker in updates.jsonl, the checkpoint file, chat_history.jsonl replaced. */
function compact(dir: string): void {
  appendFileSync(join(dir, 'updates.jsonl'), [
    xai({ sessionUpdate: 'compaction_checkpoint', checkpoint_id: CK, prompt_index_at_compaction: 1, checkpoint_file: `compaction_checkpoints/${CK}.json`, schema_version: 1, created_at: '2026-07-02T10:02:00.000Z' }, 1782986520),
    upd({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'now fix it' }, _meta: { promptIndex: 1 } }, 1782986530),
    upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Changed scripts.test to vitest run.' } }, 1782986535),
  ].join('\n') + '\n')
  const meta = { type: 'user', content: [{ type: 'text', text: SUMMARY }], synthetic_reason: 'compaction_meta' }
  mkdirSync(join(dir, 'compaction_checkpoints'))
  writeFileSync(join(dir, 'compaction_checkpoints', `${CK}.json`), JSON.stringify({ checkpoint_id: CK, prompt_index_at_compaction: 1, compacted_history: [{ type: 'system', content: 'You are a coding agent. [synthetic placeholder]' }, meta], schema_version: 1, created_at: '2026-07-02T10:02:00.000Z', original_user_info: null, reread_file_paths: [] }))
  writeFileSync(join(dir, 'chat_history.jsonl'), [
    { type: 'system', content: 'You are a coding agent. [synthetic placeholder]' },
    meta,
    { type: 'user', content: [{ type: 'text', text: '<user_query>\nnow fix it\n</user_query>' }], prompt_index: 1 },
    { type: 'assistant', content: 'Changed scripts.test to vitest run.', model_id: 'grok-composer-2.5-fast' },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n')
}

t.test('legacy camelCase summary.json reads as snake_case', async (t) => {
  const { root, dir } = store(t)
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ info: { id: ID, cwd: '/home/dev/demo-app' }, sessionSummary: 'npm test fails (camel)', createdAt: '2026-07-02T10:00:00.120Z', updatedAt: '2026-07-02T10:01:30.500Z', lastActiveAt: '2026-07-02T10:05:00.000Z', currentModelId: 'grok-composer-2.5-fast', headBranch: 'main', agentName: 'cursor', chatFormatVersion: 1 }, null, 2))
  const ctx = gk.ctx(root)
  const [info] = await gk.discover(ctx)
  t.match(info, { id: ID, title: 'npm test fails (camel)', model: 'grok-composer-2.5-fast', git_branch: 'main', created_at: '2026-07-02T10:00:00.120Z', updated_at: '2026-07-02T10:05:00.000Z' })
  const head = (await gk.read(ctx, ID))[0] as any
  t.match(head, { title: 'npm test fails (camel)', model: 'grok-composer-2.5-fast', x: { 'grok.agent_name': 'cursor', 'grok.chat_format_version': 1 } })
})

t.test('after a compaction: the turns before it from updates.jsonl, a boundary with the checkpoint summary, then chat_history', async (t) => {
  const { root, dir } = store(t)
  compact(dir)
  const recs = await gk.read(gk.ctx(root), ID)
  const all = texts(recs)
  t.ok(all.indexOf('user:why does npm test fail? see screenshot') >= 0, 'the first prompt, gone from chat_history.jsonl, is read from updates.jsonl')
  t.ok(all.includes('assistant:The test script is `exit 1`.'), 'and its answer')
  const b = recs.filter((r): r is BoundaryRec => r.kind === 'boundary')
  t.same(b.map((x) => [x.type, x.summary, x.ts, x.trigger]), [['compaction', SUMMARY, '2026-07-02T10:02:00.000Z', 'manual']])
  const at = recs.indexOf(b[0]!)
  t.ok(msgs(recs.slice(0, at)).some((m) => m.role === 'user' && !m.context), 'pre-compaction turns come before the boundary')
  t.same(texts(recs.slice(at)).filter((x) => !x.includes(':ctx:')), ['user:now fix it', 'assistant:Changed scripts.test to vitest run.'], 'chat_history after it')
  t.equal(new Set(recs.map((r) => r.id)).size, recs.length, 'record ids unique')
})

t.test('no chat_history.jsonl: the marker is a boundary in the rebuilt conversation', async (t) => {
  const { root, dir } = store(t)
  compact(dir)
  writeFileSync(join(dir, 'chat_history.jsonl'), '')
  const recs = await gk.read(gk.ctx(root), ID)
  const kinds = recs.filter((r) => r.kind === 'boundary' || (r.kind === 'message' && r.role === 'user' && r.blocks.some((b) => b.type === 'text'))).map((r: any) => (r.kind === 'boundary' ? `boundary:${r.summary}` : r.blocks[0].text))
  t.same(kinds, ['why does npm test fail? see screenshot', `boundary:${SUMMARY}`, 'now fix it'])
})

t.test('events.jsonl, signals.json, rewind_points.jsonl: read as no conversation (session_search.sqlite: read.test.ts)', async (t) => {
  const { root, dir } = store(t)
  const before = await gk.read(gk.ctx(root), ID)
  writeFileSync(join(dir, 'rewind_points.jsonl'), JSON.stringify({ prompt_index: 0, created_at: '2026-07-02T10:00:00.120Z', file_snapshots: {}, after_snapshots: {} }) + '\n')
  appendFileSync(join(dir, 'events.jsonl'), JSON.stringify({ ts: '2026-07-02T10:00:01.000Z', type: 'tool_completed', tool_name: 'Shell', duration_ms: 900, outcome: 'success', tool_call_id: 'call_a2' }) + '\n')
  const after = await gk.read(gk.ctx(root), ID)
  t.same(after.filter((r) => r.kind !== 'native'), before.filter((r) => r.kind !== 'native'), 'the same records')
  const sidecars = (await gk.read(gk.ctx(root), ID, { native: true })).filter((r: any) => r.native_type === 'grok/file').map((r: any) => r.native.file).sort()
  t.ok(['events.jsonl', 'rewind_points.jsonl', 'signals.json'].every((f) => sidecars.includes(f)), 'carried byte for byte with --native, for a same-harness write')
})
