// What the surface scenarios of the fault campaign share (fuzz/surfaces.mjs and the modules it
// gathers): a real `ferry` process under a time bound, file and database fingerprints, the
// seeded generator, and the judgement of one run's stderr.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const FERRY = join(ROOT, 'bin/ferry.js')
export const HOME = join(ROOT, 'fixtures/home')

/** Runs the CLI; `prefix` (e.g. setpriv … as `nobody`) goes before node. */
export function run(args, { env = {}, timeout = 60_000, input = '', signalAfter, prefix = [], node = process.execPath } = {}) {
  return new Promise((res) => {
    const argv = [...prefix, node, FERRY, ...args]
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let hung = false
    child.stdout.on('data', (b) => (stdout += b))
    child.stderr.on('data', (b) => (stderr += b))
    child.stdin.on('error', () => {})
    child.stdin.end(input)
    const timer = setTimeout(() => {
      hung = true
      child.kill('SIGKILL')
    }, timeout)
    if (signalAfter) setTimeout(() => child.kill('SIGINT'), signalAfter)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      res({ code, signal, stdout, stderr, hung })
    })
  })
}

export const sha = (f) => (existsSync(f) ? createHash('sha256').update(readFileSync(f)).digest('hex') : '-')
export const dbState = (f) => ['', '-wal', '-shm', '-journal'].map((s) => sha(f + s)).join('|')

/** Every file under `dir` (relative path → sha256): what a source store must still be after a run. */
export function treeState(dir) {
  const out = new Map()
  if (!existsSync(dir)) return out
  for (const n of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const p = join(dir, n)
    if (statSync(p, { throwIfNoEntry: false })?.isFile()) out.set(n, sha(p))
  }
  return out
}

export function changedFiles(before, after) {
  const names = new Set([...before.keys(), ...after.keys()])
  return [...names].filter((n) => before.get(n) !== after.get(n))
}

/**
 * What a run left in its own TMPDIR, but for Node's compile cache: bin/ferry.js turns that cache on (Node ≥ 22.1),
 * and Node keeps it in os.tmpdir() between runs by design; it holds compiled code, never session data.
 */
export const leftInTmp = (tmp) => readdirSync(tmp).filter((n) => n !== 'node-compile-cache')

export function temps(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => n.split('/').pop().startsWith('.ferry-tmp-'))
}

/** A deterministic generator (mulberry32) so a seed repeats a campaign. */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = (rand, xs) => xs[Math.floor(rand() * xs.length)]

/** A hang, an `internal` error, a stack trace or a death by a signal we did not send. */
export function judge(counts, notes, what, r, { signalled = false } = {}) {
  if (r.hung) {
    counts.hangs++
    notes.push(`${what}: no end within its bound`)
    return
  }
  if (/internal|\n\s+at /.test(r.stderr) || (r.signal && !signalled)) {
    counts.crashes++
    notes.push(`${what}: ${r.signal ?? ''} ${r.stderr.slice(0, 400)}`)
  }
}

/**
 * Every line on stderr is ferry's own one-liner, and an error names its source, its code and a
 * file: `ferry: error: <source>:<code>: <file>…` (`ferry: error: <code>: … <path>` when no
 * store's reader raised it, as `no-session` naming the store it looked in). Anything else (a stray multi-line message, an
 * error without a code or a place) counts as a crash, as an unlocated error does in campaign.mjs.
 */
export function oneLiners(counts, notes, what, r) {
  if (r.hung) return
  const bad = r.stderr.split('\n').filter((l) => l && !(l.startsWith('{') ? locatedJson(l) : !l.startsWith('ferry: error: ') ? l.startsWith('ferry: ') : /^ferry: error: ([\w.-]+:)?[a-z][a-z-]*: .*\//.test(l)))
  if (bad.length) {
    counts.crashes++
    notes.push(`${what}: not a located one-liner with a code: ${bad.slice(0, 2).join(' | ').slice(0, 400)}`)
  }
}

/** With --json, an error is one object: a code, and a file (or a path in its message). */
function locatedJson(line) {
  let o
  try {
    o = JSON.parse(line)
  } catch {
    return false
  }
  const e = o.error ?? o
  return typeof e.code === 'string' && (typeof e.file === 'string' || /\//.test(e.message ?? ''))
}
