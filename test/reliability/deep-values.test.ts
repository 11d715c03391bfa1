// #47, found by the Cursor/ZCode mutants of `npm run fuzz` (fuzz/mutants.mjs): a value nested
// 100,000 deep inside an otherwise valid line or row parsed fine, then overflowed the stack where the
// record was walked or written (`internal: Maximum call stack size exceeded`), ending the read: the
// records after it, and in Cursor's editor database every other composer, were lost. Such a line or
// row is now a located bad line or row, and the rest is read. In process: cheap.
import t from 'tap'
import Database from 'better-sqlite3'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { kit } from '../kit.js'
import { Diagnostics } from '../../lib/diagnostics.js'
import { parseStream } from '../../lib/interchange/parse.js'
import { MAX_NESTING, nestsDeeper } from '../../lib/io/line-file.js'
import type { FerryRecord } from '../../lib/model.js'

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000)
/** `obj` as JSON with the string "DEEP" replaced by a 100,000-deep array. */
const withDeep = (obj: unknown) => JSON.stringify(obj).replace('"DEEP"', DEEP)
/** What every writer does with a record: it must not throw. */
const writable = (recs: FerryRecord[]) => recs.every((r) => typeof JSON.stringify(r) === 'string')
const texts = (recs: FerryRecord[]) => recs.flatMap((r) => (r.kind === 'message' ? r.blocks.flatMap((b) => ('text' in b && typeof b.text === 'string' ? [b.text] : [])) : []))

t.test('nestsDeeper counts brackets outside strings only', async (t) => {
  const n = MAX_NESTING + 1
  t.equal(nestsDeeper(Buffer.from('['.repeat(n) + ']'.repeat(n))), true)
  t.equal(nestsDeeper('['.repeat(n) + ']'.repeat(n)), true, 'a string, read in place')
  t.equal(nestsDeeper(JSON.stringify({ é: 'ü"'.repeat(n), a: JSON.parse('['.repeat(n) + ']'.repeat(n)) })), true, 'a string with non-ASCII text and quotes before the depth')
  t.equal(nestsDeeper('['.repeat(MAX_NESTING) + ']'.repeat(MAX_NESTING)), false, 'at the limit')
  t.equal(nestsDeeper(JSON.stringify({ s: '['.repeat(5 * n) })), false, 'brackets in a string')
  t.equal(nestsDeeper(JSON.stringify({ s: `\\"${'{'.repeat(5 * n)}\\\\` })), false, 'escaped quotes and backslashes in a string')
  t.equal(nestsDeeper(JSON.stringify({ a: 'x\\', b: DEEP })), false, 'a deep array inside a string')
  t.equal(nestsDeeper(withDeep({ a: 'x\\', b: 'DEEP' })), true, 'after a string ending in a backslash')
})

t.test('interchange: a message with a deep value costs that line; the records after it are read', async (t) => {
  const sid = 'ferry:deep'
  const lines = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'deep' },
    { kind: 'message', sid, id: `${sid}:m1`, role: 'user', blocks: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { v: 'DEEP' } }] },
    { kind: 'message', sid, id: `${sid}:m2`, role: 'user', blocks: [{ type: 'text', text: 'after the deep one' }] },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ].map(withDeep)
  const diagnostics = new Diagnostics({ stream: null })
  const recs: FerryRecord[] = []
  for await (const r of Readable.from([Buffer.from(lines.join('\n') + '\n')]).pipe(parseStream({ file: 'deep.jsonl', diagnostics, harness: 'ferry' }))) recs.push(r as FerryRecord)
  t.ok(writable(recs), 'every record can be written out')
  t.same(texts(recs), ['after the deep one'])
  t.match(diagnostics.items.map((d) => `${d.code} ${d.position?.line}`), ['bad-line 2'])
})

t.test('cursor transcript: a deep value inside a line costs that line', async (t) => {
  const k = kit('cursor')
  const home = k.home(t)
  const dir = join(home, '.cursor/projects/home-dev-demo-app/agent-transcripts')
  const id = readdirSync(dir)[0]!
  const file = join(dir, id, `${id}.jsonl`)
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  const at = lines.findIndex((l) => l.includes('"role":"assistant"'))
  const line = JSON.parse(lines[at]!)
  line.message.content[0] = { type: 'tool_use', id: 'toolu_deep', name: 'Shell', input: { command: 'DEEP' } }
  lines[at] = withDeep(line)
  writeFileSync(file, lines.join('\n') + '\n')
  const ctx = k.ctx(home)
  const { recs, error } = await k.readSettled(ctx, id)
  t.equal(error, undefined)
  t.ok(writable(recs), 'every record can be written out')
  t.match(ctx.diagnostics.items.map((d) => `${d.code} ${d.position?.line}`), [`bad-line ${at + 1}`])
  t.ok(recs.filter((r) => r.kind === 'message').length >= lines.length - 2, 'the lines around it are read')
})

