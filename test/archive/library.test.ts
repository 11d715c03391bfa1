// The archive through the library, in process: sync the fixture stores,
// open an archived session by `archive:<sid>`, search it.
import t from 'tap'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { collect, context, discover, getHarness, harnesses, open, openArchive, search, syncArchive, Diagnostics, type SyncSource } from '../../lib/index.js'
import { FIXTURES, tempDir } from '../helpers.js'

process.env.TZ = 'UTC'

t.test('sync, read back and search through the library', async (t) => {
  const home = join(tempDir(t), 'home')
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  const ctx = context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const archive = harnesses.find((h) => h.holdsCopies)!
  const path = archive.root(ctx)
  t.equal(path, join(home, '.local/share/ferry/archive.db'), 'default path under XDG data home')
  const sources = harnesses.filter((h) => h.kind === 'store' && h.discover && h.read && !h.holdsCopies) as unknown as SyncSource[]
  const db = openArchive(path)
  const sum = await syncArchive(ctx, db, path, sources)
  const again = await syncArchive(ctx, db, path, sources)
  db.close()
  t.equal(sum.sessions.failed, 0)
  t.ok(sum.sessions.added >= 4, `${sum.sessions.added} sessions`)
  t.same(again.records, { added: 0, changed: 0 }, 'idempotent')

  const live = [] as string[]
  for await (const s of discover({ ctx })) live.push(s.sid)
  t.notOk(live.some((sid) => live.indexOf(sid) !== live.lastIndexOf(sid)), 'library discover lists no archived copies')
  const codex = live.find((s) => s.startsWith(`${getHarness('codex').id}:`))!
  const fromStore = await collect(await open(codex, { ctx }))
  const fromArchive = await collect(await open(`${archive.id}:${codex}`, { ctx }))
  t.same(fromArchive, fromStore, 'the archived session reads back as the same records, native included')

  const r = openArchive(path, { readonly: true })
  const userText = (fromStore.find((x) => x.kind === 'message' && x.role === 'user' && !x.context) as any).blocks.find((b: any) => b.type === 'text').text as string
  const word = userText.match(/[A-Za-z]{4,}/)![0]
  const hits = search(r, word, { harnesses: [getHarness('codex').id] })
  r.close()
  t.ok(hits.some((h) => h.sid === codex), `search "${word}" finds the Codex session`)
})

t.test('an archive made by schema 1 (source lines inside native) reads back the same, read-only and once upgraded', async (t) => {
  const home = join(tempDir(t), 'home')
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  const ctx = context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const archive = harnesses.find((h) => h.holdsCopies)!
  const path = archive.root(ctx)
  const sources = harnesses.filter((h) => h.kind === 'store' && h.discover && h.read && !h.holdsCopies) as unknown as SyncSource[]
  const db = openArchive(path)
  await syncArchive(ctx, db, path, sources)
  const codex = (db.prepare("SELECT sid FROM sessions WHERE sid LIKE 'codex:%' LIMIT 1").get() as { sid: string }).sid
  t.ok((db.prepare('SELECT count(*) AS n FROM records WHERE raw IS NOT NULL').get() as { n: number }).n > 0, 'source lines kept in their own column')
  // Back to the first layout: the line inside native's JSON, no raw column, no filter index, no version in meta.
  db.exec(`UPDATE records SET native = json_set(coalesce(native, '{}'), '$.raw', raw) WHERE raw IS NOT NULL;
    DROP INDEX records_filter; ALTER TABLE records DROP COLUMN raw; DELETE FROM meta WHERE key = 'ver'; UPDATE meta SET value = '1' WHERE key = 'schema'`)
  db.close()
  const fromStore = await collect(await open(codex, { ctx }))
  t.same(await collect(await open(`${archive.id}:${codex}`, { ctx })), fromStore, 'read-only, as schema 1 left it')
  const up = openArchive(path)
  const again = await syncArchive(ctx, up, path, sources)
  t.same(again.records, { added: 0, changed: 0 }, 'upgraded in place; nothing re-added')
  t.same(up.prepare("SELECT value FROM meta WHERE key = 'schema'").get(), { value: '2' })
  up.close()
  t.same(await collect(await open(`${archive.id}:${codex}`, { ctx })), fromStore, 'and after the upgrade')
  const r = openArchive(path, { readonly: true })
  t.ok(search(r, 'codex OR the OR a', { role: 'user' }).length > 0, 'filtered search on the upgraded archive')
  r.close()
})
