// The public library entry, used as a program would use it.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { collect, context, discover, open, pipeline, sink, type FerryRecord, type MessageRec } from '../../lib/index.js'
import { redact } from '../../transforms/index.js'
import { FIXTURES, tempDir } from '../kit.js'

const HOME = join(FIXTURES, 'home')

t.test('open → transforms → sink, from the library', async (t) => {
  const ctx = context({ home: HOME })
  const found = []
  for await (const s of discover({ ctx })) found.push(s.harness)
  t.same(found.sort(), ['claude-code', 'codex', 'copilot', 'cursor', 'gemini', 'grok', 'kilo', 'opencode', 'pi', 'qwen', 'zcode'])

  const out = tempDir(t)
  const written: string[] = []
  const seen: string[] = []
  const dest = sink('claude-code', { ctx, out })
  dest.on('written', (w: { path: string }) => written.push(w.path))
  // A plain function is a stage too: here it only watches the records go by.
  await pipeline(await open('codex:019a3c1e', { ctx }), (rec: FerryRecord) => {
    seen.push(rec.kind)
    return rec
  }, redact(), dest)
  t.equal(written.length, 1)
  t.equal(seen[0], 'session', 'the header comes first')
  t.match(readFileSync(written[0]!, 'utf8'), /"sessionId"/)

  const back = await collect(await open(written[0]!, { ctx }))
  const msgs = back.filter((r): r is MessageRec => r.kind === 'message')
  t.ok(msgs.some((m) => m.blocks.some((b) => b.type === 'tool_use')), 'tool calls survive')
})

t.test('a record function may drop or split records', async (t) => {
  const ctx = context({ home: HOME })
  const records: FerryRecord[] = []
  const { Writable } = await import('node:stream')
  await pipeline(
    await open('grok:01a1f84a', { ctx }),
    (rec: FerryRecord) => (rec.kind === 'message' && rec.role === 'user' ? null : rec),
    new Writable({ objectMode: true, write: (r, _e, cb) => (records.push(r), cb()) }),
  )
  t.ok(records.length > 0)
  t.notOk(records.some((r) => r.kind === 'message' && r.role === 'user'), 'user messages dropped')
})

t.test('open and sink take { home }; pipeline resolves to the written sessions', async (t) => {
  const out = tempDir(t)
  const written = await pipeline(await open('codex:019a3c1e', { home: HOME }), sink('claude-code', { home: out }))
  t.equal(written.length, 1, 'one session written')
  t.match(written[0], { harness: 'claude-code', from: 'codex:019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b' })
  t.ok(written[0]!.path.startsWith(out), 'into the given home, not the real one')
  const listed = []
  for await (const s of discover({ home: out })) listed.push(s.sid)
  t.same(listed, [`claude-code:${written[0]!.id}`], 'discover takes { home } too')
  await t.rejects(open('codex:019a3c1e', { home: out }), { code: 'no-session' }, 'home is honoured: the sample is not there')
  t.throws(() => sink('codex', { home: out, ctx: context({ home: out }) }), { code: 'usage' }, 'ctx or home, not both')
})