t.test("cursor state.vscdb: a deep value in one bubble costs that bubble, not the editor's other composers", async (t) => {
  const k = kit('cursor')
  const home = k.home(t, 'stores')
  const db = new Database(join(home, '.config/Cursor/User/globalStorage/state.vscdb'))
  const key = db.prepare("SELECT key FROM cursorDiskKV WHERE key LIKE 'bubbleId:f6a5b7c8-%' ORDER BY key LIMIT 1").get() as { key: string }
  const v = JSON.parse((db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key.key) as { value: string }).value)
  db.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(withDeep({ ...v, type: 'DEEP' }), key.key)
  db.close()
  const ctx = k.ctx(home)
  const { recs, error } = await k.readSettled(ctx, 'f6a5b7c8-0000-4000-8000-00000000000f')
  t.equal(error, undefined, 'the read ends normally')
  t.ok(writable(recs), 'every record can be written out')
  t.ok(texts(recs).includes('bundler config is fine'), "the sub-agent composer (the same database) is read")
  t.match(ctx.diagnostics.items.map((d) => d.code), ['bad-row'], 'the bubble is reported')
  t.match(String(ctx.diagnostics.items[0]?.position?.row), key.key.split(':').slice(1).join(':'))
})

t.test('zcode: a deep part is a bad row; parts whose message row is gone are said, never dropped quietly', async (t) => {
  const k = kit('zcode')
  const home = k.home(t)
  const path = join(home, '.zcode/cli/db/db.sqlite')
  const db = new Database(path)
  const part = db.prepare("SELECT id, session_id, data FROM part WHERE data LIKE '%\"type\":\"text\"%' ORDER BY id LIMIT 1").get() as { id: string; session_id: string; data: string }
  db.prepare('UPDATE part SET data = ? WHERE id = ?').run(withDeep({ ...JSON.parse(part.data), extra: 'DEEP' }), part.id)
  const last = db.prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC LIMIT 1').get(part.session_id) as { id: string }
  const orphans = (db.prepare('SELECT count(*) AS n FROM part WHERE message_id = ?').get(last.id) as { n: number }).n
  // A row gone by damage, not by ZCode's delete (which takes the parts with it: better-sqlite3 enforces the cascade).
  db.pragma('foreign_keys = OFF')
  db.prepare('DELETE FROM message WHERE id = ?').run(last.id)
  db.close()
  const ctx = k.ctx(home)
  const { recs, error } = await k.readSettled(ctx, part.session_id)
  t.equal(error, undefined)
  t.ok(writable(recs), 'every record can be written out')
  const said = ctx.diagnostics.items.map((d) => `${d.code} ${d.position?.row}`)
  t.ok(said.includes(`bad-row part:${part.id}`), `the deep part is a located bad row (${said.join(', ')})`)
  t.ok(said.includes(`bad-row message:${last.id}`), 'the parts of the missing message are said')
  t.ok(orphans > 0, `${orphans} part(s) were orphaned`)
})

// Found by the same scenario: a composerData row that is not JSON (invalid UTF-8) was read as `{}`, so its
// sub-agents could not be found and went missing with nothing said.
t.test('cursor state.vscdb: a composerData row that is not JSON is said, not read as an empty composer', async (t) => {
  const k = kit('cursor')
  const home = k.home(t, 'stores')
  const db = new Database(join(home, '.config/Cursor/User/globalStorage/state.vscdb'))
  const key = 'composerData:f6a5b7c8-0000-4000-8000-00000000000f'
  const v = (db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key) as { value: string }).value
  db.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(Buffer.concat([Buffer.from([0xff, 0xc3, 0x28]), Buffer.from(v)]), key)
  db.close()
  const ctx = k.ctx(home)
  const { error } = await k.readSettled(ctx, 'f6a5b7c8-0000-4000-8000-00000000000f')
  t.equal(error, undefined)
  t.match(ctx.diagnostics.items.map((d) => `${d.code} ${d.position?.row}`), [`bad-row cursorDiskKV ${key}`])
})

// And when the damage renames a sub-agent in the parent's composerData, the sub-agent it names has no data:
// that was an empty sub-agent session with nothing said.
t.test('cursor state.vscdb: a sub-agent named by composerData that has no row of its own is said', async (t) => {
  const k = kit('cursor')
  const home = k.home(t, 'stores')
  const db = new Database(join(home, '.config/Cursor/User/globalStorage/state.vscdb'))
  db.prepare(`UPDATE cursorDiskKV SET value = replace(value, '"task-11111111', '"tasX-11111111') WHERE key = 'composerData:f6a5b7c8-0000-4000-8000-00000000000f'`).run()
  db.close()
  const ctx = k.ctx(home)
  const { error } = await k.readSettled(ctx, 'f6a5b7c8-0000-4000-8000-00000000000f')
  t.equal(error, undefined)
  t.match(ctx.diagnostics.items.map((d) => `${d.code} ${d.position?.row}`), ['bad-row cursorDiskKV composerData:tasX-11111111-0000-4000-8000-000000000011'])
})
