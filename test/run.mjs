#!/usr/bin/env node
// The test command. Builds (tsc, then the CLI bundle), runs the tap tests and
// ends with the plain closing line `N passed, N failed` that CI's log reader
// looks for.
//
//   node test/run.mjs            the fast set (npm test): every test file but the FULL_ONLY ones
//   node test/run.mjs --full     everything: the fast set and FULL_ONLY (npm run test:full)
//   node test/run.mjs --slow     FULL_ONLY alone (what --full adds; CI runs it after npm test)
//   node test/run.mjs PATH…      those files, or the files of the set under those directories
//   node test/run.mjs --list …   print the files it would run, and stop
// Other arguments go to tap (e.g. --jobs=1, --grep=…); --timeout=N is scaled like the default.
//
// Timeouts scale with the machine's load: the factor F is the 1-minute load
// average over the available cores when the run starts, between 1 and 10
// (FERRY_TEST_SLOWDOWN, when set, is used as it is). tap's per-file timeout is
// 300 s × F, and the tests read F from FERRY_TEST_SLOWDOWN (test/kit.ts
// multiplies its spawn timeouts and file timeouts by it).
//
// The counts come from tap's raw TAP (--output-file), parsed assertion by
// assertion, never from the reporter's summary: every file's passing and
// failing assertions count, a file that crashed, timed out or never reported
// counts as at least one failure, and its time-out is worded with its limit.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Parser } from 'tap-parser'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The files `npm test` leaves to `npm run test:full`, with why. Chosen by
 * measured cost: CPU seconds of the file and the ferry processes it starts
 * (/usr/bin/time over `tap FILE`, 2 files at a time on 2 busy cores), and in
 * brackets its wall time there. All 83 files: 722 CPU-s; these seven: 177;
 * the fast set: 545 (about 4.5 minutes on two quiet cores).
 */
