// Cursor: a generated editor store (`state.vscdb`, ≥ 1 GiB, 3,000 composers plus one big one;
// 100 composers / ~12 MB with --quick), built here row by row with better-sqlite3 (the tables
// fixtures/cursor/make-fixtures.mjs uses, rollback-journal mode as Cursor keeps it) and cached under
// bench/out/. Measures `ferry ls --harness cursor` (header rows only) next to a loop over the same
// header rows, and `ferry cat` of the big composer (MB/s over its bubble JSON, peak RSS) next to the
// baseline: better-sqlite3 iterating the same bubble rows + JSON.parse + JSON.stringify.
//
// `node bench/workloads/cursor.mjs --baseline DB CPU_FILE COMPOSER_ID` and `--headers DB CPU_FILE` are those baselines
// (each writes its user+sys CPU seconds to CPU_FILE)
// (run by the workload as child processes, so their RSS is measured the same way).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'

export const name = 'cursor'

const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit; '
const CWD = '/home/dev/demo-app'
const T0 = 1790000000000
const uuid = (a, b) => `${a.toString(16).padStart(8, '0')}-0000-4000-8000-${b.toString(16).padStart(12, '0')}`
const pad = (s, n) => `${s} ${LOREM.repeat(Math.ceil(n / LOREM.length))}`.slice(0, n)
export const BIG = uuid(0xb16, 0xb16)

/** Bubble `i` of a composer: user prompts, assistant text, and shell calls whose result carries most of the bytes. */
function bubble(i, size, t) {
  const createdAt = new Date(t).toISOString()
  if (i % 4 === 0) return { _v: 3, type: 1, bubbleId: `b${i}`, createdAt, text: pad(`Prompt ${i}:`, Math.min(size, 600)) }
  if (i % 4 === 2)
    return {
      _v: 3, type: 2, bubbleId: `b${i}`, createdAt, text: '', capabilityType: 15,
      toolFormerData: { tool: 15, name: 'run_terminal_command_v2', toolCallId: `toolu_${i}`, params: JSON.stringify({ command: `make step-${i}`, cwd: CWD }), status: 'completed', result: JSON.stringify({ output: pad(`${i}:`, size), exitCode: 0 }) },
      modelInfo: { modelName: 'claude-4.6-sonnet-thinking' },
    }
  return { _v: 3, type: 2, bubbleId: `b${i}`, createdAt, text: pad(`Answer ${i}.`, Math.min(size, 2000)), modelInfo: { modelName: 'claude-4.6-sonnet-thinking' }, tokenCount: { inputTokens: 1000, outputTokens: 50 } }
}

function generate(home, composers, perComposer, size, bigBubbles, bigSize) {
  const dir = join(home, '.config', 'Cursor', 'User', 'globalStorage')
  const done = join(dir, 'state.vscdb')
  if (existsSync(done)) return done
  rmSync(home, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const tmp = join(dir, 'building.vscdb')
  const db = new Database(tmp)
  // Building only: no journal, no fsync. Cursor's own file is in rollback-journal mode (set below).
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER, value TEXT);')
  const head = db.prepare('INSERT INTO composerHeaders VALUES (?, ?, ?, ?, ?, 0, ?, NULL, ?)')
  const kv = db.prepare('INSERT INTO cursorDiskKV VALUES (?, ?)')
  const uri = { $mid: 1, fsPath: CWD, path: CWD, scheme: 'file' }
  const composer = (cid, name, t, n, archived) => {
    head.run(cid, 'ws1', t, t + n * 1000, archived ? 1 : 0, t, JSON.stringify({ type: 'head', composerId: cid, name, createdAt: t, lastUpdatedAt: t + n * 1000, isArchived: archived, workspaceIdentifier: { id: 'ws1', uri } }))
    const heads = Array.from({ length: n }, (_, i) => ({ bubbleId: `b${i}`, type: i % 4 === 0 ? 1 : 2 }))
    kv.run(`composerData:${cid}`, JSON.stringify({ _v: 17, composerId: cid, name, createdAt: t, lastUpdatedAt: t + n * 1000, modelConfig: { modelName: 'claude-4.6-sonnet-thinking' }, fullConversationHeadersOnly: heads, subagentComposerIds: [], workspaceIdentifier: { id: 'ws1', uri } }))
  }
  composer(BIG, 'The big composer', T0, bigBubbles, false)
  // The big composer's bubbles are written among the others', as Cursor writes them over time:
  // reading it seeks all over the file.
  let big = 0
  const bigStep = bigBubbles / composers
  const one = db.transaction((c) => {
    const cid = uuid(c, 1)
    const t = T0 + c * 3_600_000
    composer(cid, `Bench composer ${c}`, t, perComposer, c % 50 === 49)
    for (let i = 0; i < perComposer; i++) kv.run(`bubbleId:${cid}:b${i}`, JSON.stringify(bubble(i, size, t + i * 1000)))
    for (const stop = Math.min(bigBubbles, Math.round((c + 1) * bigStep)); big < stop; big++) kv.run(`bubbleId:${BIG}:b${big}`, JSON.stringify(bubble(big, bigSize, T0 + big * 1000)))
  })
  for (let c = 0; c < composers; c++) one(c)
  db.pragma('journal_mode = DELETE')
  db.close()
  // Renamed only when complete, so an interrupted generation is redone.
  renameSync(tmp, done)
  return done
}

function bubbleBytes(dbPath, cid) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT sum(length(value)) AS n FROM cursorDiskKV WHERE key >= ? AND key < ?').get(`bubbleId:${cid}:`, `bubbleId:${cid};`).n
  } finally {
    db.close()
  }
}

