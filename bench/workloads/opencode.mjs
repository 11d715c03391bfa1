// OpenCode: read a whole SQLite store (2,000 sessions, ~1 GiB of message/part
// JSON; 100 sessions / ~10 MB with --quick) through `ferry cat --from opencode`.
// The store is generated here with better-sqlite3 (OpenCode's tables, WAL mode)
// and cached under bench/out/.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
// Same tables the tests build; export-document input, rows stored as OpenCode stores them.
import { createDb, insertDocument, idMaker } from '../../fixtures/opencode/opencode-db.mjs'

export const name = 'opencode'

const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit; '

function session(ids, t0, steps, outBytes) {
  const ses = ids.ses(t0, 'bench' + t0.toString(36))
  const dir = '/home/dev/demo-app'
  const messages = []
  let t = t0
  const uid = ids.msg(++t)
  messages.push({ info: { id: uid, sessionID: ses, role: 'user', time: { created: t }, agent: 'build', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } }, parts: [{ id: ids.prt(t), sessionID: ses, messageID: uid, type: 'text', text: 'Please look at the build. ' + LOREM.repeat(10) }] })
  for (let s = 0; s < steps; s++) {
    t += 1000
    const id = ids.msg(t)
    const out = `${s}: ${LOREM.repeat(Math.ceil(outBytes / LOREM.length))}`.slice(0, outBytes)
    const last = s === steps - 1
    const parts = [
      { type: 'step-start' },
      { type: 'reasoning', text: `Step ${s}: ` + LOREM.repeat(4), time: { start: t, end: t + 10 } },
      { type: 'text', text: `Now step ${s}. ` + LOREM.repeat(6), time: { start: t + 20, end: t + 30 } },
      ...(last ? [] : [{ type: 'tool', tool: 'bash', callID: `call_${s}`, state: { status: 'completed', input: { command: `make step-${s}` }, output: out, title: `make step-${s}`, metadata: { exit: 0, truncated: false }, time: { start: t + 40, end: t + 90 } } }]),
      { type: 'step-finish', reason: last ? 'stop' : 'tool-calls', tokens: { input: 1000, output: 50, reasoning: 10, cache: { read: 0, write: 0 } }, cost: 0 },
    ]
    messages.push({
      info: { id, sessionID: ses, role: 'assistant', parentID: uid, mode: 'build', agent: 'build', path: { cwd: dir, root: dir }, cost: 0, tokens: { input: 1000, output: 50, reasoning: 10, cache: { read: 0, write: 0 } }, modelID: 'claude-sonnet-4-5', providerID: 'anthropic', time: { created: t, completed: t + 100 }, finish: last ? 'stop' : 'tool-calls' },
      parts: parts.map((p) => ({ id: ids.prt(t), sessionID: ses, messageID: id, ...p })),
    })
  }
  return { info: { id: ses, slug: 'bench', directory: dir, title: `Bench session ${t0}`, version: '1.18.33', time: { created: t0, updated: t } }, messages }
}

function generate(home, sessions, steps, outBytes) {
  const dataDir = join(home, '.local', 'share', 'opencode')
  const done = join(dataDir, 'opencode.db')
  if (existsSync(done)) return done
  rmSync(home, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  const tmp = join(dataDir, 'building.db')
  const db = createDb(tmp)
  const ids = idMaker()
  for (let i = 0; i < sessions; i++) insertDocument(db, session(ids, 1790000000000 + i * 3_600_000, steps, outBytes))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  // Renamed only when complete, so an interrupted generation is redone.
  renameSync(tmp, done)
  return done
}

export default async function (b) {
  const sessions = b.quick ? 100 : 2000
  const steps = 20
  const outBytes = b.quick ? 4000 : 24_000
  const home = join(b.outDir, `opencode-${sessions}x${steps}x${outBytes}`)
  console.log(`\n# opencode: SQLite store, ${sessions} sessions`)
  const dbPath = generate(home, sessions, steps, outBytes)
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  const bytes = db.prepare('SELECT (SELECT sum(length(data)) FROM part) + (SELECT sum(length(data)) FROM message) AS n').get().n
  db.close()
  b.report(`opencode store`, `${sessions} sessions, ${(bytes / 2 ** 20).toFixed(0)} MiB of message/part JSON`)
  await b.ferry(`opencode ${sessions} sessions → ferry cat`, ['--home', home, 'cat', '--from', 'opencode', '--no-native'], { bytes, note: 'read throughput over message+part JSON bytes' })
}