export const FULL_ONLY = [
  // #47 item 7: every store writer on a real full tmpfs, three sessions each. 26 CPU-s (3 min wall at load 45).
  'test/reliability/full-disk.test.ts',
  // #47 items 1, 2, 9, 10: real archives refused, damaged, exported under SIGINT. 17 CPU-s (3 min wall at load 44).
  'test/reliability/archive.test.ts',
  // #47 items 11, 14: search/redact/show under a hang bound, over an archived sample home. 7 CPU-s (2 min wall at load 44).
  'test/reliability/bounds.test.ts',
  // #47 items 3, 14: continue across homes, into ZCode, from stdin. 7 CPU-s (2 min wall at load 44).
  'test/reliability/continue.test.ts',
  // #47 item 4: Claude Code and ZCode writers into symlinked stores. 6 CPU-s (2 min wall at load 44).
  'test/reliability/roots.test.ts',
  // #47 fuzz surfaces: Pi symlink, located ENOSPC on 4 tmpfs writers, continue --new, cat past a deep line. 14 CPU-s (33 s wall at load 14).
  'test/reliability/hostile-targets.test.ts',
  // #47 fuzz surfaces: one run of each new scenario (Cursor/ZCode mutants, junk -wal, continue targets, Chromium). 14 CPU-s (30 s wall at load 14).
  'test/reliability/surfaces-smoke.test.ts',
  // Moved out of the fast set when five agents joined (npm test had reached 9 minutes on two quiet cores in
  // CI of 2026-12-07); wall times from that run, four files at a time:
  // every harness's sample into the archive, ls/cat/convert --archive, search, export with DuckDB. (120 s).
  'test/archive/archive.test.ts',
  // ZCode's database: migrations replayed, WAL, live writer, force, every record shape. (56 s).
  'test/harness/zcode/zcode.test.ts',
  // Cursor's three stores (IDE, CLI chats, agent transcripts) generated and read, written back. (49 s).
  'test/harness/cursor/stores.test.ts',
  // Cursor's blobEncryptionKey through cat, convert ×2, archive, export, render ×2 and show: 8 processes. (38 s).
  'test/harness/cursor/blob-key.test.ts',
  // `convert --jobs`: parallel sinks into folders, signals, the same bytes as one job. (41 s).
  'test/core/convert-jobs.test.ts',
  // Gemini CLI and Qwen Code beyond the contract: fixture reads, writes read back, one Claude Code → each through the CLI. 18 CPU-s (90 s) for the two.
  'test/harness/gemini/gemini.test.ts',
  'test/harness/qwen/qwen.test.ts',
  // Every sample session converted into every other harness and read back: ~25 pairs × 3 processes. 76 s (217 s).
  'test/core/matrix.test.ts',
  // #46's heavier CLI checks: dry runs against real runs, continue without the agent on PATH, show and progress on a pty, the quick start's next steps. 24 CPU-s (90 s, load ~35).
  'test/core/newcomer-terminal.test.ts',
  // `ferry continue` from every sample session into every store target. 21 s (133 s).
  'test/continue/continue-matrix.test.ts',
  // kill -9, SIGINT and SIGTERM during 120–150-session exports, byte-compared with an uninterrupted run, then re-runs. 24 s (56 s).
  'test/core/kill-durability.test.ts',
  // kill -9 during `archive` (one thread and --jobs 2) over 60 and 150 generated sessions, then re-runs. 12 s (48 s).
  'test/archive/archive-kill.test.ts',
  // The fault suite's writers: signals mid-write, a full tmpfs, concurrent writers, closed pipes. 16 s (37 s).
  'test/reliability/writers.test.ts',
  // `archive --jobs 2` against --jobs 1 on 9 MB sessions, megabyte lines and every UTF-8 width. 15 s (75 s).
  'test/archive/readers.test.ts',
  // `ferry hooks` against the user's own settings and as the agents run it: ~25 ferry processes and detached archives. 18 s (70 s).
  'test/archive/hooks.test.ts',
  // `archive --watch` running while stores change, SIGTERM, the user service: waits on the watcher's debounce. 6 s (32 s).
  'test/archive/watch.test.ts',
  // npm pack, npm install of the tarball (from the registry when the cache lacks a dependency), npx ferry. 15 s (39 s).
  'test/core/package.test.ts',
  // `ferry archive` of the stats stores, then `stats --archive` against the live stores: 8 ferry processes. 7 s (29 s, load 24).
  'test/stats/archive.test.ts',
  // `ferry search` as ~25 CLI processes: plain words, the REF#N it prints run by a shell, no match, --fts errors, bounds. 14 s (65 s).
  'test/archive/search-words.test.ts',
  // `ferry pick` in tmux: eight picker processes (pager, continue, render, archive search, bash Ctrl-G). ~6 s of its own
  // (17–19 CPU-s under test/run.mjs against 13 for a one-assertion file, at a load of 44) (170 s).
  'test/pick/pick-actions.test.ts',
  // #46's pages in Chromium (cards, contents links, times, markers, code mode): one browser, 4 renders. 6.7 CPU-s (24 s).
  'test/render/page-browser.test.ts',
  // #46's export column types and the README's DuckDB queries: archive twice, export, DuckDB. 5.3 CPU-s (15 s).
  'test/archive/export-types.test.ts',
  // #41's shapes found by conformance/scenario41.sh (beside issue41.test.ts, below), into every store target. 4.2 CPU-s (6 s).
  'test/fidelity/issue41-scenario.test.ts',
  // Moved out of the fast set when the #41/#42/#46/#47/#49 branches met (npm test at 5 min 48 s on two quiet cores):
  // schema 3 archives upgraded to 4 and compared (12 s); the Claude Code sniff past a 50 MB first line (12 s);
  // ferry doctor over every harness, with injected unknown types (11 s); the HTML page's cards and contents (11 s);
  // issue 41's fixtures into every target (11 s). Wall seconds from that run.
  'test/archive/migrate.test.ts',
  'test/reliability/detect.test.ts',
  'test/doctor/doctor.test.ts',
  'test/render/page.test.ts',
  'test/fidelity/issue41.test.ts',
  // Moved out of the fast set when the second #49 round met the rest (npm test at 6 min 12 s on two quiet cores):
  // an unchanged archive re-run under strace, after waiting out discovery's 3 s racy window (19 s); every
  // command's prebuilt help text against the live parser at three widths and on a pty (11 s); 4,000 sessions of
  // 40 KB handed to two capped archive readers (6.6 s). Wall seconds from that run.
  'test/archive/rerun.test.ts',
  'test/core/help-text.test.ts',
  'test/archive/reader-slices.test.ts',
  // Still 6 min 4 s after those three: render's 244 checks of every view and format (60 s), and both zstd
  // decoders on the same files, cut and whole, through the CLI on Node 20 and 24 (45 s).
  'test/render/render.test.ts',
  'test/core/zstd.test.ts',
  // The source's title listed in every store target: 2 sample sessions × 8 targets through cat | write and ls. 13 CPU-s (15 s).
  'test/fidelity/titles.test.ts',
  // The fast set measured 6 min 20 s on two quiet cores at stop 56 (twice, 380 s each): the three largest files
  // that are not the contract suites went here. The discovery cache through ~40 `ls` processes, strace included
  // (50 s); the HTML in Chromium with planted payloads (38 s); fast-check mutants of every record kind through
  // every writer (39 s). Wall seconds from that run.
  'test/core/discovery-cache.test.ts',
  'test/render/browser.test.ts',
  'test/reliability/record-shapes.test.ts',
  // After the harness manifest (#49, stop 57) a command that loads every harness opens more bundle files, and the
  // fast set measured 5 min 48 s (348 s): two more whole-feature files moved, the MCP server through the SDK's
  // client (40 s) and `show` of every sample (39 s). Wall seconds from that run.
  'test/mcp/mcp.test.ts',
  'test/render/show.test.ts',
]