export default async function (b) {
  const composers = b.quick ? 100 : 3000
  const perComposer = 40
  const size = b.quick ? 2000 : 30_000
  const bigBubbles = b.quick ? 200 : 2400
  const bigSize = b.quick ? 20_000 : 150_000
  const home = join(b.outDir, `cursor-${composers}x${perComposer}x${size}-${bigBubbles}x${bigSize}`)
  const dbPath = generate(home, composers, perComposer, size, bigBubbles, bigSize)
  const bytes = bubbleBytes(dbPath, BIG)
  b.report('cursor store', `state.vscdb ${(statSync(dbPath).size / 2 ** 30).toFixed(2)} GiB, ${composers + 1} composers, the big one ${bigBubbles} bubbles / ${(bytes / 2 ** 20).toFixed(0)} MiB`)
  const self = fileURLToPath(import.meta.url)
  // The baselines report their own CPU time (user+sys): wall time on the shared machine is noise.
  const cpuFile = join(b.outDir, `cursor-cpu-${process.pid}`)
  const cpu = () => {
    const v = Number(readFileSync(cpuFile, 'utf8'))
    rmSync(cpuFile, { force: true })
    return v
  }
  await b.script(`baseline loop: cursor header rows (${composers + 1})`, self, ['--headers', dbPath, cpuFile], { note: 'composerHeaders iterate + JSON.parse' })
  const hCpu = cpu()
  const ls = await b.ferry(`cursor ls (${composers + 1} composers, --all)`, ['--home', home, 'ls', '--harness', 'cursor', '--all', '--json'], { against: 'none', note: `header rows only; CPU ${ls0(hCpu)} s for the header loop` })
  b.report('cursor ls CPU', `ferry ls ${ls0(ls.cpuSeconds)} s, header loop ${ls0(hCpu)} s (process start included in both)`)
  b.ratio('cursor 1G: ls vs the header-row loop (CPU)', hCpu / ls.cpuSeconds, 'CPU time of iterating composerHeaders vs ferry ls (higher is better)')
  const read = preadBytes(b.root, home)
  if (read !== null) b.report('cursor ls: bytes read', `${(read / 2 ** 20).toFixed(2)} MiB pread by ls from a ${(statSync(dbPath).size / 2 ** 30).toFixed(2)} GiB state.vscdb (strace): header rows, not bubbles`)
  const base = await b.script('baseline loop: cursor big composer bubbles', self, ['--baseline', dbPath, cpuFile, BIG], { bytes, note: 'better-sqlite3 iterate + JSON.parse + JSON.stringify' })
  const bCpu = cpu()
  const cat = await b.ferry(`cursor cat one big composer (${(bytes / 2 ** 20).toFixed(0)} MiB)`, ['--home', home, 'cat', `cursor:${BIG}`, '--no-native'], { bytes, against: 'none' })
  const vs = cat.mbs / base.mbs
  const rss = cat.rssKiB / base.rssKiB
  const cpuVs = bCpu / cat.cpuSeconds
  b.report('cursor cat vs baseline', `wall: ${(vs * 100).toFixed(0)}% of baseline speed; CPU: ferry ${ls0(cat.cpuSeconds)} s vs baseline ${ls0(bCpu)} s (${(cpuVs * 100).toFixed(0)}%); ${rss.toFixed(2)}x its RSS`)
  b.ratio('cursor 1G: cat one big composer', vs, 'MB/s vs the better-sqlite3 loop over the same bubble rows', { rss })
  b.ratio('cursor 1G: cat one big composer (CPU)', cpuVs, 'MB per CPU-second vs the same loop')
}

/** Bytes `ferry ls` reads with pread (SQLite's page reads), from strace; null without strace. */
function preadBytes(root, home) {
  const out = join(root, 'bench', 'out', `strace-cursor-${process.pid}.txt`)
  const r = spawnSync('strace', ['-f', '-e', 'trace=pread64', '-o', out, process.execPath, join(root, 'bin', 'ferry.js'), '--home', home, 'ls', '--harness', 'cursor', '--all', '--json'], { stdio: 'ignore' })
  if (r.error || r.status !== 0 || !existsSync(out)) return null
  let n = 0
  for (const m of readFileSync(out, 'utf8').matchAll(/pread64\(.*\)\s+=\s+(\d+)/g)) n += Number(m[1])
  rmSync(out, { force: true })
  return n
}

const ls0 = (v) => (typeof v === 'number' ? v.toFixed(2) : '?')

/** The baselines, as child processes. */
async function main(argv) {
  const out = process.stdout
  const write = async (s) => {
    if (!out.write(s)) await new Promise((r) => out.once('drain', r))
  }
  const db = new Database(argv[1], { readonly: true, fileMustExist: true })
  const cpuFile = argv[2]
  if (argv[0] === '--headers') {
    let n = 0
    for (const r of db.prepare('SELECT composerId, createdAt, lastUpdatedAt, isArchived, isSubagent, value FROM composerHeaders').iterate()) n += JSON.parse(r.value).name ? 1 : 0
    await write(`${n}\n`)
  } else {
    const cid = argv[3]
    for (const r of db.prepare('SELECT value FROM cursorDiskKV WHERE key >= ? AND key < ?').iterate(`bubbleId:${cid}:`, `bubbleId:${cid};`)) {
      const v = typeof r.value === 'string' ? r.value : r.value.toString('utf8')
      await write(JSON.stringify(JSON.parse(v)) + '\n')
    }
  }
  db.close()
  await new Promise((r) => out.end(r))
  const u = process.cpuUsage()
  writeFileSync(cpuFile, String((u.user + u.system) / 1e6))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))
