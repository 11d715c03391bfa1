#!/usr/bin/env node
/**
 * npm run bench [-- --quick] [-- name...]: runs every workload in
 * bench/workloads/*.mjs (or the named ones) and prints a table of throughput
 * (MB/s) and peak RSS for ferry next to the baseline loop measured in the
 * same run. Generated data is cached under bench/out/ (git-ignored).
 * Not part of the tests: numbers are reported, never asserted.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outDir = join(root, 'bench', 'out')
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const check = args.includes('--check')
const only = args.filter((a) => !a.startsWith('--'))
/**
 * `--repeat=N`: every measured command runs N times and its row gives the
 * median seconds, CPU seconds and peak RSS (issue #20's figures were medians
 * of 3). On this 2-core machine one run of the same command moves by up to
 * 15%, so a ratio near its floor passes or fails `--check` by chance. A
 * command that changes what the next run sees says how to undo it (`before`).
 */
const repeatArg = args.find((a) => a.startsWith('--repeat='))
const repeat = repeatArg ? Math.max(1, Number.parseInt(repeatArg.slice('--repeat='.length), 10) || 1) : 1
mkdirSync(outDir, { recursive: true })

const rows = []
function print(row) {
  rows.push(row)
  const mbs = row.mbs === undefined ? '' : `${row.mbs.toFixed(1)} MB/s`
  const rss = row.rssKiB === undefined ? '' : `${(row.rssKiB / 1024).toFixed(0)} MiB RSS`
  const rel = row.vsBaseline === undefined ? '' : `${(row.vsBaseline * 100).toFixed(0)}% of baseline speed, ${row.rssVsBaseline?.toFixed(2)}x its RSS`
  console.log([row.label.padEnd(48), (row.seconds?.toFixed(2) ?? '').padStart(7) + (row.seconds === undefined ? '' : ' s'), mbs.padStart(12), rss.padStart(14), rel, row.note ?? ''].join('  '))
}

/** Runs a node script with the RSS probe; stdout to /dev/null unless captured. */
function measure(script, scriptArgs, opts = {}) {
  const rssFile = join(outDir, `rss-${process.pid}-${Math.random().toString(36).slice(2)}`)
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const stdinFd = opts.stdinFile ? openSync(opts.stdinFile, 'r') : 'ignore'
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(root, 'bench', 'rss-probe.mjs')).href, script, ...scriptArgs], {
      cwd: root,
      stdio: [stdinFd, opts.capture ? 'pipe' : 'ignore', 'pipe'],
      env: { ...process.env, FERRY_BENCH_RSS_FILE: rssFile, ...(opts.env ?? {}) },
    })
    if (typeof stdinFd === 'number') closeSync(stdinFd)
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (b) => (stderr += b).length > 20000 && (stderr = stderr.slice(-10000)))
    child.stdout?.on('data', (b) => (stdout += b))
    child.on('error', reject)
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9
      // One line a process: the command's, and the launcher's when ferry ran the command in a second process.
      const procs = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ').map(Number)) : []
      // Peak RSS is the command's (the largest); the launcher's is reported beside it.
      const [cmd, launcher] = [...procs].sort((a, b) => b[0] - a[0])
      const rssKiB = cmd?.[0]
      const launcherKiB = launcher?.[0]
      // The command's young generation and V8 heap at their largest after a collection (main thread).
      const youngKiB = cmd?.[2]
      const heapKiB = cmd?.[3]
      // CPU time of the measured processes: on a machine shared with other jobs, MB per CPU-second is the steadier figure.
      const cpuSeconds = procs.length ? procs.reduce((s, [, us]) => s + us, 0) / 1e6 : undefined
      rmSync(rssFile, { force: true })
      resolve({ code, seconds, rssKiB, launcherKiB, youngKiB, heapKiB, cpuSeconds, stderr, stdout })
    })
  })
}

/** `measure`, `repeat` times (`opts.before` ahead of each run): the median of each figure, the last run's output. */
async function measured(script, scriptArgs, opts = {}) {
  const runs = []
  for (let i = 0; i < repeat; i++) {
    await opts.before?.()
    const r = await measure(script, scriptArgs, opts)
    if (r.code !== 0) return r
    runs.push(r)
  }
  if (runs.length === 1) return runs[0]
  const median = (xs) => {
    const s = xs.filter((x) => x !== undefined).sort((a, b) => a - b)
    if (!s.length) return undefined
    const h = s.length >> 1
    return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2
  }
  return { ...runs[runs.length - 1], seconds: median(runs.map((r) => r.seconds)), rssKiB: median(runs.map((r) => r.rssKiB)), launcherKiB: median(runs.map((r) => r.launcherKiB)), youngKiB: median(runs.map((r) => r.youngKiB)), heapKiB: median(runs.map((r) => r.heapKiB)), cpuSeconds: median(runs.map((r) => r.cpuSeconds)) }
}
const medianNote = repeat > 1 ? `median of ${repeat}` : ''

const baselines = new Map()
const ratios = []