const argv = process.argv.slice(2)
const mode = argv.includes('--full') ? 'full' : argv.includes('--slow') ? 'slow' : 'fast'
const listOnly = argv.includes('--list')
const rest = argv.filter((a) => a !== '--full' && a !== '--slow' && a !== '--list')
let tapArgs = rest.filter((a) => a.startsWith('-'))
const paths = rest.filter((a) => !a.startsWith('-'))

/** Test files under a directory, relative to the root, sorted. */
function testFiles(dir) {
  const out = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...testFiles(p))
    else if (e.name.endsWith('.test.ts')) out.push(relative(root, p))
  }
  return out.sort()
}

/** Stops before any test ran, with the closing line CI reads. */
function stop(why) {
  console.log(why)
  console.log('0 passed, 1 failed')
  process.exit(1)
}

const full = new Set(FULL_ONLY)
const inSet = (f) => (mode === 'full' ? true : mode === 'slow' ? full.has(f) : !full.has(f))
const missing = FULL_ONLY.filter((f) => !existsSync(join(root, f)))
if (missing.length) {
  stop(`test/run.mjs: FULL_ONLY names files that do not exist: ${missing.join(', ')}`)
}
let files = []
if (paths.length === 0) files = testFiles(join(root, 'test')).filter(inSet)
for (const p of paths) {
  const abs = resolve(p)
  if (!existsSync(abs)) {
    stop(`test/run.mjs: no such file or directory: ${p}`)
  }
  // A file named is run whatever its set; a directory gives the files of the set under it.
  if (statSync(abs).isDirectory()) files.push(...testFiles(abs).filter(inSet))
  else files.push(relative(root, abs))
}
files = [...new Set(files)]
// The longest files of the fast set start first (measured wall times on two quiet cores, CI of
// 2026-12-07): started late, one of them alone kept the run going minutes after the others ended.
const LONG_FIRST = ['test/render/render.test.ts', 'test/core/cli-contract.test.ts', 'test/transforms/cli-pipe.test.ts', 'test/harness/contract.test.ts', 'test/harness/zcode/zcode.test.ts', 'test/harness/cursor/stores.test.ts', 'test/transforms/cli-select.test.ts', 'test/core/zstd.test.ts', 'test/core/convert-jobs.test.ts']
files.sort((a, b) => (LONG_FIRST.includes(a) ? LONG_FIRST.indexOf(a) : LONG_FIRST.length) - (LONG_FIRST.includes(b) ? LONG_FIRST.indexOf(b) : LONG_FIRST.length))

