// Issue #10, defect 2: every OpenCode diagnostic and error carries a code from
// lib/codes.ts and the source `opencode`, so it prints as `opencode:<code>`.
import t from 'tap'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isCode } from '../../../lib/codes.js'
import { FerryError } from '../../../lib/errors.js'
import type { FerryRecord, MessageRec } from '../../../lib/model.js'
import { opencode } from '../../../lib/harness/opencode/index.js'
import { sink as openCodeSink } from '../../../lib/harness/opencode/sink.js'
import { collect, ferry, kit, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder
import { createDb, insertDocument, idMaker } from '../../../fixtures/opencode/opencode-db.mjs'
// @ts-ignore
import { demoSession } from '../../../fixtures/opencode/scenarios.mjs'

const oc = kit('opencode')

/** A HOME whose demo session has a message row that is not JSON and one with an unknown role. */
function badRowsHome(t: any) {
  const home = tempDir(t, 'ferry-oc-codes-')
  const dir = join(home, '.local/share/opencode')
  mkdirSync(dir, { recursive: true })
  const db = createDb(join(dir, 'opencode.db'))
  const demo = demoSession(idMaker())
  const [, s1, s2] = demo.messages
  insertDocument(db, demo, { rawMessages: { [s1.info.id]: '{"role":"assistant",', [s2.info.id]: '{"role":"system","time":{"created":1}}' } })
  db.close()
  return { home, db: join(dir, 'opencode.db'), demo, broken: s1.info.id, system: s2.info.id }
}

t.test('bad message rows and unknown roles: bad-row and unknown-role, located by row', async (t) => {
  const { home, db, demo, broken, system } = badRowsHome(t)
  const ctx = oc.ctx(home)
  const recs = await oc.read(ctx, (await opencode.resolve!(ctx, demo.info.id))!)
  t.match(ctx.diagnostics.items, [
    { severity: 'error', code: 'bad-row', source: 'opencode', position: { file: db, row: `message:${broken}` } },
    { severity: 'warning', code: 'unknown-role', source: 'opencode', position: { file: db, row: `message:${system}` } },
  ])
  t.same([...ctx.diagnostics.counts.keys()].sort(), ['opencode:bad-row', 'opencode:unknown-role'])
  t.match(recs.find((r) => r.kind === 'end'), { counts: { skipped_rows: 2 } })
  t.ok(ctx.diagnostics.items.every((d) => isCode(d.code)))
})

t.test('a database that cannot be opened: db-error, and the other databases are still listed', async (t) => {
  const home = tempDir(t, 'ferry-oc-codes-')
  const dir = join(home, '.local/share/opencode')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'opencode.db'), 'this is not a SQLite database, but long enough to look like one'.repeat(100))
  const good = createDb(join(dir, 'opencode-dev.db'))
  insertDocument(good, demoSession(idMaker()))
  good.close()
  const ctx = oc.ctx(home)
  const listed = await collect(opencode.discover!(ctx))
  t.equal(listed.length, 1, 'the channel database is still read')
  t.match(ctx.diagnostics.items, [{ severity: 'error', code: 'db-error', source: 'opencode', position: { file: join(dir, 'opencode.db') } }])
  t.notMatch(ctx.diagnostics.items[0]!.message, join(dir, 'opencode.db'), 'the path is in the position, not repeated in the message')
  // Reading a session whose database went away is a located db-error too.
  const gone = { ...listed[0]!, path: join(dir, 'gone.db'), locator: { db: join(dir, 'gone.db') } }
  const err = await oc.read(ctx, gone).catch((e: unknown) => e)
  t.ok(err instanceof FerryError)
  t.match(err, { code: 'db-error', source: 'opencode', position: { file: join(dir, 'gone.db') } })
})

t.test('the CLI prints opencode:<code> with the row', async (t) => {
  const { home, broken } = badRowsHome(t)
  const r = await ferry(['cat', '--home', home, '--from', 'opencode', '--all'])
  t.match(r.stderr, `opencode:bad-row: `)
  t.match(r.stderr, `[message:${broken}]`)
  t.match(r.stderr, 'opencode:unknown-role: ')
})

t.test('writing: a tool result without its call is an orphan-result warning from opencode', async (t) => {
  const ctx = oc.ctx(tempDir(t, 'ferry-oc-codes-'))
  const sid = 'codex:0199aaaa-0000-7000-8000-000000000001'
  const msg = (id: string, role: 'user' | 'assistant', blocks: any[]): MessageRec => ({ kind: 'message', sid, id: `${sid}:${id}`, role, ts: '2026-11-02T09:15:00.000Z', blocks })
  const recs: FerryRecord[] = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'codex', locator: {} }, native_id: '0199aaaa', cwd: '/tmp' },
    msg('1', 'user', [{ type: 'text', text: 'hi' }]),
    msg('2', 'assistant', [{ type: 'text', text: 'hello' }]),
    msg('3', 'user', [{ type: 'tool_result', tool_use_id: 'call_nowhere', content: 'x' }]),
  ]
  await oc.write(ctx, recs, { out: join(tempDir(t, 'ferry-oc-out-'), 'o.json') })
  t.match(ctx.diagnostics.items, [{ severity: 'warning', code: 'orphan-result', source: 'opencode' }])
})