const b = {
  quick,
  root,
  outDir,
  /** Runs the project's generator once per argument list; returns the fake HOME. */
  async gen(genArgs) {
    const key = createHash('sha256').update(JSON.stringify(genArgs)).digest('hex').slice(0, 12)
    const home = join(outDir, 'data', key)
    if (existsSync(join(home, 'ferry-gen-manifest.json'))) return home
    rmSync(home, { recursive: true, force: true })
    mkdirSync(home, { recursive: true })
    const r = await measure(join(root, 'bench', 'gen.mjs'), [...genArgs, '--out', home, '--quiet'])
    if (r.code !== 0) throw new Error(`gen ${genArgs.join(' ')} failed: ${r.stderr}`)
    return home
  },
  findFiles(dir, re) {
    const out = []
    const walk = (d) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (re.test(p)) out.push(p)
      }
    }
    walk(dir)
    return out.sort()
  },
  size: (file) => statSync(file).size,
  /** The split2 + JSON.parse + JSON.stringify loop over `file`. */
  async baseline(label, file) {
    const r = await measured(join(root, 'bench', 'baseline.mjs'), [file])
    if (r.code !== 0) throw new Error(`baseline failed: ${r.stderr}`)
    const bytes = statSync(file).size
    const row = { label: `baseline loop: ${label}`, seconds: r.seconds, mbs: bytes / 1e6 / r.seconds, rssKiB: r.rssKiB, cpuSeconds: r.cpuSeconds }
    const note = [r.cpuSeconds ? `${(bytes / 1e6 / r.cpuSeconds).toFixed(1)} MB per CPU-s` : '', medianNote].filter(Boolean).join(' ')
    if (note) row.note = note
    baselines.set(label, row)
    b.lastBaseline = row
    print(row)
    return row
  },
  /** Runs bin/ferry with `ferryArgs`; `bytes` is the input size for MB/s; compares with `against` (a baseline label) or the last baseline. */
  async ferry(label, ferryArgs, opts = {}) {
    const r = await measured(join(root, 'bin', 'ferry.js'), ferryArgs, opts)
    if (r.code !== 0 && !opts.allowFail) throw new Error(`ferry ${ferryArgs.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`)
    const base = opts.against ? baselines.get(opts.against) : b.lastBaseline
    const row = { label, seconds: r.seconds, rssKiB: r.rssKiB }
    if (opts.bytes) row.mbs = opts.bytes / 1e6 / r.seconds
    if (base && row.mbs) {
      row.vsBaseline = row.mbs / base.mbs
      row.rssVsBaseline = row.rssKiB / base.rssKiB
    }
    if (opts.bytes && r.cpuSeconds) row.cpuMbs = opts.bytes / 1e6 / r.cpuSeconds
    row.cpuSeconds = r.cpuSeconds
    const cpu = row.cpuMbs ? `${row.cpuMbs.toFixed(1)} MB per CPU-s` : row.cpuSeconds ? `${row.cpuSeconds.toFixed(2)} CPU-s` : ''
    for (const k of ['launcherKiB', 'youngKiB', 'heapKiB']) if (r[k] !== undefined) row[k] = r[k]
    const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`
    const launcher = r.launcherKiB === undefined ? '' : `(+ launcher ${mib(r.launcherKiB)} RSS)`
    const heap = r.heapKiB ? `V8 heap ≤ ${mib(r.heapKiB)}, young ≤ ${mib(r.youngKiB)}` : ''
    if (opts.note || cpu || medianNote || launcher || heap) row.note = [cpu, heap, launcher, opts.note, medianNote].filter(Boolean).join(' ')
    print(row)
    return { ...row, stdout: r.stdout, stderr: r.stderr }
  },
  /** Runs any node script with the RSS probe (for workloads that measure a library call). */
  async script(label, script, scriptArgs, opts = {}) {
    const r = await measured(script, scriptArgs, opts)
    if (r.code !== 0) throw new Error(`${script} failed: ${r.stderr.slice(-2000)}`)
    const cpu = r.cpuSeconds ? (opts.bytes ? `${(opts.bytes / 1e6 / r.cpuSeconds).toFixed(1)} MB per CPU-s` : `${r.cpuSeconds.toFixed(2)} CPU-s`) : ''
    const note = [cpu, opts.note, medianNote].filter(Boolean).join(' ')
    const row = { label, seconds: r.seconds, rssKiB: r.rssKiB, cpuSeconds: r.cpuSeconds, ...(opts.bytes ? { mbs: opts.bytes / 1e6 / r.seconds } : {}), ...(note ? { note } : {}) }
    print(row)
    return { ...row, stdout: r.stdout }
  },
  /**
   * Records one guarded ratio for the closing table: `value` is higher-is-better
   * (a speed ratio to the workload's baseline) unless `kind` is 'max' (an RSS
   * ratio, lower is better). `--check` compares it with bench/floors.json.
   */
  ratio(name, value, what, extra = {}) {
    if (!Number.isFinite(value)) return
    ratios.push({ name, value, kind: 'min', what })
    if (extra.rss !== undefined && Number.isFinite(extra.rss)) ratios.push({ name: `${name} (peak RSS)`, value: extra.rss, kind: 'max', what: 'peak RSS vs the baseline' })
  },
  /** Records a lower-is-better ratio (RSS) for the closing table. */
  ceiling(name, value, what) {
    if (Number.isFinite(value)) ratios.push({ name, value, kind: 'max', what })
  },
  /** Prints a free-form result row (recall, counts…). */
  report(label, note, extra = {}) {
    print({ label, note, ...extra })
  },
}

/** The core workload: the interchange stream itself (parse + stringify), vs the loop, on the same bytes. */
async function core() {
  const n = quick ? 20_000 : 400_000
  // v2: a whole session ends with its end record (a writer refuses a stream cut short)
  const file = join(outDir, `interchange-v2-${n}.jsonl`)
  if (!existsSync(file)) {
    const lines = []
    const sid = 'ferry:bench'
    lines.push(JSON.stringify({ kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'bench' }))
    for (let i = 0; i < n; i++) {
      lines.push(JSON.stringify({ kind: 'message', sid, id: `${sid}:m${i}`, role: i % 2 ? 'assistant' : 'user', ts: '2026-11-02T09:15:00.000Z', blocks: [{ type: 'text', text: `message ${i} — ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 40))}` }] }))
    }
    lines.push(JSON.stringify({ kind: 'end', sid, id: `${sid}:end`, complete: true, counts: { message: n } }))
    writeFileSync(file, lines.join('\n') + '\n')
  }
  console.log(`\n# core: interchange stream, ${n} records`)
  const bytes = statSync(file).size
  await b.baseline('interchange', file)
  await b.ferry('ferry cat FILE (parse + stringify)', ['cat', file], { bytes })
  const out = join(outDir, 'core-out')
  const clean = () => rmSync(out, { recursive: true, force: true })
  await b.ferry('ferry write --to ferry --out DIR (atomic file)', ['write', '--to', 'ferry', '--out', out + '/'], { bytes, stdinFile: file, before: clean })
  clean()
}

