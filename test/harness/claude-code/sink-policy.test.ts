// The sink policy through the public library, as a program would meet it:
// a session that cannot be written fails alone, the others are written.
import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { collect, concatSources, context, NotWrittenError, open, pipeline, sink, type FerryRecord } from '../../../lib/index.js'
import { FIXTURE, complete, kit, tempDir } from '../../kit.js'
import { Diagnostics } from '../../../lib/diagnostics.js'

const { project: PROJECT, feature: FEATURE_ID, damaged: DAMAGED_ID, agent: AGENT_ID } = FIXTURE.claudeCode
const cc = kit('claude-code')

const quiet = (home: string) => context({ home, diagnostics: new Diagnostics({ stream: null }) })

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort()
}

t.test('an existing session without force: pipeline rejects with NotWrittenError, the file is untouched', async (t) => {
  const home = cc.home(t)
  const ctx = quiet(home)
  const file = join(home, '.claude', 'projects', '-home-dev-demo-app', `${DAMAGED_ID}.jsonl`)
  const before = readFileSync(file)
  const err = await pipeline(await open(`claude-code:${DAMAGED_ID}`, { ctx }), sink('claude-code', { ctx })).then(() => null, (e: unknown) => e)
  t.ok(err instanceof NotWrittenError, 'rejects with NotWrittenError')
  t.match(err, { code: 'not-written', failures: [{ sid: `claude-code:${DAMAGED_ID}`, error: { code: 'exists' } }] })
  t.ok(readFileSync(file).equals(before), 'byte-identical')
  t.same(files(join(home, '.claude')).filter((p) => p.includes('.ferry-tmp-')), [], 'no temp file left')
  t.match(ctx.diagnostics.items.filter((d) => d.code === 'exists'), [{ severity: 'error', source: 'claude-code' }], 'reported once, as the sink policy says')
})

t.test('the first session exists, the second is still written', async (t) => {
  const ctx = quiet(cc.home(t))
  const out = tempDir(t)
  await pipeline(await open(`claude-code:${DAMAGED_ID}`, { ctx }), sink('claude-code', { ctx, out }))
  const target = join(out, 'projects', '-home-dev-demo-app')
  const damaged = readFileSync(join(target, `${DAMAGED_ID}.jsonl`))
  const dest = sink('claude-code', { ctx, out })
  const written: string[] = []
  dest.on('written', (w: { id: string }) => written.push(w.id))
  const both = concatSources([() => open(`claude-code:${DAMAGED_ID}`, { ctx }), () => open(`claude-code:${FEATURE_ID}`, { ctx })])
  await t.rejects(pipeline(both, dest), { code: 'not-written', failures: [{ error: { code: 'exists' } }] })
  t.same(written, [FEATURE_ID, `agent-${AGENT_ID}`])
  t.ok(readFileSync(join(target, `${FEATURE_ID}.jsonl`)).equals(readFileSync(join(PROJECT, `${FEATURE_ID}.jsonl`))), 'the second session, byte for byte')
  t.ok(readFileSync(join(target, `${DAMAGED_ID}.jsonl`)).equals(damaged), 'the first one untouched')
})

t.test('a sub-agent shares its parent\'s fate instead of landing in the store on its own', async (t) => {
  const home = cc.home(t)
  const ctx = quiet(home)
  const before = files(join(home, '.claude'))
  const err = await pipeline(await open(`claude-code:${FEATURE_ID}`, { ctx }), sink('claude-code', { ctx })).then(() => null, (e: unknown) => e)
  t.match(err, { code: 'not-written', failures: [{ sid: `claude-code:${FEATURE_ID}`, error: { code: 'exists' } }, { sid: `claude-code:agent-${AGENT_ID}`, error: { code: 'exists' } }] })
  t.same(files(join(home, '.claude')), before, 'no stray session was written')
})

t.test('written ids are the same name-based UUIDs as before (same namespace, same names)', async (t) => {
  const sid = 'codex:x1'
  const recs = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: 'x1', cwd: '/w' },
    { kind: 'message', sid, id: `${sid}:1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'hi' }] },
    { kind: 'message', sid, id: `${sid}:2`, role: 'assistant', ts: null, blocks: [{ type: 'text', text: 'hello' }] },
  ] as FerryRecord[]
  const out = tempDir(t)
  const ctx = quiet(out)
  const dest = sink('claude-code', { ctx, out })
  const written: Array<{ id: string; path: string }> = []
  dest.on('written', (w: { id: string; path: string }) => written.push(w))
  await pipeline(Readable.from(complete(recs), { objectMode: true }), dest)
  // Values of the hand-written v5 this replaced; an existing written session must keep its name.
  t.equal(written[0]!.id, '8d3a63cc-fffa-5ce0-8a9d-4dd65bf57d10')
  const lines = readFileSync(written[0]!.path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  t.same(lines.filter((l) => l.uuid).map((l) => l.uuid), ['121e1468-192b-5663-a6bd-15b1f4b67946', '7db415eb-dc54-5fc6-87c7-9143acf51d28'])
  const back = await collect(await open(written[0]!.path, { ctx }))
  t.equal(back[0]!.kind, 'session')
})