if (listOnly) {
  for (const f of files) console.log(f)
  process.exit(0)
}

const started = Date.now()
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root], { stdio: 'inherit' })
const bundle = tsc.status === 0 ? spawnSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { stdio: 'inherit' }) : tsc
if (tsc.status !== 0 || bundle.status !== 0) {
  stop('build failed')
}
if (files.length === 0) {
  stop('no test files selected')
}

// The load factor: how much slower than a quiet machine this one is now.
const cores = availableParallelism()
const given = Number(process.env.FERRY_TEST_SLOWDOWN)
const factor = Number.isFinite(given) && given >= 1 ? given : Math.min(10, Math.max(1, Math.round((loadavg()[0] / cores) * 10) / 10))
// tap's per-file timeout in seconds on a quiet machine (300, or --timeout=N), scaled like every other.
const givenTimeout = tapArgs.find((a) => a.startsWith('--timeout='))
const BASE_TIMEOUT = givenTimeout ? Number(givenTimeout.slice('--timeout='.length)) : 300
const fileTimeout = Math.round(BASE_TIMEOUT * factor)
console.log(`# ${files.length} test files (${mode} set), load ${loadavg()[0].toFixed(2)} on ${cores} cores: timeouts ×${factor} (${fileTimeout} s a file unless it sets its own)`)

// Two test files per core: most of a test file's time is spent waiting on the
// ferry processes it starts and on fsync, so one per core left a core idle.
if (!tapArgs.some((a) => a.startsWith('--jobs') || a.startsWith('-j'))) tapArgs.unshift(`--jobs=${2 * cores}`)
tapArgs = tapArgs.filter((a) => !a.startsWith('--timeout='))
tapArgs.unshift(`--timeout=${fileTimeout}`)
// The raw TAP the counts come from (kept where FERRY_TEST_TAP names a file).
const outDir = mkdtempSync(join(tmpdir(), 'ferry-tap-'))
const rawTap = process.env.FERRY_TEST_TAP ? resolve(process.env.FERRY_TEST_TAP) : join(outDir, 'run.tap')
const perFileTap = join(outDir, 'files')
const tap = spawn(process.execPath, [join(root, 'node_modules/tap/dist/esm/run.mjs'), '--reporter=base', `--output-file=${rawTap}`, `--output-dir=${perFileTap}`, ...tapArgs, ...files], {
  cwd: root,
  stdio: ['inherit', 'inherit', 'inherit'],
  env: {
    ...process.env,
    FERRY_TEST_SLOWDOWN: String(factor),
    FORCE_COLOR: '0',
    // Off a terminal (CI's log), tap's reporter must not redraw: with CI set it
    // prints each line once instead of cursor-movement codes.
    ...(process.stdout.isTTY ? {} : { CI: process.env.CI ?? 'true' }),
  },
})
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => tap.kill(sig))

tap.on('close', (code, signal) => {
  const { perFile, other } = count(existsSync(rawTap) ? readFileSync(rawTap, 'utf8') : '', files, perFileTap)
  rmSync(outDir, { recursive: true, force: true })
  let pass = 0
  let fail = 0
  let skip = 0
  let todo = 0
  const problems = []
  for (const f of files) {
    const r = perFile.get(f)
    if (!r) {
      fail++
      problems.push(`${f}: never reported a result (crashed before its first line, or the run was stopped)`)
      continue
    }
    pass += r.pass
    skip += r.skip
    todo += r.todo
    const failed = r.fail > 0 || r.ok === false || !r.closed
    // A file that crashed or timed out is a failure even when none of its assertions failed.
    fail += failed ? Math.max(1, r.fail) : 0
    if (!failed) continue
    const why = []
    if (r.timedOut) {
      const ms = r.timeoutMs ?? fileTimeout * 1000
      const f0 = r.timeoutFactor ?? factor
      why.push(`timed out after ${Math.round(ms / 1000)}s (×${f0} for load)`)
    } else if (!r.closed) why.push('ended without its closing result (killed or crashed)')
    else if (r.ok === false && r.fail === 0) why.push(`the process failed${r.diag?.exitCode != null ? ` with exit code ${r.diag.exitCode}` : ''}${r.diag?.signal ? ` on ${r.diag.signal}` : ''}`)
    if (r.fail) why.push(`${r.fail} failed assertion${r.fail === 1 ? '' : 's'}: ${r.failures.slice(0, 5).join('; ')}${r.failures.length > 5 ? '; …' : ''}`)
    problems.push(`${f}: ${why.join('; ')}`)
  }
  for (const o of other) {
    fail++
    problems.push(o)
  }
  if (code !== 0 && fail === 0) {
    fail++
    problems.push(`tap exited with ${code ?? signal} although no test failed`)
  }
  if (problems.length) {
    console.log('\n# failures')
    for (const p of problems) console.log(`FAIL ${p}`)
  }
  console.log(`# ${files.length} files, ${skip} skipped, ${todo} todo (known gaps, not counted), wall ${Math.round((Date.now() - started) / 1000)}s, timeouts ×${factor}`)
  console.log(`${pass} passed, ${fail} failed`)
  process.exit(fail > 0 ? (code && code !== 0 ? code : 1) : 0)
})

