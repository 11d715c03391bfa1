import t from 'tap'
import { appendFileSync, copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { codex } from '../../../lib/harness/codex/index.js'
import type { SessionInfo } from '../../../lib/harness/types.js'
import { FIXTURE, kit, rollouts, zstd } from '../../kit.js'

const { classic: CLASSIC_ID, codemode: CODEMODE_ID, archived: ARCHIVED_ID } = FIXTURE.codex
const cx = kit('codex')

async function list(home: string, all = false): Promise<SessionInfo[]> {
  const out: SessionInfo[] = []
  for await (const s of codex.discover!(cx.ctx(home), { all })) out.push(s)
  return out
}

t.test('lists sessions/ by default, archived_sessions/ with all; metadata from the head', async (t) => {
  const home = cx.home(t, 'classic')
  const active = await list(home)
  t.same(active.map((s) => s.id), [CLASSIC_ID])
  t.match(active[0], { sid: `codex:${CLASSIC_ID}`, cwd: '/home/dev/demo-app', model: 'gpt-5.5', agent_version: '0.171.0', git_branch: 'main', created_at: '2026-11-02T09:15:00.000Z', title: 'Why does `npm test` fail?' })
  const all = await list(home, true)
  t.same(all.map((s) => s.id).sort(), [ARCHIVED_ID, CLASSIC_ID].sort())
  const arch = all.find((s) => s.id === ARCHIVED_ID)!
  t.equal(arch.archived, true)
  t.equal(arch.title, 'README question', 'session_index.jsonl name wins over the first prompt')
})

t.test('a plain and a .zst copy are listed once (plain wins); a lone .zst is listed compressed', async (t) => {
  const home = cx.home(t, 'classic', 'codemode')
  const files = rollouts(join(home, '.codex', 'sessions'))
  zstd(files[0]!, true)
  zstd(files[1]!, false)
  const s = await list(home)
  t.equal(s.length, 2)
  const classic = s.find((x) => x.id === CLASSIC_ID)!
  t.notOk(classic.locator.compressed)
  t.match(classic.path, /\.jsonl$/)
  const cm = s.find((x) => x.id === CODEMODE_ID)!
  t.equal(cm.locator.compressed, true)
  t.match(cm.path, /\.jsonl\.zst$/)
  t.equal(cm.model, 'gpt-6.2-sol', 'head read through zstd')
})

t.test('a .zst whose tail is corrupt still lists (only the head is decompressed)', async (t) => {
  const home = cx.home(t, 'classic')
  const file = rollouts(join(home, '.codex', 'sessions'))[0]!
  const { appendFileSync, readFileSync } = await import('node:fs')
  // Enough varied lines that the file spans many zstd blocks.
  let seed = 3
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed.toString(36))
  const filler = Array.from({ length: 3000 }, () => JSON.stringify({ timestamp: '2026-11-02T09:20:00.000Z', type: 'event_msg', payload: { type: 'agent_message', message: Array.from({ length: 30 }, rnd).join(' ') } }))
  appendFileSync(file, filler.join('\n') + '\n')
  const z = zstd(file, false)
  const buf = readFileSync(z)
  writeFileSync(z, Buffer.concat([buf.subarray(0, Math.floor(buf.length * 0.7)), Buffer.from('garbage')]))
  const s = await list(home)
  t.equal(s[0]?.id, CLASSIC_ID)
  t.equal(s[0]?.cwd, '/home/dev/demo-app')
})

t.test('resolve: id, unique prefix, path; ambiguous prefix is an error; unknown is null', async (t) => {
  const home = cx.home(t, 'classic', 'codemode')
  const ctx = cx.ctx(home)
  t.equal((await codex.resolve!(ctx, CLASSIC_ID))?.id, CLASSIC_ID)
  t.equal((await codex.resolve!(ctx, '019a3c'))?.id, CLASSIC_ID)
  t.equal((await codex.resolve!(ctx, ARCHIVED_ID))?.archived, true, 'archived sessions resolve too')
  const file = rollouts(join(home, '.codex', 'sessions'))[1]!
  t.equal((await codex.resolve!(ctx, file))?.id, CODEMODE_ID)
  await t.rejects(codex.resolve!(ctx, '019a'), { code: 'ambiguous' })
  t.equal(await codex.resolve!(ctx, 'ffffffff'), null)
  t.equal(await codex.resolve!(ctx, '../etc'), null)
  // A non-rollout file is not ours.
  const other = join(home, 'notes.txt')
  copyFileSync(join(home, '.codex', 'session_index.jsonl'), other)
  t.equal(await codex.resolve!(ctx, other), null)
})

t.test('an absent store yields nothing', async (t) => {
  const home = cx.empty(t)
  t.same(await list(home, true), [])
})

t.test('a thread name from session_index.jsonl is a custom title; a first prompt stays first_prompt', async (t) => {
  const home = cx.home(t, 'classic')
  const all = await list(home, true)
  t.match(all.find((s) => s.id === ARCHIVED_ID), { title: 'README question', title_source: 'custom' })
  t.match(all.find((s) => s.id === CLASSIC_ID), { title: 'Why does `npm test` fail?', title_source: 'first_prompt' })

  const { recs } = await cx.readSettled(cx.ctx(home), ARCHIVED_ID)
  t.match(recs[0], { kind: 'session', title: 'README question', title_source: 'custom' }, 'the reader takes it from discovery')
  const { recs: classic } = await cx.readSettled(cx.ctx(home), CLASSIC_ID)
  t.match(classic[0], { title_source: 'first_prompt' })
})

t.test('session_index.jsonl: the last entry for an id wins; a torn last line is a warning, not an error', async (t) => {
  const home = cx.home(t, 'classic')
  const index = join(home, '.codex', 'session_index.jsonl')
  appendFileSync(index, JSON.stringify({ id: CLASSIC_ID, thread_name: 'old name', updated_at: '2026-11-02T10:00:00Z' }) + '\n')
  appendFileSync(index, JSON.stringify({ id: CLASSIC_ID, thread_name: 'npm test triage', updated_at: '2026-11-02T11:00:00Z' }) + '\n')
  appendFileSync(index, '{"id":"019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b","thread_na')
  const ctx = cx.ctx(home)
  const out: SessionInfo[] = []
  for await (const s of codex.discover!(ctx, {})) out.push(s)
  t.match(out[0], { id: CLASSIC_ID, title: 'npm test triage', title_source: 'custom' })
  t.equal(ctx.diagnostics.errors, 0)
  t.match(ctx.diagnostics.items, [{ severity: 'warning', code: 'torn-line', source: 'codex', position: { file: index, line: 4 } }])
})
