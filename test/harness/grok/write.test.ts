import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { grok } from '../../../lib/harness/grok/index.js'
import { encodeCwdDirname } from '../../../lib/harness/grok/paths.js'
import type { FerryRecord, MessageRec, SessionRec } from '../../../lib/model.js'
import { Readable } from 'node:stream'
import { cpSync } from 'node:fs'
import { context, open, pipeline, sink, NotWrittenError } from '../../../lib/index.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import { FIXTURE, complete, kit, tempDir, tree } from '../../kit.js'

const GROK_FIXTURES = FIXTURE.grok.root
const gk = kit('grok')

/** Records without what legitimately differs between two reads of different dirs (ids, sid, locator, native). */
function modelled(recs: FerryRecord[]): unknown[] {
  return recs.map((r) => {
    const c: any = structuredClone(r)
    delete c.sid
    delete c.id
    delete c.native
    if (c.kind === 'session') {
      delete c.native_id
      delete c.source
    }
    return c
  })
}

const NOT_CARRIED = /(^|\/)terminal($|\/)|\.lock$/

async function sessionDirs(root: string): Promise<string[]> {
  const out: string[] = []
  for await (const s of grok.discover!(gk.ctx(root), { all: true })) out.push(s.path)
  return out
}

t.test('native round trip is byte-identical for every fixture session', async (t) => {
  for (const home of ['v1', 'v02', 'edge']) {
    const src = join(GROK_FIXTURES, home)
    for (const dir of await sessionDirs(src)) {
      const out = tempDir(t)
      const recs = await gk.read(gk.ctx(src), dir, { native: true })
      const { written, errors } = await gk.writeSettled(gk.ctx(out), recs)
      t.same(errors, [])
      t.equal(written.length, 1)
      const w = written[0]!
      t.equal(w.id, dir.split('/').at(-1), 'same id')
      const a = tree(dir, NOT_CARRIED)
      const b = tree(w.path)
      t.same([...b.keys()].sort(), [...a.keys()].sort(), `${home}: same files (${dir.split('/').slice(-2).join('/')})`)
      for (const [k, v] of a) t.ok(b.get(k)?.equals(v), `${home}: ${k} byte-identical`)
    }
  }
})

