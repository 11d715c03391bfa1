// Issue #49: schema 5 keeps a session's consecutive rows compressed together in blocks
// (lib/archive/store/pack.ts, `BlockBuilder`). Re-archiving a changed session stays exact:
// appended records, records rewritten in place (into a new block; a block no record points at
// is deleted), a session that shrank (its missing records kept, off the active branch), an id
// read twice in one session, a commit in the middle of a session, and a rolled-back batch.
import t from 'tap'
import { join } from 'node:path'
import type { FerryRecord, SessionRec } from '../../lib/model.js'
import { openArchive, type ArchiveDb } from '../../lib/archive/store/db.js'
import { ArchiveWriter, archivedRecords } from '../../lib/archive/store/store.js'
import { BLOCK_BYTES } from '../../lib/archive/store/pack.js'
import { tempDir } from '../kit.js'
import { blockHeader, blockInvariants, blockRec } from './helpers.js'

type Tap = typeof t

const SID = 'claude-code:blocks-1'
const header = (sid = SID): SessionRec => blockHeader(sid)
const rec = (i: number, v = 0, sid = SID): FerryRecord => blockRec(sid, i, v)

/** Writes one read of a session: the records given, in order; `commitEvery` commits inside it. */
function write(db: ArchiveDb, path: string, recs: FerryRecord[], opts: { commitEvery?: number; sid?: string } = {}) {
  const w = new ArchiveWriter(db, path)
  w.begin()
  w.openSession(header(opts.sid))
  recs.forEach((r, i) => {
    w.write(structuredClone(r))
    if (opts.commitEvery && (i + 1) % opts.commitEvery === 0) {
      w.commit()
      w.begin()
    }
  })
  const c = w.finishSession(undefined, { complete: true, fingerprint: 'fp' })
  w.commit()
  return c
}

async function read(db: ArchiveDb, sid = SID) {
  const out: Array<FerryRecord & { branch?: { active?: boolean } }> = []
  for await (const r of archivedRecords(db, sid, { children: false })) if (r.kind === 'message') out.push(r as (typeof out)[number])
  return out
}


const texts = (rs: FerryRecord[]) => rs.map((r) => JSON.stringify(r))

t.test('a session written, appended to, rewritten in place and shrunk reads back exactly', async (t) => {
  const path = join(tempDir(t), 'archive.db')
  const db = openArchive(path)
  t.teardown(() => db.close())
  const first = Array.from({ length: 60 }, (_, i) => rec(i))
  t.same(write(db, path, first), { added: 60, changed: 0, same: 0 })
  const blocks = (db.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }).n
  const plain = first.reduce((n, r) => n + JSON.stringify(r).length, 0)
  t.ok(blocks >= 2 && blocks <= Math.ceil(plain / BLOCK_BYTES) + 1, `${blocks} blocks for about ${plain} bytes of records`)
  t.same(texts(await read(db)), texts(first), 'first archive: every record as written')
  blockInvariants(t, db, 'first archive')

  // Appended, and two records rewritten in place (an OpenCode part that finished).
  const second = [...first.slice(0, 60), ...Array.from({ length: 10 }, (_, i) => rec(60 + i))]
  second[5] = rec(5, 1)
  second[40] = rec(40, 1)
  t.same(write(db, path, second), { added: 10, changed: 2, same: 58 })
  t.same(texts(await read(db)), texts(second), 'appended and rewritten: every record as it is now')
  blockInvariants(t, db, 'appended and rewritten')

  // Every record of the first block rewritten: that block is no longer pointed at, and goes.
  const firstBlock = (db.prepare('SELECT min(bid) AS b FROM records WHERE sid = ?').get(SID) as { b: number }).b
  const inFirst = (db.prepare('SELECT ord FROM records WHERE bid = ? ORDER BY ord').all(firstBlock) as { ord: number }[]).map((r) => r.ord)
  const third = second.map((r, i) => (inFirst.includes(i) ? rec(i, 2) : r))
  t.same(write(db, path, third), { added: 0, changed: inFirst.length, same: 70 - inFirst.length })
  t.same(db.prepare('SELECT count(*) AS n FROM blocks WHERE bid = ?').get(firstBlock), { n: 0 }, `block ${firstBlock} (${inFirst.length} records, all rewritten) deleted`)
  t.same(texts(await read(db)), texts(third))
  blockInvariants(t, db, 'a block rewritten whole')

  // The session shrank (a rewind): what is gone from the source is kept, off the active branch.
  const fourth = third.slice(0, 25)
  t.same(write(db, path, fourth), { added: 0, changed: 0, same: 25 })
  const got = await read(db)
  t.same(texts(got.slice(0, 25)), texts(fourth), 'what the source still has, as it is')
  t.equal(got.length, 70, 'nothing lost')
  t.ok(got.slice(25).every((r) => r.branch?.active === false), 'the rest kept, marked off the active branch')
  blockInvariants(t, db, 'shrunk')

  // A re-run of the same read rewrites nothing.
  const top = db.prepare('SELECT max(bid) AS b, count(*) AS n FROM blocks').get()
  t.same(write(db, path, fourth), { added: 0, changed: 0, same: 25 })
  t.same(db.prepare('SELECT max(bid) AS b, count(*) AS n FROM blocks').get(), top, 'no block written by an unchanged read')
})

