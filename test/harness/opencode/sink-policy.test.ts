// Issue #10, defect 3: a session OpenCode's sink cannot write (its export
// document, or the session in OpenCode's database, already exists and force
// is off) follows the one sink policy through the library: the others are
// written, the existing bytes stay, and pipeline() rejects with NotWrittenError.
import t from 'tap'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { collect, context, open, pipeline, sink, type FerryRecord } from '../../../lib/index.js'
import { NotWrittenError } from '../../../lib/errors.js'
import { Diagnostics } from '../../../lib/diagnostics.js'
import type { WrittenSession } from '../../../lib/harness/types.js'
import { opencodeHome, tempDir } from '../../kit.js'
// @ts-ignore plain JS fixture builder
import { createDb, insertDocument } from '../../../fixtures/opencode/opencode-db.mjs'

/** The demo and the archived session, read through the library, as one stream. */
async function twoSessions(t: any) {
  const built = opencodeHome(t)
  const ctx = context({ home: built.home, env: { PATH: '/nonexistent' }, diagnostics: new Diagnostics({ stream: null }) })
  const recs: FerryRecord[] = []
  for (const id of [built.demo.info.id, built.arch.info.id]) recs.push(...(await collect(await open(`opencode:${id}`, { ctx }))))
  return { ...built, ctx, recs }
}

async function write(ctx: any, recs: FerryRecord[], opts: Record<string, unknown>): Promise<{ written: WrittenSession[]; error: unknown }> {
  const written: WrittenSession[] = []
  const dest = sink('opencode', { ctx, ...opts })
  dest.on('written', (w: WrittenSession) => written.push(w))
  const error = await pipeline(Readable.from(recs), dest).then(() => null, (e: unknown) => e)
  return { written, error }
}

function notWritten(t: any, error: unknown, sid: string) {
  t.ok(error instanceof NotWrittenError, 'pipeline() rejects with NotWrittenError')
  const e = error as NotWrittenError
  t.equal(e.code, 'not-written')
  t.equal(e.failures.length, 1, 'only the existing session failed')
  t.equal(e.failures[0]!.sid, sid)
  t.equal(e.failures[0]!.error.code, 'exists')
  t.match(e.failures[0]!.error.name, 'ExistsError')
}

t.test('--out DIR: an existing document is kept, the next session is written', async (t) => {
  const { ctx, recs, demo } = await twoSessions(t)
  const out = tempDir(t, 'ferry-oc-out-')
  const first = await write(ctx, recs, { out })
  t.equal(first.error, null)
  t.equal(first.written.length, 2)
  const [a, b] = first.written.map((w) => w.path) as [string, string]
  writeFileSync(a, 'KEEP')
  rmSync(b)
  const again = await write(ctx, recs, { out })
  notWritten(t, again.error, `opencode:${demo.info.id}`)
  t.equal(ctx.diagnostics.counts.get('opencode:exists'), 1, 'reported once, as opencode:exists')
  t.equal(readFileSync(a, 'utf8'), 'KEEP', 'existing file unchanged')
  t.same(again.written.map((w) => w.path), [b], 'the second session is still written')
  t.ok(existsSync(b))
  const forced = await write(ctx, recs, { out, force: true })
  t.equal(forced.error, null)
  t.not(readFileSync(a, 'utf8'), 'KEEP', 'force replaces it')
})

t.test('--out FILE.json: the file exists, the next session still lands beside it', async (t) => {
  const { ctx, recs, demo } = await twoSessions(t)
  const file = join(tempDir(t, 'ferry-oc-out-'), 'demo.json')
  writeFileSync(file, 'KEEP')
  const r = await write(ctx, recs, { out: file })
  notWritten(t, r.error, `opencode:${demo.info.id}`)
  t.equal(readFileSync(file, 'utf8'), 'KEEP')
  t.equal(r.written.length, 1)
  t.equal(dirname(r.written[0]!.path), dirname(file))
  t.match(basename(r.written[0]!.path), /^ses_\w+\.json$/)
})

t.test('into the store: a document waiting in ferry-import, or the session already in the database', async (t) => {
  const { ctx, recs, demo, db } = await twoSessions(t)
  const first = await write(ctx, recs, {})
  t.equal(first.error, null)
  const [a, b] = first.written.map((w) => w.path) as [string, string]
  t.match(a, /\/ferry-import\/ses_\w+\.json$/)
  t.match(first.written[0]!.note, /opencode is not on PATH/)
  writeFileSync(a, 'KEEP')
  rmSync(b)
  const again = await write(ctx, recs, {})
  notWritten(t, again.error, `opencode:${demo.info.id}`)
  t.equal(readFileSync(a, 'utf8'), 'KEEP', 'the waiting document is unchanged')
  t.same(again.written.map((w) => w.path), [b])

  // As if `opencode import` had run: the session is in the database, no document is waiting.
  const doc = JSON.parse(readFileSync(b, 'utf8'))
  const h = createDb(db)
  insertDocument(h, doc)
  h.close()
  rmSync(a)
  rmSync(b)
  const dbBefore = readFileSync(db)
  const third = await write(ctx, recs, {})
  t.ok(third.error instanceof NotWrittenError)
  const e = third.error as NotWrittenError
  t.same(e.failures.map((f) => [f.sid, f.error.code]), [[recs.find((r) => r.kind === 'session' && r.native_id !== demo.info.id)!.sid, 'exists']], 'the imported session exists; the other is written')
  t.match(e.failures[0]!.error.position?.file, db)
  t.same(third.written.map((w) => w.path), [a])
  t.notOk(existsSync(b), 'no document for the session that exists')
  t.same(readFileSync(db), dbBefore, 'the database is never written by ferry')
})
