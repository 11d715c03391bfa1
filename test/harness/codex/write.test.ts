import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { derivedUuidV7, isUuid } from '../../../lib/harness/codex/ids.js'
import { rolloutRelPath } from '../../../lib/harness/codex/paths.js'
import { FIXTURE, kit, rollouts, tempDir, zstd } from '../../kit.js'

const { classic: CLASSIC_ID, codemode: CODEMODE_ID, legacy: LEGACY_ID } = FIXTURE.codex
const cx = kit('codex')

const jsonl = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))

t.test('same-harness round trip with native lines is byte-identical (plain and from .zst)', async (t) => {
  for (const [fix, id] of [['classic', CLASSIC_ID], ['codemode', CODEMODE_ID], ['legacy', LEGACY_ID]] as const) {
    for (const compressed of [false, true]) {
      const home = cx.home(t, fix)
      const src = rollouts(join(home, '.codex', 'sessions'))[0]!
      const original = readFileSync(src, 'utf8')
      if (compressed) zstd(src, false)
      const { recs } = await cx.readSettled(cx.ctx(home), id, { native: true })
      const out = tempDir(t)
      const [w] = await cx.write(cx.ctx(home), recs, { out })
      t.equal(w!.id, id, `${fix}: keeps its id`)
      t.equal(basename(w!.path), basename(src), `${fix}: same file name`)
      // The legacy fixture ends with a torn line, which is not a record.
      const expected = fix === 'legacy' ? original.slice(0, original.lastIndexOf('\n') + 1) : original
      t.equal(readFileSync(w!.path, 'utf8'), expected, `${fix}${compressed ? ' (.zst)' : ''}: byte-identical`)
    }
  }
})

t.test('records dropped on the way keep ordinals contiguous', async (t) => {
  const home = cx.home(t, 'classic')
  const { recs } = await cx.readSettled(cx.ctx(home), CLASSIC_ID, { native: true })
  const kept = recs.filter((r) => !(r.kind === 'native' && r.native_type === 'codex/world_state'))
  const [w] = await cx.write(cx.ctx(home), kept, { out: tempDir(t) })
  t.same(jsonl(w!.path).map((l) => l.ordinal), Array.from({ length: 25 }, (_, i) => i))
})

/** The modelled content of a message, without ids, native, turn ids and provider item ids. */
function modelled(recs: FerryRecord[]) {
  return recs
    .filter((r): r is MessageRec => r.kind === 'message')
    .map((r) => ({
      role: r.role,
      ts: r.ts,
      context: r.context ?? false,
      blocks: r.blocks.map((b: any) => {
        const { structured, ...rest } = b
        return rest
      }),
      usage: r.usage,
    }))
}

t.test('common → Codex → common is a fixpoint (no native)', async (t) => {
  for (const [fix, id] of [['classic', CLASSIC_ID], ['codemode', CODEMODE_ID]] as const) {
    const home = cx.home(t, fix)
    const a = (await cx.readSettled(cx.ctx(home), id)).recs
    const out1 = tempDir(t)
    const [w1] = await cx.write(cx.ctx(home), a, { out: out1 })
    t.not(w1!.id, id, 'a modelled write gets a new id')
    const b = (await cx.readSettled(cx.ctx(out1), w1!.path)).recs
    t.same(modelled(b), modelled(a), `${fix}: conversation survives`)
    const out2 = tempDir(t)
    const [w2] = await cx.write(cx.ctx(home), b, { out: out2 })
    const c = (await cx.readSettled(cx.ctx(out2), w2!.path)).recs
    t.same(modelled(c), modelled(b), `${fix}: second pass changes nothing`)
    t.equal((b[0] as any).model, (a[0] as any).model)
  }
})

