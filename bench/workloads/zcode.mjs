// ZCode: a generated ZCode database (≥ 1 GiB on disk, 2,400 sessions; 100 / ~10 MB with --quick),
// built by replaying ZCode's migrations (fixtures/zcode/zcode-db.mjs) and cached under bench/out/.
// Measures `ferry ls` (one query), `ferry cat --from zcode` MB/s and peak RSS next to the baseline
// loop over the same message/part JSON (dumped as lines), and `write --to zcode --out FILE` MB/s.
import { spawnSync } from 'node:child_process'
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { createDb, insertSession } from '../../fixtures/zcode/zcode-db.mjs'

export const name = 'zcode'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit; '
const DIR = '/home/dev/demo-app'
const uuid = (a, b) => `${a.toString(16).padStart(8, '0')}-0000-4000-8000-${b.toString(16).padStart(12, '0')}`

function session(i, steps, outBytes) {
  const t0 = 1790000000000 + i * 3_600_000
  const id = `sess_${uuid(i, 0)}`
  let t = t0
  let n = 0
  const mid = (ms) => `msg_${ms.toString(36)}_${uuid(i, ++n)}`
  const pid = (ms) => `part_${ms.toString(36)}_${uuid(i, ++n)}`
  const sel = { providerId: 'zai-api', modelId: 'GLM-5.2' }
  const u = mid(++t)
  const messages = [{ id: u, data: { role: 'user', time: { created: t }, agent: 'build', modelSelection: sel, model: { providerID: 'zai-api', modelID: 'GLM-5.2' } }, parts: [{ id: pid(t), data: { type: 'text', text: 'Please look at the build. ' + LOREM.repeat(10) } }] }]
  for (let s = 0; s < steps; s++) {
    t += 1000
    const last = s === steps - 1
    const out = `${s}: ${LOREM.repeat(Math.ceil(outBytes / LOREM.length))}`.slice(0, outBytes)
    const tk = { input: 1000, output: 50, reasoning: 10, cache: { read: 0, write: 0 } }
    const parts = [
      { type: 'step-start' },
      { type: 'reasoning', text: `Step ${s}: ` + LOREM.repeat(4), time: { start: t, end: t + 10 } },
      { type: 'text', text: `Now step ${s}. ` + LOREM.repeat(6), time: { start: t + 20, end: t + 30 } },
      ...(last ? [] : [{ type: 'tool', callID: `call_${s}`, tool: 'Bash', state: { status: 'completed', input: { command: `make step-${s}` }, output: out, title: `make step-${s}`, metadata: {}, time: { start: t + 40, end: t + 90 } } }]),
      { type: 'step-finish', reason: last ? 'stop' : 'tool-calls', cost: 0, tokens: tk },
    ]
    messages.push({
      id: mid(t),
      data: { role: 'assistant', time: { created: t, completed: t + 100 }, parentID: u, modelId: 'GLM-5.2', providerId: 'zai-api', mode: 'build', agent: 'build', path: { cwd: DIR, root: DIR }, cost: 0, tokens: tk, finish: last ? 'stop' : 'tool-calls' },
      parts: parts.map((p) => ({ id: pid(t), data: p })),
    })
  }
  return { id, directory: DIR, title: `Bench session ${i}`, created: t0, updated: t, entries: [{ type: 'runtime/model_selection', data: { modelSelection: sel } }], messages }
}

function generate(home, sessions, steps, outBytes) {
  const dbDir = join(home, '.zcode', 'cli', 'db')
  const done = join(dbDir, 'db.sqlite')
  if (existsSync(done)) return done
  rmSync(home, { recursive: true, force: true })
  mkdirSync(dbDir, { recursive: true })
  const tmp = join(dbDir, 'building.sqlite')
  const db = createDb(tmp)
  for (let i = 0; i < sessions; i++) insertSession(db, session(i, steps, outBytes))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  // Renamed only when complete, so an interrupted generation is redone.
  renameSync(tmp, done)
  return done
}

/** The same JSON the reader parses (message and part `data`), one per line, for the baseline loop. */
async function dump(dbPath, file) {
  if (existsSync(file)) return
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  const out = createWriteStream(file + '.tmp')
  for (const r of db.prepare('SELECT data FROM message UNION ALL SELECT data FROM part').iterate()) {
    if (!out.write(r.data + '\n')) await new Promise((res) => out.once('drain', res))
  }
  await new Promise((res) => out.end(res))
  db.close()
  renameSync(file + '.tmp', file)
}

export default async function (b) {
  const sessions = b.quick ? 100 : 2400
  const steps = 20
  const outBytes = b.quick ? 4000 : 24_000
  const home = join(b.outDir, `zcode-${sessions}x${steps}x${outBytes}`)
  console.log(`\n# zcode: SQLite store, ${sessions} sessions`)
  const dbPath = generate(home, sessions, steps, outBytes)
  const lines = join(home, 'data.jsonl')
  await dump(dbPath, lines)
  const bytes = statSync(lines).size
  b.report('zcode store', `${sessions} sessions, db ${(statSync(dbPath).size / 2 ** 30).toFixed(2)} GiB, ${(bytes / 2 ** 20).toFixed(0)} MiB of message/part JSON`)
  await b.ferry(`zcode ls (${sessions} sessions)`, ['--home', home, 'ls', '--harness', 'zcode', '--all', '--json'], { against: 'no baseline', note: 'one query over session' })
  await b.baseline('zcode data', lines)
  const zbase = b.lastBaseline
  const zcat = await b.ferry(`zcode ${sessions} sessions → ferry cat`, ['--home', home, 'cat', '--from', 'zcode', '--no-native'], { bytes, against: 'zcode data', note: 'read throughput over message+part JSON bytes' })
  // Issue #49: per CPU second (ferry's reader and the loop both parse every row's JSON; the machine's load moves wall time more).
  if (zcat.cpuMbs && zbase?.cpuSeconds) b.ratio('zcode: cat per CPU-s', zcat.cpuMbs / (bytes / 1e6 / zbase.cpuSeconds), 'MB per CPU-s vs the loop over the same JSON')
  const stream = join(home, 'stream.jsonl')
  if (!existsSync(stream)) {
    const fd = openSync(stream + '.tmp', 'w')
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'ferry.js'), '--home', home, 'cat', '--from', 'zcode', '--no-native'], { stdio: ['ignore', fd, 'inherit'] })
    closeSync(fd)
    if (r.status !== 0) throw new Error('ferry cat --from zcode failed')
    renameSync(stream + '.tmp', stream)
  }
  const out = join(b.outDir, 'zcode-write.sqlite')
  const clean = () => {
    for (const s of ['', '-wal', '-shm']) rmSync(out + s, { force: true })
  }
  await b.ferry(`zcode stream → write --to zcode --out FILE`, ['write', '--to', 'zcode', '--out', out], { before: clean, bytes: statSync(stream).size, stdinFile: stream, against: 'zcode data', note: 'write throughput over interchange bytes; one transaction per session' })
  clean()
}
