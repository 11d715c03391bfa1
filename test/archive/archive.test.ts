// `ferry archive`, `ls/cat/convert --archive`, `search` and `export` on the
// fixture stores of every implemented harness (Claude Code with a sub-agent,
// Codex with an archived rollout, OpenCode's SQLite database, Grok), laid out
// as the agents lay them out in a temp HOME, through real child processes.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { DuckDBInstance } from '@duckdb/node-api'
import { ferry, fileTimeout, FIXTURES, jsonl, ROOT, tempDir } from '../kit.js'

process.env.TZ = 'UTC'
fileTimeout(t, 10 * 60_000)

import { CLAUDE, CODEX, PROJECT, ROLLOUT, archive, consistent, dbOf, makeHome, query, queryParts, generatedHome, referenceArchive } from './helpers.js'

/** Records a reader gives for a session (its sub-agents' included), headers and ends left out. */
async function readerRecords(home: string, sid: string): Promise<any[]> {
  const r = await ferry(['--home', home, 'cat', sid])
  if (r.code !== 0) throw new Error(r.stderr)
  return jsonl(r.stdout).filter((x) => x.kind !== 'stream' && x.kind !== 'session' && x.kind !== 'end')
}

async function topSessions(home: string): Promise<any[]> {
  const r = await ferry(['--home', home, 'ls', '--all', '--json'])
  return jsonl(r.stdout).filter((s) => !s.parent)
}

t.test('first archive copies every record of every harness; a re-run adds nothing', async (t) => {
  const home = makeHome(t)
  const first = await archive(home)
  t.equal(first.code, 0, first.stderr)
  const tops = await topSessions(home)
  t.same(new Set(tops.map((s) => s.harness)), new Set(['claude-code', 'codex', 'opencode', 'grok', 'cursor', 'zcode', 'copilot', 'pi', 'gemini', 'qwen', 'kilo']), 'every store of the sample home')
  t.equal(first.sum.sessions.added, tops.length, 'every listed session added')
  let expected = 0
  for (const s of tops) {
    const recs = await readerRecords(home, s.sid)
    expected += recs.length
    const ids = query<{ id: string }>(dbOf(home), 'SELECT id FROM records WHERE sid IN (SELECT sid FROM sessions WHERE sid = ? OR parent = ?)', s.sid, s.sid).map((r) => r.id)
    t.same(new Set(ids), new Set(recs.map((r) => r.id)), `${s.sid}: the archive holds exactly the reader's record ids`)
  }
  t.equal(first.sum.records.added, expected, 'records added = records the readers give')
  const links = query(dbOf(home), "SELECT child, parent, kind FROM links WHERE child LIKE 'claude-code:%'")
  t.ok(query(dbOf(home), "SELECT * FROM sessions WHERE sid = 'claude-code:agent-a1b2c3d4e5f607182' AND parent IS NOT NULL").length === 1, 'the Claude sub-agent is archived as its own session')
  t.same(links, [{ child: 'claude-code:agent-a1b2c3d4e5f607182', parent: `claude-code:${CLAUDE}`, kind: 'subagent' }], 'linked to its parent')

  const again = await archive(home)
  t.equal(again.code, 0, again.stderr)
  t.same(again.sum.sessions, { added: 0, updated: 0, unchanged: tops.length, gone: 0, failed: 0 }, 'nothing changed')
  t.same(again.sum.records, { added: 0, changed: 0 })
  t.equal(again.sum.bytes, 0, 'no session read beyond its metadata')
  t.same(query(dbOf(home), 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }])
  t.same(query(dbOf(home), 'PRAGMA journal_mode'), [{ journal_mode: 'wal' }], 'WAL mode')

  const text = await ferry(['--home', home, 'archive'])
  t.equal(text.stdout, '', 'summary on stderr without --json')
  t.match(text.stderr, /0 added, 0 updated, \d+ unchanged, 0 gone from source, 0 failed; 0 records added/)
})

