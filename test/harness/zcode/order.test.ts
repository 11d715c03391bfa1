/**
 * The reader orders each message's parts itself (lib/harness/zcode/source.ts,
 * sqliteCompare): the order must be SQLite's `ORDER BY sequence IS NULL,
 * sequence, time_created, id` on awkward data (NULL sequences, ties on
 * sequence and time, ids that sort differently as UTF-16 and as UTF-8 bytes,
 * a text value in the integer column), and parts of another session that
 * name the message are not read.
 */
import t from 'tap'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createDb, finish, insertSession } from '../../../fixtures/zcode/zcode-db.mjs'
import { sqliteCompare } from '../../../lib/harness/zcode/source.js'
import { kit, tempDir } from '../../kit.js'

const zc = kit('zcode')
const SID = 'sess_0000000a-0000-4000-8000-000000000000'
const MID = 'msg_a_0000000a-0000-4000-8000-000000000001'

t.test('parts in SQLite ORDER BY order', async (t) => {
  const home = tempDir(t, 'ferry-zc-order-')
  const path = join(home, '.zcode', 'cli', 'db', 'db.sqlite')
  const db = createDb(path)
  const t0 = 1790000000000
  // id, sequence, time_created: the texts differ in where they put the parts, one per part.
  const spec: Array<[string, number | string | null, number]> = [
    ['part_e', null, t0 + 5],
    ['part_d', 1, t0 + 9],
    ['part_c', 1, t0 + 2],
    ['part_b', null, t0 + 1],
    ['part_\uff21', 0, t0 + 3],
    ['part_\u{1f600}', 0, t0 + 3],
    ['part_a', 2, t0],
    ['part_f', 'x', t0],
    ['part_g', -1, t0 + 100],
  ]
  insertSession(db, {
    id: SID, directory: '/home/dev/x', title: 'order', created: t0, updated: t0 + 100,
    messages: [{ id: MID, data: { role: 'user', time: { created: t0 } }, parts: spec.map(([id], i) => ({ id, data: { type: 'text', text: `text ${i} ${id}` } })) }],
  })
  const set = db.prepare('UPDATE part SET sequence = ?, time_created = ? WHERE id = ?')
  for (const [id, seq, tc] of spec) set.run(seq, tc, id)
  // Another session's part naming this message: the join on session_id leaves it out.
  db.prepare(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('sess_other', 'p', 's', '/x', 'o', '0.16.9', ?, ?)`).run(t0, t0)
  db.prepare(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data, sequence) VALUES ('part_0', ?, 'sess_other', ?, ?, '{"type":"text","text":"not this session"}', 0)`).run(MID, t0, t0)
  finish(db)

  const check = new Database(path, { readonly: true })
  const want = (check.prepare(`SELECT id FROM part WHERE message_id = ? AND session_id = ? ORDER BY sequence IS NULL, sequence, time_created, id`).all(MID, SID) as Array<{ id: string }>).map((r) => r.id)
  check.close()
  t.equal(want.length, spec.length)
  const { recs, error } = await zc.readSettled(zc.ctx(home), SID)
  t.equal(error, undefined)
  const texts = recs.flatMap((r: any) => (r.kind === 'message' ? r.blocks : [])).filter((b: any) => b.type === 'text').map((b: any) => String(b.text).split(' ')[2])
  t.same(texts, want, 'the parts as SQLite orders them')
  t.notOk(JSON.stringify(recs).includes('not this session'), "another session's part is not read")
})

t.test('sqliteCompare: NULL, numbers, text by UTF-8 bytes, BLOBs', async (t) => {
  const vals: unknown[] = [Buffer.from([1]), 'b', '\uff21', '\u{1f600}', 'a', 2.5, -1, 10, null]
  const sorted = [...vals].sort(sqliteCompare)
  t.same(sorted, [null, -1, 2.5, 10, 'a', 'b', '\uff21', '\u{1f600}', Buffer.from([1])])
})
