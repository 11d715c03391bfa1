// Issue #49: a reader thread seals (compresses) the blocks of a session new to the archive
// (lib/archive/seal.ts) and the writer stores them as they come, when its own block holds the
// same rows at the same indexes; otherwise it seals its own. Either way the archive is the one
// the writer makes alone: the same blocks, the same rows in them, every record back exactly.
// Here the reader's side runs in this thread, on the events a reader sends (`BlockSealer`).
import t from 'tap'
import { join } from 'node:path'
import type { FerryRecord, SessionRec } from '../../lib/model.js'
import { openArchive, type ArchiveDb } from '../../lib/archive/store/db.js'
import { ArchiveWriter, RowMaker, archivedRecords, type Row } from '../../lib/archive/store/store.js'
import { BlockSealer } from '../../lib/archive/seal.js'
import type { SessionEvent } from '../../lib/archive/sync.js'
import { tempDir } from '../kit.js'
import { blockHeader, blockInvariants, blockRec } from './helpers.js'

type Tap = typeof t

const SID = 'claude-code:seal-1'
const header = (sid = SID): SessionRec => blockHeader(sid)
const rec = (i: number, v = 0, sid = SID): FerryRecord => blockRec(sid, i, v)

/** What a reader sends for one read: each session's header then its rows (made as a reader makes them), in batches of 5, through a sealer. */
function readerEvents(sessions: Array<[string, FerryRecord[]]>, here: () => boolean): SessionEvent[] {
  const maker = new RowMaker()
  const evs: SessionEvent[] = []
  for (const [sid, recs] of sessions) {
    maker.reset()
    evs.push(header(sid), ...recs.map((r) => maker.row(structuredClone(r))))
  }
  const sealer = new BlockSealer(here)
  const out: SessionEvent[] = []
  for (let i = 0; i < evs.length; i += 5) out.push(...sealer.take(evs.slice(i, i + 5)))
  return [...out, ...sealer.flush()]
}

/** The writer's side of a read (as lib/archive/sync.ts's syncOne takes a reader's events). */
function writeEvents(db: ArchiveDb, path: string, evs: SessionEvent[]): void {
  const w = new ArchiveWriter(db, path)
  w.begin()
  let open = false
  for (const e of evs) {
    if ('data' in e) w.writeRow(e as Row)
    else if (e.kind === 'block') w.takeBlock(e.rows, e.blob)
    else if (e.kind === 'session') {
      if (open) w.finishSession(undefined, { complete: true, fingerprint: 'fp' })
      w.openSession(e as SessionRec)
      open = true
    }
  }
  if (open) w.finishSession(undefined, { complete: true, fingerprint: 'fp' })
  w.commit()
}

/** The writer alone (`convert --to archive`, a session read in the writer's thread). */
function writeAlone(db: ArchiveDb, path: string, sessions: Array<[string, FerryRecord[]]>): void {
  const w = new ArchiveWriter(db, path)
  w.begin()
  for (const [sid, recs] of sessions) {
    w.openSession(header(sid))
    for (const r of recs) w.write(structuredClone(r))
    w.finishSession(undefined, { complete: true, fingerprint: 'fp' })
  }
  w.commit()
}

function fresh(t: Tap, name: string): { db: ArchiveDb; path: string } {
  const path = join(tempDir(t), `${name}.db`)
  const db = openArchive(path)
  t.teardown(() => db.close())
  return { db, path }
}

async function read(db: ArchiveDb, sid = SID): Promise<string[]> {
  const out: string[] = []
  for await (const r of archivedRecords(db, sid, { children: false })) if (r.kind === 'message') out.push(JSON.stringify(r))
  return out
}

const texts = (rs: FerryRecord[]) => rs.map((r) => JSON.stringify(r))

/** Each record's place: its block (numbered from the session's first) and index there. */
function layout(db: ArchiveDb, sid = SID): Array<[string, number, number]> {
  const rows = db.prepare('SELECT id, bid, bidx FROM records WHERE sid = ? ORDER BY ord').all(sid) as Array<{ id: string; bid: number; bidx: number }>
  const first = Math.min(...rows.map((r) => r.bid))
  return rows.map((r) => [r.id, r.bid - first, r.bidx])
}

/** How many stored blocks are byte for byte the ones the reader sealed. */
function taken(db: ArchiveDb, evs: SessionEvent[]): number {
  const sealed = evs.filter((e): e is Extract<SessionEvent, { kind: 'block' }> => e.kind === 'block').map((e) => Buffer.from(e.blob).toString('base64'))
  const stored = new Set((db.prepare('SELECT data FROM blocks').pluck().all() as Buffer[]).map((b) => b.toString('base64')))
  return sealed.filter((b) => stored.has(b)).length
}