const SID = 'claude-code:5d2f7e10-2222-4b4b-9b9b-000000000abc'
function claudeStream(): FerryRecord[] {
  const base = { sid: SID }
  return [
    { kind: 'session', ferry: '1.0', ...base, id: `${SID}:session`, source: { harness: 'claude-code', locator: {} }, native_id: '5d2f7e10-2222-4b4b-9b9b-000000000abc', cwd: '/home/dev/demo-app', title: 'npm test', model: 'claude-opus-5-5', created_at: '2026-11-02T09:15:00.000Z' },
    { kind: 'message', ...base, id: `${SID}:u1`, role: 'user', ts: '2026-11-02T09:15:00.000Z', blocks: [{ type: 'text', text: 'Why does npm test fail?' }] },
    { kind: 'message', ...base, id: `${SID}:u1c`, role: 'user', context: true, context_kind: 'reminder', ts: '2026-11-02T09:15:00.001Z', blocks: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }] },
    { kind: 'message', ...base, id: `${SID}:a1`, role: 'assistant', ts: '2026-11-02T09:15:02.000Z', blocks: [{ type: 'thinking', text: 'hmm', signature: 'sig', provider: 'anthropic' }, { type: 'text', text: 'Running the tests.' }, { type: 'tool_use', id: 'toolu_01B', name: 'Bash', input: { command: 'npm test' } }], usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 50, scope: 'message' } },
    { kind: 'message', ...base, id: `${SID}:u2`, role: 'user', ts: '2026-11-02T09:15:06.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'toolu_01B', content: 'sh: jest: command not found', is_error: true }] },
    { kind: 'native', ...base, id: `${SID}:n1`, native_type: 'claude-code/file-history-snapshot' },
    { kind: 'message', ...base, id: `${SID}:a2`, role: 'assistant', ts: '2026-11-02T09:15:08.000Z', blocks: [{ type: 'text', text: 'jest is not installed.' }] },
    { kind: 'end', ...base, id: `${SID}:end` },
  ] as FerryRecord[]
}

