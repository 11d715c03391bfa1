// The archive through the library, in process: sync the fixture stores,
// open an archived session by `archive:<sid>`, search it.
import t from 'tap'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { collect, context, discover, getHarness, harnesses, open, openArchive, search, syncArchive, Diagnostics, type SyncSource } from '../../lib/index.js'
import { MARK_OPEN } from '../../lib/archive/search.js'
import type { ArchiveDb } from '../../lib/archive/store/db.js'
import { FIXTURES, tempDir } from '../kit.js'
import { toSchema3 } from './helpers.js'

const matches = (db: ArchiveDb) => db.prepare("SELECT rowid FROM fts WHERE fts MATCH 'codex' ORDER BY rowid").pluck().all()
const ftsSql = (db: ArchiveDb) => (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'fts'").get() as { sql: string }).sql

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

t.test('an archive made by schema 1 (source lines inside native, words kept in the index) reads back the same, read-only and once upgraded', async (t) => {
  const home = join(tempDir(t), 'home')
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  const ctx = context({ home, diagnostics: new Diagnostics({ stream: null }) })
  const archive = harnesses.find((h) => h.holdsCopies)!
  const path = archive.root(ctx)
  const sources = harnesses.filter((h) => h.kind === 'store' && h.discover && h.read && !h.holdsCopies) as unknown as SyncSource[]
  const db = openArchive(path)
  await syncArchive(ctx, db, path, sources)
  const codex = (db.prepare("SELECT sid FROM sessions WHERE sid LIKE 'codex:%' LIMIT 1").get() as { sid: string }).sid
  toSchema3(db)
  t.ok((db.prepare('SELECT count(*) AS n FROM records WHERE raw IS NOT NULL').get() as { n: number }).n > 0, 'source lines kept in their own column')
  t.match(ftsSql(db), /content=''/, 'a new archive indexes without a copy of the words')
  // Back to the first layout: the line inside native's JSON, no raw column, no filter index, no version in meta,
  // and an index holding its own copy of the words (here the record JSON, which an upgrade must carry over as it is).
  db.exec(`UPDATE records SET native = json_set(coalesce(native, '{}'), '$.raw', raw) WHERE raw IS NOT NULL;
    DROP INDEX records_filter; ALTER TABLE records DROP COLUMN raw; DELETE FROM meta WHERE key = 'ver'; UPDATE meta SET value = '1' WHERE key = 'schema';
    DROP TABLE fts; CREATE VIRTUAL TABLE fts USING fts5(text, tools, title, cwd, tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO fts(rowid, text, tools, title, cwd) SELECT -rowid, '', '', coalesce(title, ''), coalesce(cwd, '') FROM sessions;
    INSERT INTO fts(rowid, text, tools, title, cwd) SELECT rid, body, coalesce(tools, ''), '', '' FROM records`)
  const oldMatches = matches(db)
  t.ok(oldMatches.length > 0)
  db.close()
  const fromStore = await collect(await open(codex, { ctx }))
  t.same(await collect(await open(`${archive.id}:${codex}`, { ctx })), fromStore, 'read-only, as schema 1 left it')
  const ro = openArchive(path, { readonly: true })
  t.ok(search(ro, 'codex').some((h) => h.sid === codex), 'searched read-only, as schema 1 left it')
  ro.close()
  const up = openArchive(path)
  const again = await syncArchive(ctx, up, path, sources)
  t.same(again.records, { added: 0, changed: 0 }, 'upgraded in place; nothing re-added')
  t.same(up.prepare("SELECT value FROM meta WHERE key = 'schema'").get(), { value: '5' })
  t.match(ftsSql(up), /content=''/, 'the index rebuilt contentless')
  t.same(matches(up), oldMatches, 'with the words the old index held')
  const root = up.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'fts_data'").pluck().get()
  up.close()
  const reopened = openArchive(path)
  t.equal(reopened.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'fts_data'").pluck().get(), root, 'rebuilt once: opening again leaves the index as it is')
  reopened.close()
  t.same(await collect(await open(`${archive.id}:${codex}`, { ctx })), fromStore, 'and after the upgrade')
  const r = openArchive(path, { readonly: true })
  t.ok(search(r, 'codex OR the OR a', { role: 'user' }).length > 0, 'filtered search on the upgraded archive')
  const userText = (fromStore.find((x) => x.kind === 'message' && x.role === 'user' && !x.context) as any).blocks.find((b: any) => b.type === 'text').text as string
  const word = userText.match(/[A-Za-z]{4,}/)![0]
  const hit = search(r, word, { harnesses: [getHarness('codex').id] }).find((h) => h.sid === codex && h.kind === 'message')
  t.ok(hit && hit.snippet.includes(MARK_OPEN), `a snippet with "${word}" marked, made from the record`)
  r.close()
})