t.test('a written session is complete and consistent', async (t) => {
  const src = join(GROK_FIXTURES, 'v1')
  const recs = await gk.read(gk.ctx(src), '01a1f84a')
  // Pretend it came from another harness, with a hostile id: the writer must mint a UUID.
  const foreign = recs.map((r) => ({ ...r, sid: 'claude-code:../../x' })) as FerryRecord[]
  ;(foreign[0] as SessionRec).native_id = '../../x'
  ;(foreign[0] as SessionRec).source = { harness: 'claude-code', locator: {} }
  const out = tempDir(t)
  const { written, errors } = await gk.writeSettled(gk.ctx(out), foreign)
  t.same(errors, [])
  const w = written[0]!
  t.match(w.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.equal(w.path, join(out, 'sessions', '%2Fhome%2Fdev%2Fdemo-app', w.id), 'under <root>/sessions/<encoded cwd>/<uuid>')
  t.equal(statSync(w.path).mode & 0o777, 0o700)
  const summary = JSON.parse(readFileSync(join(w.path, 'summary.json'), 'utf8'))
  for (const k of ['info', 'session_summary', 'created_at', 'updated_at', 'num_messages', 'current_model_id']) t.ok(k in summary, `summary.${k} (required by Grok's Summary)`)
  t.match(summary, { info: { id: w.id, cwd: '/home/dev/demo-app' }, chat_format_version: 1, current_model_id: 'grok-build', generated_title: 'Diagnose failing npm test script', created_at: '2026-11-20T09:29:58.412Z' })
  const chat = readFileSync(join(w.path, 'chat_history.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  const updates = readFileSync(join(w.path, 'updates.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  t.equal(summary.num_chat_messages, chat.length)
  t.equal(summary.num_messages, updates.length)
  // Every call has a result, arguments are JSON strings.
  const calls = chat.flatMap((c) => (c.type === 'assistant' ? (c.tool_calls ?? []) : []))
  const results = new Set(chat.filter((c) => c.type === 'tool_result').map((c) => c.tool_call_id))
  t.ok(calls.length === 2 && calls.every((c: any) => results.has(c.id) && typeof c.arguments === 'string' && JSON.parse(c.arguments)))
  t.same(calls.map((c: any) => c.name), ['read_file', 'run_terminal_cmd'], 'names through the tool table (Grok snake_case)')
  // The prompt: wrapped, image saved under assets/ and listed, inline too; and on screen.
  const prompt = chat.find((c) => c.type === 'user' && c.prompt_index === 0)
  t.match(prompt.content[0].text, /^<image_files>\n[\s\S]*\n<\/image_files>\n\n<user_query>\nWhy does `npm test` fail here\?/)
  const assets = readdirSync(join(w.path, 'assets'))
  t.equal(assets.length, 1)
  t.ok(prompt.content[0].text.includes(join(w.path, 'assets', assets[0]!)))
  t.same(readFileSync(join(w.path, 'assets', assets[0]!)), readFileSync(join(src, 'sessions/%2Fhome%2Fdev%2Fdemo-app/01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17/assets/image-5b0e6f2c-1d4a-4c3e-8f71-2a9d3c6b7e40.png')))
  t.match(prompt.content[1].url, /^data:image\/png;base64,iVBOR/)
  t.notOk(chat.some((c) => c.type === 'user' && c.content.some((p: any) => p.text?.includes('<user_info>'))), "another harness's context is not written")
  t.match(chat.find((c) => c.type === 'reasoning'), { id: 'rs_0d41c9e2b7a35f18', encrypted_content: 'ENC-SYNTHETIC-9f2c0a1b7e3d4c55' }, 'xai reasoning keeps its opaque token')
  const kinds = updates.map((u) => u.params.update.sessionUpdate)
  t.same(kinds.filter((k) => k === 'user_message_chunk').length, 2)
  t.ok(updates.every((u) => u.params.sessionId === w.id))
  const failed = updates.find((u) => u.params.update.sessionUpdate === 'tool_call_update' && u.params.update.toolCallId === 'call_b2b9f4d1')
  t.equal(failed.params.update.status, 'failed')
  t.match(updates.at(-1), { method: '_x.ai/session/update', params: { update: { sessionUpdate: 'turn_completed', stop_reason: 'end_turn' } } })
  t.equal(updates[0].params.update._meta.promptIndex, 0)
})

t.test('common → Grok → common is a fixpoint (both shapes, rebuilt and update-less sessions)', async (t) => {
  const cases: Array<[string, string]> = [
    ['v1', '01a1f84a'],
    ['v02', '7c1f2a9e'],
    ['edge', join(GROK_FIXTURES, 'edge/sessions/%2Fsrv%2Fno-chat/0a000000-0000-4000-8000-000000000002')],
    ['edge', join(GROK_FIXTURES, 'edge/sessions/%2Fsrv%2Fno-updates/0a000000-0000-4000-8000-000000000001')],
  ]
  for (const [home, ref] of cases) {
    const c0 = await gk.read(gk.ctx(join(GROK_FIXTURES, home)), ref)
    const a = tempDir(t)
    const w1 = (await gk.writeSettled(gk.ctx(a), c0)).written[0]!
    const c1 = await gk.read(gk.ctx(a), w1.path)
    const b = tempDir(t)
    const w2 = (await gk.writeSettled(gk.ctx(b), c1)).written[0]!
    const c2 = await gk.read(gk.ctx(b), w2.path)
    t.same(modelled(c2), modelled(c1), `${home} ${ref.split('/').at(-1)}: fixpoint`)
    t.ok(c1.filter((r) => r.kind === 'message').length >= 4)
  }
})

t.test('a foreign session: canonical tools mapped through the table, failed tool and image kept, fixpoint', async (t) => {
  const sid = 'claude-code:5d2f7e10-2222-4b4b-9b9b-000000000abc'
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM4IScnd0KOQU7uxIkTcgAefAS7wTuQ6wAAAABJRU5ErkJggg=='
  const recs: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'claude-code', locator: {} }, native_id: '5d2f7e10-2222-4b4b-9b9b-000000000abc', cwd: '/home/dev/demo-app', model: 'claude-sonnet-4-5', created_at: '2026-11-02T09:15:00.000Z' },
    { kind: 'message', sid, id: `${sid}:u1`, role: 'user', ts: '2026-11-02T09:15:00.000Z', context: true, context_kind: 'reminder', blocks: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }] },
    { kind: 'message', sid, id: `${sid}:u2`, role: 'user', ts: '2026-11-02T09:15:01.000Z', blocks: [{ type: 'text', text: 'Why does npm test fail?' }, { type: 'image', mime: 'image/png', data: png }] },
    { kind: 'message', sid, id: `${sid}:a1`, role: 'assistant', ts: '2026-11-02T09:15:02.000Z', model: 'claude-sonnet-4-5', blocks: [{ type: 'thinking', text: 'hmm', signature: 'sig', provider: 'anthropic' }, { type: 'text', text: 'Running it.' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test', description: 'run' } }, { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/home/dev/demo-app/package.json' } }] },
    { kind: 'message', sid, id: `${sid}:u3`, role: 'user', ts: '2026-11-02T09:15:03.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Error: no test specified', is_error: true }] },
    { kind: 'message', sid, id: `${sid}:a2`, role: 'assistant', ts: '2026-11-02T09:15:04.000Z', blocks: [{ type: 'text', text: 'The test script is a placeholder.' }], stop_reason: 'end_turn' },
  ]
  const out = tempDir(t)
  const w = (await gk.writeSettled(gk.ctx(out), recs)).written[0]!
  const chat = readFileSync(join(w.path, 'chat_history.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  const calls = chat.find((c) => c.type === 'assistant').tool_calls
  t.match(calls, [{ id: 'toolu_1', name: 'run_terminal_cmd' }, { id: 'toolu_2', name: 'read_file' }])
  t.same(JSON.parse(calls[1].arguments), { target_file: '/home/dev/demo-app/package.json' })
  t.notOk(chat.some((c) => c.type === 'reasoning'), 'an Anthropic signature cannot become xai reasoning')
  t.notOk(chat.some((c) => c.type === 'user' && JSON.stringify(c).includes('system-reminder')), 'foreign context not injected')
  t.match(chat.find((c) => c.tool_call_id === 'toolu_2'), { content: '[interrupted: no result was recorded]' }, 'every call gets a result')
  const summary = JSON.parse(readFileSync(join(w.path, 'summary.json'), 'utf8'))
  t.equal(summary.current_model_id, 'grok-4.6', 'a non-Grok model is not a Grok model id')
  t.equal(summary.session_summary, 'Why does npm test fail?')
  const c1 = await gk.read(gk.ctx(out), w.path)
  const m = c1.filter((r): r is MessageRec => r.kind === 'message')
  t.match(m.find((x) => x.blocks.some((b) => b.type === 'image')), { ts: '2026-11-02T09:15:01.000Z' })
  t.match(m.flatMap((x) => x.blocks).find((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_1'), { is_error: true })
  t.match(m.at(-1), { stop_reason: 'end_turn' })
  const again = tempDir(t)
  const w2 = (await gk.writeSettled(gk.ctx(again), c1)).written[0]!
  t.same(modelled(await gk.read(gk.ctx(again), w2.path)), modelled(c1), 'fixpoint')
})

t.test('hostile ids and overwrites: never outside <root>/sessions/<group>/<id>, no overwrite without force', async (t) => {
  const out = tempDir(t)
  const sid = 'grok:../../x'
  const recs: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'grok', locator: {} }, native_id: '../../x', cwd: '..' },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
  ]
  const first = await gk.writeSettled(gk.ctx(out), recs)
  const w = first.written[0]!
  t.match(w.id, /^[0-9a-f-]{36}$/, 'a non-UUID id is replaced by a derived UUID')
  t.ok(w.path.startsWith(join(out, 'sessions') + '/'), w.path)
  t.equal(w.path.split('/').at(-2), encodeCwdDirname('/nonexistent-home').name, 'a relative cwd falls back to home, never "..": ' + w.path)
  t.same(readdirSync(out), ['sessions'])
  const second = await gk.writeSettled(gk.ctx(out), recs)
  t.equal(second.written.length, 0)
  t.match(second.errors, [{ code: 'exists' }], 'refused without --force')
  t.match(second.rejected, { code: 'not-written', failures: [{ sid, error: { code: 'exists' } }] })
  const third = await gk.writeSettled(gk.ctx(out), recs, { force: true })
  t.equal(third.written[0]!.path, w.path, 'replaced with --force')
  t.same(readdirSync(join(out, 'sessions', w.path.split('/').at(-2)!)), [w.id], 'no temp leftovers')
})

