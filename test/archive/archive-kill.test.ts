// kill -9 during `ferry archive` (one thread, and --jobs 2 with reader
// threads) on generated Claude Code homes: after each kill the archive is
// consistent (SQLite's integrity check, every record under its session,
// every finished session whole), and a re-run finishes the job with the
// counts and index of an uninterrupted run. Where a kill lands is reported,
// never asserted.
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, fileTimeout, scaled, spawnFerry } from '../kit.js'
import { consistent, generatedHome, query, referenceArchive } from './helpers.js'

fileTimeout(t, 10 * 60_000)

t.test('kill -9 during archive, then a re-run: consistent after each kill, and the re-run finishes the job', async (t) => {
  const { dir, home } = generatedHome(t, 60, 'archive-test')
  const { reference, want } = await referenceArchive(t, dir, home)
  t.ok(want.s >= 60 && want.r > 60 * 15, `reference: ${want.s} sessions, ${want.r} records`)

  const db = join(dir, 'killed.db')
  const records = () => {
    try {
      return query<{ n: number }>(db, 'SELECT count(*) AS n FROM records')[0]!.n
    } catch {
      return 0 // Schema not there yet.
    }
  }
  // First kill aimed at the middle of the run (once a batch is committed), the second at a fixed moment,
  // wherever the run is. Where each lands is reported, never asserted: the archive is consistent after either.
  for (const when of ['first-batch', 400] as const) {
    const { child, exited, killGroup } = spawnFerry(['--home', home, '--db', db, 'archive', '--json'])
    const t0 = Date.now()
    if (when === 'first-batch') while (child.exitCode === null && Date.now() - t0 < scaled(60_000) && !(existsSync(db) && records() > 0)) await new Promise((r) => setTimeout(r, 20))
    else await new Promise((r) => setTimeout(r, when))
    killGroup()
    const end = await exited
    t.ok(end.signal === 'SIGKILL' || end.code === 0, `killed (${when}), or had finished before the kill (${end.signal ?? end.code})`)
    t.comment(`kill (${when}) landed at ${existsSync(db) ? records() : 0} of ${want.r} records`)
    if (existsSync(db)) consistent(t, db, `after kill -9 (${when})`)
  }
  const rerun = await ferry(['--home', home, '--db', db, 'archive', '--json'])
  t.equal(rerun.code, 0, rerun.stderr)
  t.same(query(db, 'SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM records) AS r'), [want], 'the re-run finished the job')
  consistent(t, db, 'after the re-run')
  t.same(query(db, 'SELECT (SELECT count(*) FROM fts WHERE rowid > 0) AS n'), query(reference, 'SELECT (SELECT count(*) FROM fts WHERE rowid > 0) AS n'), 'the index too')
})

t.test('kill -9 during archive --jobs 2: consistent after the kill, and a re-run finishes the job', async (t) => {
  const { dir, home } = generatedHome(t, 150, 'archive-readers')
  const { reference } = await referenceArchive(t, dir, home, '--jobs', '1')
  const counts = (db: string) => query(db, 'SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM records) AS r, (SELECT count(*) FROM fts WHERE rowid > 0) AS f')
  const db = join(dir, 'killed.db')
  const { child, exited, killGroup } = spawnFerry(['--home', home, '--db', db, 'archive', '--json', '--jobs', '2'])
  const t0 = Date.now()
  const records = () => {
    try {
      return (query<{ n: number }>(db, 'SELECT count(*) AS n FROM records')[0]?.n ?? 0)
    } catch {
      return 0
    }
  }
  // Aimed at the middle of the run (once a batch is committed); where it lands is reported, not asserted.
  while (child.exitCode === null && Date.now() - t0 < scaled(60_000) && !(existsSync(db) && records() > 0)) await new Promise((r) => setTimeout(r, 20))
  killGroup()
  const end = await exited
  t.ok(end.signal === 'SIGKILL' || end.code === 0, `killed, or had finished before the kill (${end.signal ?? end.code})`)
  const want = counts(reference)[0] as { r: number }
  t.comment(`the kill landed at ${existsSync(db) ? records() : 0} of ${want.r} records`)
  if (existsSync(db)) consistent(t, db, 'after kill -9')
  const rerun = await ferry(['--home', home, '--db', db, 'archive', '--json', '--jobs', '2'])
  t.equal(rerun.code, 0, rerun.stderr)
  t.same(counts(db), counts(reference), 'sessions, records and index as an uninterrupted run')
  consistent(t, db, 'after the re-run')
})