const workloadDir = join(root, 'bench', 'workloads')
const workloads = existsSync(workloadDir) ? readdirSync(workloadDir).filter((f) => f.endsWith('.mjs')).sort() : []
console.log(`ferry bench ${quick ? '(quick)' : ''}${repeat > 1 ? ` (medians of ${repeat})` : ''} — node ${process.version}, ${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
if (!only.length || only.includes('core')) await core()
for (const f of workloads) {
  const mod = await import(pathToFileURL(join(workloadDir, f)).href)
  const name = mod.name ?? f.replace(/\.mjs$/, '')
  if (only.length && !only.includes(name)) continue
  console.log(`\n# ${name} (load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`)
  // Ratios compare only with a baseline measured by the same workload.
  b.lastBaseline = undefined
  try {
    await mod.default(b)
  } catch (err) {
    console.log(`  workload ${name} failed: ${err.message}`)
    process.exitCode = 1
  }
}
writeFileSync(join(outDir, 'last-run.json'), JSON.stringify({ rows, ratios }, null, 2))
summary()

/**
 * The one table of every guarded ratio, with the floor (or ceiling) recorded
 * in bench/floors.json for this Node major when there is one; `--check`
 * exits 1 when a ratio is on the wrong side of its floor. Floors are for the
 * full-size run: a --quick run prints them but never fails on them.
 */
function summary() {
  const floors = JSON.parse(readFileSync(join(root, 'bench', 'floors.json'), 'utf8')).floors
  const major = process.versions.node.split('.')[0]
  console.log(`\n# ratios to baseline (node ${process.version}${quick ? ', quick: floors not enforced' : ''})`)
  console.log(['ratio'.padEnd(58), 'value'.padStart(7), 'floor'.padStart(9), '  result'].join(''))
  let bad = 0
  for (const r of ratios) {
    const f = floors[r.name]
    const limit = f?.[`${r.kind}@${major}`] ?? f?.[r.kind]
    const ok = limit === undefined || (r.kind === 'min' ? r.value >= limit : r.value <= limit)
    if (!ok) bad++
    const lim = limit === undefined ? '—' : `${r.kind === 'min' ? '≥' : '≤'} ${limit.toFixed(2)}`
    console.log([r.name.padEnd(58), `${r.value.toFixed(2)}×`.padStart(7), lim.padStart(9), `  ${limit === undefined ? '' : ok ? 'ok' : 'BELOW FLOOR'}`, `  ${r.what}`].join(''))
  }
  const missing = Object.keys(floors).filter((k) => !ratios.some((r) => r.name === k))
  if (missing.length && !only.length) console.log(`not measured this run: ${missing.join('; ')}`)
  if (check && !quick) {
    console.log(bad ? `bench --check: ${bad} ratio(s) below floor` : 'bench --check: every ratio at or above its floor')
    if (bad) process.exitCode = 1
  }
}