t.test('long cwd: hashed group name with a .cwd file', async (t) => {
  const out = tempDir(t)
  const cwd = '/srv/' + 'very-long-directory-name/'.repeat(12) + 'Leaf Dir!'
  const sid = 'ferry:long'
  const { written } = await gk.writeSettled(gk.ctx(out), [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'long', cwd },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
  ])
  const group = written[0]!.path.split('/').at(-2)!
  t.match(group, /^leaf-dir-[0-9a-f]{16}$/)
  t.equal(readFileSync(join(out, 'sessions', group, '.cwd'), 'utf8'), cwd, 'cwd, no newline')
  const info = await grok.resolve!(gk.ctx(out), written[0]!.id)
  t.equal(info!.cwd, cwd)
  t.notOk(existsSync(join(out, 'sessions', group, written[0]!.id, 'assets')))
})

t.test('sink policy (library): an existing session without force rejects pipeline() with NotWrittenError, nothing touched', async (t) => {
  const root = tempDir(t)
  cpSync(join(GROK_FIXTURES, 'v1'), root, { recursive: true })
  const ctx = context({ home: '/nonexistent-home', roots: { grok: root }, diagnostics: new Diagnostics({ stream: null }) })
  const before = tree(root)
  const err = await pipeline(await open('grok:01a1f84a', { ctx }), sink('grok', { ctx })).then(
    () => null,
    (e: unknown) => e,
  )
  t.ok(err instanceof NotWrittenError, `rejects with NotWrittenError (${String(err)})`)
  t.equal((err as NotWrittenError).failures[0]!.error.code, 'exists')
  t.equal((err as NotWrittenError).failures.length, 1)
  const after = tree(root)
  t.same([...after.keys()].sort(), [...before.keys()].sort(), 'same files, no temp dir left')
  for (const [k, v] of before) t.ok(after.get(k)!.equals(v), `${k} byte-identical`)
  t.match(ctx.diagnostics.items, [{ severity: 'error', source: 'grok', code: 'exists' }], 'reported once, by the sink policy')
})