t.test('a Claude-shaped session becomes a resumable rollout, written as 0.171 writes a new thread (paginated)', async (t) => {
  const home = tempDir(t)
  const [w] = await cx.write(cx.ctx(home), claudeStream())
  t.equal(w!.from, SID)
  t.equal(w!.path, join(home, '.codex', rolloutRelPath(w!.id, new Date('2026-11-02T09:15:00.000Z'))), 'store root, local-time dirs and name')
  t.match(w!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'UUIDv7')
  const lines = jsonl(w!.path)
  t.equal(lines[0].type, 'session_meta')
  t.match(lines[0].payload, { id: w!.id, cwd: '/home/dev/demo-app', originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', model_provider: 'openai', history_mode: 'paginated' })
  t.same(lines.map((l) => l.ordinal), lines.map((_, i) => i), 'an ordinal on every line, from 0')
  t.equal(lines[1].type, 'turn_context')
  const items = lines.filter((l) => l.type === 'response_item').map((l) => l.payload)
  t.same(items.map((p) => p.type), ['message', 'message', 'function_call', 'function_call_output', 'message'], 'foreign thinking and context dropped')
  t.equal(typeof items[2].arguments, 'string')
  t.ok(JSON.parse(items[2].arguments), 'arguments are a JSON string')
  t.equal(items[2].call_id, items[3].call_id)
  const ev = lines.filter((l) => l.type === 'event_msg').map((l) => l.payload)
  t.same(ev.filter((e) => e.type === 'user_message'), [], 'no user_message projection (paginated history)')
  const turnItems = ev.filter((e) => e.type === 'item_completed').map((e) => e.item)
  t.same(turnItems.filter((i) => i.type === 'UserMessage').map((i) => i.content), [[{ type: 'text', text: 'Why does npm test fail?', text_elements: [] }]], 'one UserMessage turn item per prompt')
  const said = turnItems.filter((i) => i.type === 'AgentMessage')
  t.same(said.map((i) => i.id), items.filter((p) => p.type === 'message' && p.role === 'assistant').map((p) => p.id), 'an AgentMessage turn item beside each assistant message, same id')
  t.match(ev.find((e) => e.type === 'token_count').info.last_token_usage, { input_tokens: 150, cached_input_tokens: 50, output_tokens: 20 })
  // And it reads back.
  const back = (await cx.readSettled(cx.ctx(home), w!.id)).recs
  t.same(back.filter((r) => r.kind === 'message').map((r: any) => r.blocks.map((b: any) => b.type).join('+')), ['text', 'text', 'tool_use', 'tool_result', 'text'])
  t.same((back.find((r: any) => r.usage) as any).usage, { input_tokens: 100, output_tokens: 20, cache_read_tokens: 50, total_tokens: 170, scope: 'message' })
})

t.test('deterministic ids; no overwrite without force', async (t) => {
  const home = tempDir(t)
  const [a] = await cx.write(cx.ctx(home), claudeStream())
  await t.rejects(cx.write(cx.ctx(home), claudeStream()), { code: 'not-written', failures: [{ sid: SID, error: { code: 'exists' } }] })
  const [b] = await cx.write(cx.ctx(home), claudeStream(), { force: true })
  t.equal(b!.id, a!.id)
})

t.test('provider and model: flag, else config.toml, else defaults', async (t) => {
  const home = tempDir(t)
  const meta = async (opts: Record<string, unknown>) => {
    const [w] = await cx.write(cx.ctx(home), claudeStream(), { force: true, ...opts })
    const lines = jsonl(w!.path)
    return { provider: lines[0].payload.model_provider, model: lines[1].payload.model }
  }
  t.same(await meta({}), { provider: 'openai', model: 'gpt-5.5' })
  mkdirSync(join(home, '.codex'), { recursive: true })
  writeFileSync(join(home, '.codex', 'config.toml'), 'model = "gpt-6.2-sol"\nmodel_provider = "corp"\n\n[model_providers.corp]\nname = "x"\nmodel = "not-this"\n')
  t.same(await meta({}), { provider: 'corp', model: 'gpt-6.2-sol' })
  t.same(await meta({ provider: 'azure', model: 'o9' }), { provider: 'azure', model: 'o9' })
})

t.test('a config.toml that does not parse: defaults, and a warning naming the file', async (t) => {
  const home = tempDir(t)
  mkdirSync(join(home, '.codex'), { recursive: true })
  const config = join(home, '.codex', 'config.toml')
  writeFileSync(config, 'model = "gpt-6.2-sol"\nmodel_provider = corp\n')
  const ctx = cx.ctx(home)
  const [w] = await cx.write(ctx, claudeStream())
  const lines = jsonl(w!.path)
  t.same([lines[0].payload.model_provider, lines[1].payload.model], ['openai', 'gpt-5.5'], 'nothing from a broken file')
  t.equal(ctx.diagnostics.errors, 0, 'the session is still written')
  t.match(ctx.diagnostics.items, [{ severity: 'warning', code: 'bad-config', source: 'codex', position: { file: config, line: 2 } }])
  // Values the old line matcher missed: single quotes, a comment after the value.
  writeFileSync(config, "model = 'o9-mini' # the fast one\nmodel_provider = \"corp\"\n")
  const [w2] = await cx.write(cx.ctx(home), claudeStream(), { force: true })
  const l2 = jsonl(w2!.path)
  t.same([l2[0].payload.model_provider, l2[1].payload.model], ['corp', 'o9-mini'])
})

t.test('derived v7 ids are the ones earlier versions wrote', async (t) => {
  // Pinned from the hand-rolled derivation this replaced: the same source converts to the same id.
  t.equal(derivedUuidV7('claude-code:5d2f7e10-2222-4b4b-9b9b-000000000abc', new Date('2026-11-02T09:15:00.000Z')), '01a19b8a-6220-7292-997b-1f95e4a7cbce')
  t.equal(derivedUuidV7('a', new Date(0)), '00000000-0000-7a97-8112-ca1bbdcafac2')
  t.equal(derivedUuidV7('grok:x:turn:3', new Date('2025-01-01T12:34:56.789Z')), '019421dc-a895-721a-88f9-56ce1911ad25')
  t.equal(derivedUuidV7('z', new Date('invalid')), '00000000-0000-794e-919a-e499312b2943', 'an invalid time is zero, as before')
  t.ok(isUuid(derivedUuidV7('far', new Date(8.64e15))), 'a time past 48 bits is clamped, not an exception')
  t.notOk(isUuid('../../../etc/x'))
})

t.test('hostile native ids never reach a path', async (t) => {
  const home = cx.home(t, 'classic')
  const { recs } = await cx.readSettled(cx.ctx(home), CLASSIC_ID, { native: true })
  const s = { ...(recs[0] as any), native_id: '../../../etc/x' }
  const out = tempDir(t)
  await t.rejects(cx.write(cx.ctx(home), [s, ...recs.slice(1)], { out }), { code: 'not-written', failures: [{ error: { code: 'unsafe-path' } }] })
  t.same(rollouts(out), [])
  t.equal(execFileSync('find', [out, '-type', 'f']).toString(), '', 'no temp file left behind')
})