t.test('appended sessions add exactly their new lines\' records; a compressed or moved rollout adds nothing', async (t) => {
  const home = makeHome(t)
  t.equal((await archive(home)).code, 0)
  // Claude Code: one more user line.
  const before = await readerRecords(home, `claude-code:${CLAUDE}`)
  const lines = readFileSync(join(home, PROJECT, `${CLAUDE}.jsonl`), 'utf8').trimEnd().split('\n')
  const last = JSON.parse(lines[lines.length - 1]!)
  const line = { parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd ?? '/home/dev/demo-app', sessionId: CLAUDE, version: last.version, type: 'user', message: { role: 'user', content: 'zanzibar appended question' }, uuid: 'a0000000-0000-4000-8000-00000000beef', timestamp: '2026-11-02T09:20:00.000Z' }
  appendFileSync(join(home, PROJECT, `${CLAUDE}.jsonl`), JSON.stringify(line) + '\n')
  // Codex: one more agent message.
  const codexBefore = await readerRecords(home, `codex:${CODEX}`)
  appendFileSync(join(home, ROLLOUT), JSON.stringify({ timestamp: '2026-11-02T09:30:00.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'quetzalcoatl appended answer' }] } }) + '\n')
  const after = await readerRecords(home, `claude-code:${CLAUDE}`)
  const codexAfter = await readerRecords(home, `codex:${CODEX}`)
  const newIds = after.map((r) => r.id).filter((id) => !before.some((b) => b.id === id))
  const newCodex = codexAfter.map((r) => r.id).filter((id) => !codexBefore.some((b) => b.id === id))
  t.ok(newIds.length >= 1 && newCodex.length >= 1, 'the readers see the new lines')

  const r = await archive(home)
  t.equal(r.code, 0, r.stderr)
  t.equal(r.sum.sessions.updated, 2, 'two sessions updated')
  t.equal(r.sum.records.added, newIds.length + newCodex.length, 'only the new records')
  for (const id of [...newIds, ...newCodex]) t.equal(query(dbOf(home), 'SELECT 1 FROM records WHERE id = ?', id).length, 1, `${id} archived once`)

  // Codex compresses the rollout (the plain file goes), later moves it to archived_sessions/.
  const plain = join(home, ROLLOUT)
  const z = spawnSync('zstd', ['-q', '--rm', plain])
  t.equal(z.status, 0, 'zstd compressed the rollout')
  const count = (query<{ n: number }>(dbOf(home), 'SELECT count(*) AS n FROM records')[0]!).n
  const zr = await archive(home)
  t.equal(zr.code, 0, zr.stderr)
  t.equal(zr.sum.records.added, 0, '.jsonl.zst adds nothing')
  t.equal(zr.sum.sessions.gone, 0, 'not gone: the same session')
  t.match(query<{ src_path: string }>(dbOf(home), 'SELECT src_path FROM sessions WHERE sid = ?', `codex:${CODEX}`)[0]!.src_path, /\.jsonl\.zst$/, 'provenance follows the file')
  mkdirSync(join(home, '.codex/archived_sessions'), { recursive: true })
  renameSync(`${plain}.zst`, join(home, '.codex/archived_sessions', `${readdirSync(join(plain, '..'))[0] ?? 'rollout.jsonl.zst'}`))
  const mv = await archive(home)
  t.equal(mv.code, 0, mv.stderr)
  t.equal(mv.sum.records.added, 0, 'moved to archived_sessions/ adds nothing')
  t.equal(mv.sum.sessions.gone, 0)
  t.equal((query<{ n: number }>(dbOf(home), 'SELECT count(*) AS n FROM records')[0]!).n, count, 'no record duplicated')
})

t.test('a deleted source stays readable, converts, and is restored byte for byte', async (t) => {
  const home = makeHome(t)
  t.equal((await archive(home)).code, 0)
  const file = join(home, PROJECT, `${CLAUDE}.jsonl`)
  const original = readFileSync(file)
  const sub = readFileSync(join(home, PROJECT, CLAUDE, 'subagents', 'agent-a1b2c3d4e5f607182.jsonl'))
  const live = await ferry(['--home', home, 'cat', `claude-code:${CLAUDE}`])
  rmSync(file)
  rmSync(join(home, PROJECT, CLAUDE), { recursive: true })
  const r = await archive(home)
  t.equal(r.code, 0, r.stderr)
  t.equal(r.sum.sessions.gone, 2, 'the session and its sub-agent are marked gone')
  const ls = jsonl((await ferry(['--home', home, 'ls', '--archive', '--all', '--json'])).stdout)
  const row = ls.find((s) => s.sid === `claude-code:${CLAUDE}`)
  t.ok(row?.gone_from_source, 'ls --archive says gone from source')
  t.equal(ls.filter((s) => !s.gone_from_source).length, ls.length - 2, 'the others are not')
  // -n and --reverse are honoured (issue #49: newest first from the archive's index, stopped after N).
  const two = jsonl((await ferry(['--home', home, 'ls', '--archive', '--all', '-n', '2', '--json'])).stdout)
  t.same(two.map((s) => s.sid), ls.slice(0, 2).map((s) => s.sid), 'ls --archive -n 2: the two newest')
  const oldest = jsonl((await ferry(['--home', home, 'ls', '--archive', '--all', '-n', '1', '--reverse', '--json'])).stdout)
  t.same(oldest.map((s) => s.sid), [ls[ls.length - 1]!.sid], 'ls --archive -n 1 --reverse: the oldest')
  // MSGS means the same in both listings (issue 46): the agent's own count where its store keeps one, else none.
  const listed = jsonl((await ferry(['--home', home, 'ls', '--all', '--json'])).stdout)
  for (const s of listed) t.equal(ls.find((a) => a.sid === s.sid)?.message_count, s.message_count, `${s.sid}: MSGS as the live ls`)
  t.ok(listed.some((s) => typeof s.message_count === 'number'), 'some stores keep a count')
  const table = await ferry(['--home', home, 'ls', '--archive'])
  t.match(table.stdout, /\[gone from source\] Fix the red build/)
  t.notMatch((await ferry(['--home', home, 'ls'])).stdout, /Fix the red build/, 'plain ls lists the stores, not the archive')

  const gone = await ferry(['--home', home, 'cat', `claude-code:${CLAUDE}`])
  t.equal(gone.code, 1)
  t.match(gone.stderr, /archive at .*archive\.db has it \(gone from its source\): ferry cat claude-code:3f1c.* --archive/, 'cat says where to find it')
  const cat = await ferry(['--home', home, 'cat', `claude-code:${CLAUDE}`, '--archive'])
  t.equal(cat.code, 0, cat.stderr)
  const strip = (recs: any[]) => recs.filter((x) => x.kind !== 'stream')
  t.same(strip(jsonl(cat.stdout)), strip(jsonl(live.stdout)), 'the archived stream is the stream the live session gave')

  const back = tempDir(t)
  const same = await ferry(['--home', home, 'convert', `claude-code:${CLAUDE}`, '--archive', '--to', 'claude-code', '--out', back, '--json'])
  t.equal(same.code, 0, same.stderr)
  const written = jsonl(same.stdout)
  t.same(readFileSync(written[0].path), original, 'restored to Claude Code byte for byte')
  t.same(readFileSync(written[1].path), sub, 'and its sub-agent')
  const other = tempDir(t)
  const cx = await ferry(['--home', home, 'convert', `claude-code:${CLAUDE}`, '--archive', '--to', 'codex', '--out', other, '--json'])
  t.equal(cx.code, 0, cx.stderr)
  const back2 = await ferry(['cat', jsonl(cx.stdout)[0].path, '--no-native'])
  t.equal(back2.code, 0, back2.stderr)
  t.ok(jsonl(back2.stdout).some((x) => x.kind === 'message' && x.role === 'user'), 'converted to Codex and readable there')
})

t.test('a corrupt session is reported with file and line and skipped; the others are archived', async (t) => {
  const home = makeHome(t)
  const bad = join(home, PROJECT, 'dddddddd-0000-4000-8000-00000000bad1.jsonl')
  const good = readFileSync(join(home, PROJECT, `${CLAUDE}.jsonl`), 'utf8').split('\n').slice(0, 2).map((l) => l.replaceAll(CLAUDE, 'dddddddd-0000-4000-8000-00000000bad1').replace(/"uuid":"([^"]+)"/, '"uuid":"b$1"'))
  writeFileSync(bad, `${good[0]}\n{"type":"user", not json\n${good[1]}\n`)
  const r = await archive(home)
  t.equal(r.code, 1, 'exit code says so')
  // With --json the report is an object on stderr ({"error": {code, file, line, …}}), else `file:2`.
  const reported = r.stderr.split('\n').some((l) => {
    if (l.includes(`${bad}:2`)) return true
    try {
      const e = JSON.parse(l).error
      return e?.file === bad && e.line === 2
    } catch {
      return false
    }
  })
  t.ok(reported, 'file and line named')
  t.equal(r.sum.sessions.failed, 1)
  t.equal(r.sum.sessions.added, (await topSessions(home)).length - 1, 'the others archived')
  const again = await archive(home)
  t.equal(again.code, 1, 'still reported on the next run (not silently accepted)')
  t.equal(again.sum.records.added, 0, 'and nothing duplicated')
})

t.test('two archive runs at once: nothing lost, nothing doubled; a run that cannot get the lock says so', async (t) => {
  const { dir, home } = generatedHome(t, 20, 'archive-both')
  const { reference, want } = await referenceArchive(t, dir, home)
  const both = join(dir, 'both.db')
  const [a, b] = await Promise.all([ferry(['--home', home, '--db', both, 'archive', '--json']), ferry(['--home', home, '--db', both, 'archive', '--json'])])
  t.equal(a.code, 0, a.stderr)
  t.equal(b.code, 0, b.stderr)
  consistent(t, both, 'after two runs at once')
  t.same(query(both, 'SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM records) AS r'), [want], 'two runs at once: nothing lost, nothing doubled')

  // A run that cannot get the lock in time says so clearly.
  const holder = new Database(both)
  holder.exec('BEGIN IMMEDIATE')
  const blocked = await ferry(['--home', home, '--db', both, 'archive', '--wait', '1'])
  holder.exec('ROLLBACK')
  holder.close()
  t.equal(blocked.code, 1)
  t.match(blocked.stderr, /another ferry run holds the archive/)
  t.notMatch(blocked.stderr, /at .*\.js:\d+/, 'no stack trace')
})

t.test('search finds user text, tool output and titles with the right session and record ids', async (t) => {
  const home = makeHome(t)
  t.equal((await archive(home)).code, 0)
  const recs = await readerRecords(home, `claude-code:${CLAUDE}`)
  const user = recs.find((r) => r.kind === 'message' && r.role === 'user' && !r.context && r.blocks.some((b: any) => b.type === 'text'))
  const result = recs.find((r) => r.kind === 'message' && r.blocks.some((b: any) => b.type === 'tool_result' && typeof b.content === 'string' && /[a-z]{6,}/i.test(b.content)))
  const word = (s: string) => s.match(/[A-Za-z]{6,}/)![0]
  const userWord = word(user.blocks.find((b: any) => b.type === 'text').text)
  const outWord = word(result.blocks.find((b: any) => b.type === 'tool_result').content)
  for (const [what, w, id] of [['user text', userWord, user.id], ['tool output', outWord, result.id]] as const) {
    const r = await ferry(['--home', home, 'search', w, '--json', '--limit', '100'])
    t.equal(r.code, 0, r.stderr)
    const hits = jsonl(r.stdout)
    const hit = hits.find((h) => h.record_id === id)
    t.ok(hit, `${what} "${w}" found at ${id}`)
    t.equal(hit?.sid, `claude-code:${CLAUDE}`)
    t.equal(hit?.title, 'Fix the red build')
    t.ok(hit && hit.highlights.length > 0 && hit.snippet.toLowerCase().includes(w.toLowerCase()), 'snippet with the match marked')
  }
  const title = jsonl((await ferry(['--home', home, 'search', '--fts', 'title:red', '--json'])).stdout)
  t.same(title.map((h) => [h.sid, h.record_id, h.kind]), [[`claude-code:${CLAUDE}`, `claude-code:${CLAUDE}:session`, 'session']], 'titles')
  const byRole = jsonl((await ferry(['--home', home, 'search', userWord, '--role', 'assistant', '--json', '--limit', '100'])).stdout)
  t.ok(byRole.every((h) => h.role === 'assistant'), '--role filters')
  const tool = result.blocks.find((b: any) => b.type === 'tool_result')
  const toolName = recs.flatMap((r) => (r.kind === 'message' ? r.blocks : [])).find((b: any) => b.type === 'tool_use' && b.id === tool.tool_use_id).name
  const byTool = jsonl((await ferry(['--home', home, 'search', outWord, '--tool', toolName, '--json'])).stdout)
  t.ok(byTool.some((h) => h.record_id === result.id), `--tool ${toolName} finds its output`)
  const otherHarness = jsonl((await ferry(['--home', home, 'search', outWord, '--harness', 'codex', '--json'])).stdout)
  t.ok(otherHarness.every((h) => h.harness === 'codex'), '--harness filters')
  const text = await ferry(['--home', home, 'search', userWord])
  t.match(text.stdout, new RegExp(`claude-code:${CLAUDE}.*Fix the red build`))
  t.notMatch(text.stdout, /\x1b\[|\u0002/, 'no highlight codes when stdout is not a TTY')
  const bad = await ferry(['--home', home, 'search', '--fts', 'foo AND'])
  t.equal(bad.code, 2, 'an FTS syntax error is a usage error')
  t.match(bad.stderr, /^ferry: search: not a valid FTS5 query: "foo AND"/m)
  t.equal(bad.stderr.trim().split('\n').length, 1, 'one line')
})

t.test('Parquet export read back by DuckDB; incremental; JSON lines too', async (t) => {
  const home = makeHome(t)
  t.equal((await archive(home)).code, 0)
  const out = tempDir(t)
  const e = await ferry(['--home', home, 'export', '--format', 'parquet', '--out', out, '--json'])
  t.equal(e.code, 0, e.stderr)
  const sum = JSON.parse(e.stdout)
  const db = dbOf(home)
  const [counts] = query<{ s: number; r: number }>(db, 'SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM records) AS r')
  t.equal(sum.records, counts!.r)
  const duck = await DuckDBInstance.create(':memory:')
  const c = await duck.connect()
  const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS()
  const recGlob = `read_parquet('${out}/records/**/*.parquet', hive_partitioning = true)`
  const sesGlob = `read_parquet('${out}/sessions/**/*.parquet', hive_partitioning = true)`
  t.same(await rows(`SELECT count(*)::INTEGER AS n FROM ${recGlob}`), [{ n: counts!.r }], 'every record')
  t.same(await rows(`SELECT count(*)::INTEGER AS n FROM ${sesGlob}`), [{ n: counts!.s }], 'every session')
  const byHarness = await rows(`SELECT harness, count(*)::INTEGER AS n FROM ${recGlob} GROUP BY harness ORDER BY harness`)
  t.same(byHarness, query(db, 'SELECT s.harness, count(*) AS n FROM records r JOIN sessions s ON s.sid = r.sid GROUP BY s.harness ORDER BY s.harness'), 'per harness partition')
  t.same(await rows(`SELECT title, month FROM ${sesGlob} WHERE sid = 'claude-code:${CLAUDE}'`), [{ title: 'Fix the red build', month: '2026-11' }], 'a session row and its month partition')
  const one = queryParts<{ id: string; body: string; native: string; raw: string }>(db, "SELECT id, bid, bidx FROM records WHERE kind = 'message' ORDER BY rid LIMIT 1")[0]!
  const got = await rows(`SELECT sid, kind, role, record, native FROM ${recGlob} WHERE id = '${one.id}'`)
  t.equal(got.length, 1)
  t.same(JSON.parse(String(got[0]!.record)), JSON.parse(one.body), 'the record as archived')
  t.type(one.raw, 'string', 'the source line is kept apart, as it came')
  t.same(JSON.parse(String(got[0]!.native)), { ...JSON.parse(one.native), raw: one.raw }, 'native kept whole, source line included')

  const again = JSON.parse((await ferry(['--home', home, 'export', '--out', out, '--json'])).stdout)
  t.same([again.files, again.records], [0, 0], 'a re-run with nothing new writes nothing')
  appendFileSync(join(home, ROLLOUT), JSON.stringify({ timestamp: '2026-11-02T09:30:00.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'later words' }] } }) + '\n')
  t.equal((await archive(home)).code, 0)
  const inc = JSON.parse((await ferry(['--home', home, 'export', '--out', out, '--json'])).stdout)
  t.ok(inc.records >= 1 && inc.records <= 2, `only the new records (${inc.records})`)
  const [after] = query<{ r: number }>(db, 'SELECT count(*) AS r FROM records')
  t.same(await rows(`SELECT count(DISTINCT id)::INTEGER AS n FROM ${recGlob}`), [{ n: after!.r }], 'DuckDB sees the new records')
  duck.closeSync?.()

  const jl = tempDir(t)
  const j = await ferry(['--home', home, 'export', '--format', 'jsonl', '--out', jl, '--json'])
  t.equal(j.code, 0, j.stderr)
  const d2 = await DuckDBInstance.create(':memory:')
  const c2 = await d2.connect()
  t.same((await c2.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_json('${jl}/records/**/*.jsonl.gz', hive_partitioning = true, format = 'newline_delimited')`)).getRowObjectsJS(), [{ n: after!.r }], 'gzipped JSON lines read by DuckDB')
  const mixed = await ferry(['--home', home, 'export', '--format', 'jsonl', '--out', out])
  t.equal(mixed.code, 2, 'one format per directory')
})

t.test('convert --to archive writes into an archive (merging, never duplicating)', async (t) => {
  const home = makeHome(t)
  const dir = tempDir(t)
  const w = await ferry(['--home', home, 'convert', `codex:${CODEX}`, '--to', 'archive', '--out', dir, '--json'])
  t.equal(w.code, 0, w.stderr)
  const [ws] = jsonl(w.stdout)
  t.equal(ws.path, join(dir, 'archive.db'))
  const n = query<{ n: number }>(ws.path, 'SELECT count(*) AS n FROM records')[0]!.n
  t.ok(n > 0)
  t.equal((await ferry(['--home', home, 'convert', `codex:${CODEX}`, '--to', 'archive', '--out', dir])).code, 0, 'again')
  t.equal(query<{ n: number }>(ws.path, 'SELECT count(*) AS n FROM records')[0]!.n, n, 'nothing duplicated')
  const back = await ferry(['cat', ws.path])
  t.equal(back.code, 0, back.stderr)
  t.same(jsonl(back.stdout).filter((x) => x.kind !== 'stream').map((x) => x.id), (await readerRecords(home, `codex:${CODEX}`)).length ? jsonl((await ferry(['--home', home, 'cat', `codex:${CODEX}`])).stdout).filter((x) => x.kind !== 'stream').map((x) => x.id) : [], 'an archive file with one session reads back as it')
})