t.test('sink policy (library): the first session exists, the second is still written', async (t) => {
  const root = tempDir(t)
  cpSync(join(GROK_FIXTURES, 'v1'), root, { recursive: true })
  const ctx = context({ home: '/nonexistent-home', roots: { grok: root }, diagnostics: new Diagnostics({ stream: null }) })
  const existing = await gk.read(ctx, '01a1f84a', { native: true })
  const sid = 'ferry:second'
  const fresh: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'second', cwd: '/srv/two' },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
  ]
  const s = sink('grok', { ctx })
  const written: string[] = []
  s.on('written', (w: { path: string }) => written.push(w.path))
  const err = await pipeline(Readable.from(complete([...existing, ...fresh]), { objectMode: true }), s).then(() => null, (e: unknown) => e)
  t.match(err, { code: 'not-written', failures: [{ sid: `grok:${existing[0]!.kind === 'session' ? existing[0]!.native_id : ''}`, error: { code: 'exists' } }] })
  t.equal(written.length, 1)
  t.ok(existsSync(join(written[0]!, 'summary.json')), 'the second session committed')
  t.match(written[0], /\/sessions\/%2Fsrv%2Ftwo\//)
})

t.test('which harness a session came from: the header source first (sourceHarness), then the sid', async (t) => {
  // A Grok session whose sid a transform renamed: still Grok, so its own UUID is kept.
  const id = '0c000000-0000-4000-8000-0000000000aa'
  const sid = 'renamed:abc'
  const recs: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'grok', locator: {} }, native_id: id, cwd: '/srv/x' },
    { kind: 'message', sid, id: `${sid}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
  ]
  const out = tempDir(t)
  t.equal((await gk.writeSettled(gk.ctx(out), recs)).written[0]!.id, id)
  // No header source: the sid prefix decides (a header-less claude-code session gets a derived id).
  const h = 'claude-code:' + id
  const bare = (await gk.writeSettled(gk.ctx(tempDir(t)), [{ kind: 'message', sid: h, id: `${h}:m`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] }])).written[0]!
  t.not(bare.id, id)
})