t.test('blocks sealed by the reader are stored as sealed, in the places the writer alone gives', async (t) => {
  const recs = Array.from({ length: 60 }, (_, i) => rec(i))
  const alone = fresh(t, 'alone')
  writeAlone(alone.db, alone.path, [[SID, recs]])
  const blocks = (alone.db.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }).n
  t.ok(blocks >= 3, `60 records: ${blocks} blocks`)

  const all = fresh(t, 'reader')
  const evs = readerEvents([[SID, recs]], () => true)
  writeEvents(all.db, all.path, evs)
  t.equal(taken(all.db, evs), blocks, 'every block stored is one the reader sealed, byte for byte')
  t.same(layout(all.db), layout(alone.db), 'each record in the same block, at the same index')
  t.same(await read(all.db), texts(recs), 'every record back exactly')
  blockInvariants(t, all.db, 'sealed by the reader')

  // The reader seals every other block, the writer the rest (what a reader does when the writer keeps up).
  const half = fresh(t, 'half')
  let n = 0
  const mixed = readerEvents([[SID, recs]], () => n++ % 2 === 0)
  const sealed = mixed.filter((e) => e.kind === 'block').length
  t.ok(sealed > 0 && sealed < blocks, `${sealed} of ${blocks} blocks sealed by the reader`)
  writeEvents(half.db, half.path, mixed)
  t.equal(taken(half.db, mixed), sealed, 'those stored as sealed')
  t.same(layout(half.db), layout(alone.db), 'the writer\'s own blocks end where the reader\'s would have')
  t.same(await read(half.db), texts(recs))
  blockInvariants(t, half.db, 'half and half')
})

t.test('where the writer\'s block is not the reader\'s, the writer seals its own, and every record is exact', async (t) => {
  // An id read twice in one read, the same both times: the reader's block has a row for the second reading, the writer's none.
  const first = Array.from({ length: 20 }, (_, i) => rec(i))
  const rest = Array.from({ length: 20 }, (_, i) => rec(20 + i))
  const same = fresh(t, 'same')
  const evs = readerEvents([[SID, [...first, rec(3), ...rest]]], () => true)
  writeEvents(same.db, same.path, evs)
  t.same((await read(same.db)).sort(), texts([...first, ...rest]).sort(), 'each record once')
  const sealed = evs.filter((e) => e.kind === 'block').length
  t.equal(taken(same.db, evs), sealed - 1, 'the block with the second reading is the writer\'s; the others are the reader\'s')
  blockInvariants(t, same.db, 'an id twice')
  // Changed the second time: the later text.
  const a = fresh(t, 'twice')
  writeEvents(a.db, a.path, readerEvents([[SID, [...first, rec(3, 1), ...rest]]], () => true))
  t.same((await read(a.db)).sort(), texts([...first.map((r, i) => (i === 3 ? rec(3, 1) : r)), ...rest]).sort(), 'the later text of the record read twice')
  blockInvariants(t, a.db, 'an id twice, changed')

  // A read cut short before its last block came (a reader that failed): the writer seals the rows it has.
  const b = fresh(t, 'cut')
  const recs = Array.from({ length: 30 }, (_, i) => rec(i))
  const full = readerEvents([[SID, recs]], () => true)
  const cut = full.slice(0, full.length - 1)
  t.equal(full[full.length - 1]!.kind, 'block', 'the last event was the last block')
  writeEvents(b.db, b.path, cut)
  t.same(await read(b.db), texts(recs), 'every row written is there')
  blockInvariants(t, b.db, 'a read cut short')

  // A session already archived, read again with more records: its tail block is refilled by the writer, the reader's blocks are not used.
  const c = fresh(t, 'again')
  writeAlone(c.db, c.path, [[SID, recs.slice(0, 16)]])
  writeEvents(c.db, c.path, readerEvents([[SID, recs]], () => true))
  const d = fresh(t, 'again-alone')
  writeAlone(d.db, d.path, [[SID, recs.slice(0, 16)]])
  writeAlone(d.db, d.path, [[SID, recs]])
  t.same(layout(c.db), layout(d.db), 'the places the writer alone gives')
  t.same(await read(c.db), texts(recs))
  blockInvariants(t, c.db, 'an archived session read again')
})

t.test('a read of several sessions (a parent and its sub-agents): a block holds one session\'s rows', async (t) => {
  const kid = 'claude-code:seal-1-agent'
  const parent = Array.from({ length: 15 }, (_, i) => rec(i))
  const child = Array.from({ length: 15 }, (_, i) => rec(i, 0, kid))
  const a = fresh(t, 'kids')
  const evs = readerEvents([[SID, parent], [kid, child]], () => true)
  writeEvents(a.db, a.path, evs)
  const alone = fresh(t, 'kids-alone')
  writeAlone(alone.db, alone.path, [[SID, parent], [kid, child]])
  t.equal(taken(a.db, evs), evs.filter((e) => e.kind === 'block').length, 'every sealed block stored')
  t.same([layout(a.db), layout(a.db, kid)], [layout(alone.db), layout(alone.db, kid)], 'the places the writer alone gives')
  t.same([await read(a.db), await read(a.db, kid)], [texts(parent), texts(child)])
  blockInvariants(t, a.db, 'two sessions in one read')
})
