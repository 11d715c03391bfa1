import t from 'tap'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { codex } from '../../../lib/harness/codex/index.js'
import type { SessionInfo } from '../../../lib/harness/types.js'
import { ARCHIVED_ID, CLASSIC_ID, CODEMODE_ID, ctxFor, homeWith, rollouts, zstd } from './helpers.js'

async function list(home: string, all = false): Promise<SessionInfo[]> {
  const out: SessionInfo[] = []
  for await (const s of codex.discover!(ctxFor(home), { all })) out.push(s)
  return out
}

t.test('lists sessions/ by default, archived_sessions/ with all; metadata from the head', async (t) => {
  const home = homeWith(t, 'classic')
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
  const home = homeWith(t, 'classic', 'codemode')
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
  const home = homeWith(t, 'classic')
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
  const home = homeWith(t, 'classic', 'codemode')
  const ctx = ctxFor(home)
  t.equal((await codex.resolve!(ctx, CLASSIC_ID))?.id, CLASSIC_ID)
  t.equal((await codex.resolve!(ctx, '019a3c'))?.id, CLASSIC_ID)
  t.equal((await codex.resolve!(ctx, ARCHIVED_ID))?.archived, true, 'archived sessions resolve too')
  const file = rollouts(join(home, '.codex', 'sessions'))[1]!
  t.equal((await codex.resolve!(ctx, file))?.id, CODEMODE_ID)
  await t.rejects(codex.resolve!(ctx, '019a'), { code: 'EUSAGE' })
  t.equal(await codex.resolve!(ctx, 'ffffffff'), null)
  t.equal(await codex.resolve!(ctx, '../etc'), null)
  // A non-rollout file is not ours.
  const other = join(home, 'notes.txt')
  copyFileSync(join(home, '.codex', 'session_index.jsonl'), other)
  t.equal(await codex.resolve!(ctx, other), null)
})

t.test('an absent store yields nothing', async (t) => {
  const home = homeWith(t)
  t.same(await list(home, true), [])
})