/**
 * Counts a run. Each file's assertions come from its own raw TAP (what the
 * test process printed, saved by tap's --output-dir even when the process was
 * killed): passing, failing and skipped assertions at any depth (the closing
 * lines of subtests are not assertions), and the file's own timeout if it set
 * one through the kit. Whether the file ended well comes from the run's TAP
 * (--output-file): its closing line, or tap's `timeout!` naming it.
 */
function count(runTap, files, dir) {
  const status = new Map()
  const other = []
  const p = new Parser()
  p.on('assert', (res) => {
    // A file tap timed out may close with `not ok - timeout!` naming it in `expired` instead of its own line.
    const expired = typeof res.diag?.expired === 'string' && res.diag.expired !== 'TAP' ? res.diag.expired : null
    if (expired && /timeout/i.test(res.name)) {
      status.set(expired, { closed: true, ok: false, diag: res.diag, timedOut: true })
      return
    }
    if (res.closingTestPoint || files.includes(res.name)) {
      const timedOut = !res.ok && (res.diag?.signal === 'SIGALRM' || /timeout/i.test(res.diag?.message ?? ''))
      status.set(res.name, { closed: true, ok: res.ok, diag: res.diag, timedOut })
      return
    }
    if (!res.ok && !res.todo && !res.skip) other.push(`${res.name}${res.diag ? ` ${JSON.stringify(res.diag)}` : ''}`)
  })
  p.on('bailout', (reason) => other.push(`bail out: ${reason}`))
  p.end(runTap)

  const perFile = new Map()
  for (const f of files) {
    const raw = join(dir, `${f}.tap`)
    const st = status.get(f)
    if (!st && !existsSync(raw)) continue
    const r = { pass: 0, fail: 0, skip: 0, todo: 0, failures: [], closed: false, ok: null, diag: null, timedOut: false, ...st }
    if (st?.timedOut) r.timedOut = true
    if (existsSync(raw)) assertions(readFileSync(raw, 'utf8'), r)
    perFile.set(f, r)
  }
  return { perFile, other }
}

/** Adds the assertions of one test process's TAP to `r`. */
function assertions(text, r) {
  const watch = (parser, path) => {
    parser.on('comment', (c) => {
      const m = /ferry-timeout (\d+) ([\d.]+)/.exec(c)
      if (m) {
        r.timeoutMs = Number(m[1])
        r.timeoutFactor = Number(m[2])
      }
    })
    parser.on('assert', (res) => {
      if (res.closingTestPoint) return
      if (res.todo) r.todo++
      else if (res.skip) r.skip++
      else if (res.ok) r.pass++
      else {
        r.fail++
        r.failures.push([...path, res.name].filter(Boolean).join(' > ') || '(unnamed)')
        if (res.name === 'timeout!' || res.diag?.signal === 'SIGALRM') r.timedOut = true
      }
    })
    parser.on('child', (c) => watch(c, [...path, c.name]))
  }
  const p = new Parser()
  watch(p, [])
  p.end(text)
}