t.test('an id read twice in one session, commits inside a session, and a rolled-back batch', async (t) => {
  const path = join(tempDir(t), 'archive.db')
  const db = openArchive(path)
  t.teardown(() => db.close())
  // The same id twice in one read, the second time changed, while its row is still in the block being filled.
  const recs = [rec(0), rec(1), rec(2), rec(1, 1), rec(3)]
  t.same(write(db, path, recs), { added: 4, changed: 1, same: 0 })
  t.same(texts(await read(db)).sort(), texts([rec(0), rec(1, 1), rec(2), rec(3)]).sort(), 'the later text of the record read twice')
  blockInvariants(t, db, 'an id twice')

  // A commit every 7 records of a 40-record session: each commit ends its block, none is left half-written.
  const other = 'claude-code:blocks-2'
  const many = Array.from({ length: 40 }, (_, i) => rec(i, 0, other))
  t.same(write(db, path, many, { commitEvery: 7, sid: other }), { added: 40, changed: 0, same: 0 })
  t.same(texts(await read(db, other)), texts(many))
  t.ok((db.prepare('SELECT count(*) AS n FROM blocks WHERE bid IN (SELECT bid FROM records WHERE sid = ?)').get(other) as { n: number }).n >= 6, 'a block per committed batch at least')
  blockInvariants(t, db, 'commits inside a session')

  // A batch rolled back leaves no block and no record; the next write numbers blocks after every one committed.
  const before = db.prepare('SELECT count(*) AS n, max(bid) AS top FROM blocks').get() as { n: number; top: number }
  const w = new ArchiveWriter(db, path)
  w.begin()
  w.openSession(header('claude-code:blocks-3'))
  for (let i = 0; i < 30; i++) w.write(rec(i, 0, 'claude-code:blocks-3'))
  w.rollback()
  t.same(db.prepare('SELECT count(*) AS n, max(bid) AS top FROM blocks').get(), before, 'rolled back: no block')
  t.same(await read(db, 'claude-code:blocks-3'), [], 'and no record')
  t.same(write(db, path, [rec(0, 0, 'claude-code:blocks-3')], { sid: 'claude-code:blocks-3' }), { added: 1, changed: 0, same: 0 })
  t.ok((db.prepare('SELECT max(bid) AS b FROM blocks').get() as { b: number }).b > before.top, 'a new block number')
  blockInvariants(t, db, 'after a rollback')
})

t.test('a session archived a few records at a time (a hook after every turn) fills its last block, not one block per run', async (t) => {
  const path = join(tempDir(t), 'archive.db')
  const db = openArchive(path)
  t.teardown(() => db.close())
  const all: FerryRecord[] = []
  const blocksOf = () => db.prepare('SELECT DISTINCT bid FROM records WHERE sid = ? ORDER BY bid').pluck().all(SID) as number[]
  for (let turn = 0; turn < 8; turn++) {
    all.push(rec(2 * turn), rec(2 * turn + 1))
    // Each run reads the whole session; the second of the two records of turn 3 was rewritten since.
    if (turn === 3) all[1] = rec(1, 1)
    write(db, path, all)
    t.same(texts(await read(db)), texts(all), `turn ${turn}: every record as it is now`)
  }
  const bids = blocksOf()
  t.equal(bids.length, 1, `16 records of about 5 KB, written in 8 runs, in ${bids.length} block`)
  blockInvariants(t, db, 'after 8 runs')
  // Past 64 KB the block is written full and the next one takes the rest; a later run fills that one, and leaves the full one as it is.
  for (let i = 16; i < 40; i++) all.push(rec(i))
  write(db, path, all)
  const two = blocksOf()
  t.equal(two.length, 2, `40 records in ${two.length} blocks`)
  all.push(rec(40), rec(41))
  write(db, path, all)
  const after = blocksOf()
  t.ok(after.length === 2 && after[0] === two[0] && after[1]! > two[1]!, `the full block kept, the last one filled further (${two.join(', ')} → ${after.join(', ')})`)
  t.same(texts(await read(db)), texts(all))
  blockInvariants(t, db, 'past one block')
})
