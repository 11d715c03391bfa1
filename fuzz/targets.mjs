// #47: `continue` into hostile targets, as real processes: a read-only target home (as `nobody` when
// the campaign runs as root), a full disk (a real tmpfs, part filled), a symlink inside the target
// store (or on the way to `continue`'s index) leading out of the home, and a target store that
// already holds a session with the id the copy would get. What must hold: no crash or hang; a run
// that fails exits non-zero with one located line with a code; nothing written outside the target
// home (the symlink's far side, the real HOME, TMPDIR); nothing partial under a final name and no
// temp file left; the session already there unchanged; the source unchanged. `continue` never starts
// an agent here: no `--exec`, and a PATH where no agent is found.
import { spawnSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { changedFiles, leftInTmp, HOME, judge, oneLiners, pick, run, sha, temps, treeState } from './proc.mjs'

const TIMEOUT = 60_000
/** Folders inside each target's store root (never the root itself: a root that is a link is where the store is). */
const STORES = {
  'claude-code': ['.claude/projects'],
  codex: ['.codex/sessions'],
  pi: ['.pi/agent/sessions'],
  gemini: ['.gemini/tmp'],
  qwen: ['.qwen/projects'],
  copilot: ['.copilot/session-state'],
  cursor: ['.cursor/projects', '.cursor/chats'],
  grok: ['.grok/sessions'],
  opencode: ['.local/share/opencode/ferry-import'],
  kilo: ['.local/share/kilo/ferry-import'],
  zcode: ['.zcode/cli/db'],
}
// `continue`'s index lives under the target home (#47 item 3): the index file a link to a file outside.
const INDEX = '.local/state/ferry/continued.json'

const asRoot = process.getuid?.() === 0
let nobody = null
/** How to run as `nobody` (setpriv), or null when that is not possible here. */
function nobodyPrefix() {
  if (nobody !== null) return nobody
  const prefix = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'env', '-u', 'NODE_OPTIONS']
  nobody = spawnSync(prefix[0], [...prefix.slice(1), process.execPath, '-e', '0']).status === 0 ? prefix : false
  return nobody
}

let tmpfsOk = null
function canMount(dir) {
  if (tmpfsOk !== null) return tmpfsOk
  const probe = join(dir, 'probe')
  mkdirSync(probe, { recursive: true })
  tmpfsOk = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0
  if (tmpfsOk) spawnSync('umount', [probe])
  rmSync(probe, { recursive: true, force: true })
  return tmpfsOk
}

/** The source: the sample Codex session as a stream file, its directory `work`, and `extra` bytes of text in one more message. */
async function source(dir, extra) {
  const src = join(dir, 'src')
  const work = join(dir, 'work')
  mkdirSync(src, { recursive: true })
  mkdirSync(work, { recursive: true })
  const file = join(src, 'session.jsonl')
  const base = (await run(['--home', HOME, 'cat', 'codex:019a3c1e'])).stdout.replaceAll('"cwd":"/home/dev/demo-app"', `"cwd":${JSON.stringify(work)}`)
  const lines = base.trimEnd().split('\n')
  if (extra) {
    const sid = JSON.parse(lines[1]).sid
    const big = { kind: 'message', sid, id: `${sid}:big`, role: 'user', ts: '2026-11-02T09:20:00.000Z', blocks: [{ type: 'text', text: 'big '.padEnd(extra, 'b') }] }
    lines.splice(lines.length - 1, 0, JSON.stringify(big))
  }
  writeFileSync(file, lines.join('\n') + '\n')
  return { file, work }
}

/** Files under `dir` that a failed run left: temp files, and JSONL cut short. */
function partials(dir) {
  const out = temps(dir).map((n) => join(dir, n))
  if (!existsSync(dir)) return out
  for (const n of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const p = join(dir, n)
    if (!n.endsWith('.jsonl') || !statSync(p, { throwIfNoEntry: false })?.isFile()) continue
    const text = readFileSync(p, 'utf8')
    if (text && !text.endsWith('\n')) out.push(p)
    else
      for (const l of text.split('\n').filter(Boolean)) {
        try {
          JSON.parse(l)
        } catch {
          out.push(p)
          break
        }
      }
  }
  return out
}

/** How many sessions `ferry ls` lists in the target (as root: a failed run's leftovers are listed too). */
async function sessionsIn(home) {
  const r = await run(['--home', home, 'ls', '--json', '--all'], { timeout: TIMEOUT })
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).length
}

export const TARGET_SCENARIOS = {
  async 'continue: into read-only, full, symlinked and occupied targets'(rand, dir, counts, notes) {
    const kinds = ['read-only', 'symlink', 'occupied', ...(canMount(dir) ? ['full'] : [])]
    const kind = pick(rand, kinds)
    const to = pick(rand, Object.keys(STORES))
    const extra = kind === 'full' ? Math.floor(rand() * 1_500_000) : 0
    const { file, work } = await source(dir, extra)
    const target = join(dir, 'target')
    const outside = join(dir, 'outside')
    const fakeHome = join(dir, 'real-home')
    const tmp = join(dir, 'tmp')
    for (const d of [target, outside, tmp]) rmSync(d, { recursive: true, force: true })
    for (const d of [target, outside, tmp]) mkdirSync(d)
    rmSync(fakeHome, { recursive: true, force: true })
    // ZCode is written into a database its first run created: the sample's.
    if (to === 'zcode') cpSync(join(HOME, '.zcode'), join(target, '.zcode'), { recursive: true })
    let prefix = []
    let what = `${kind} → ${to}`
    let mounted = false
    const json = rand() < 0.5
    const args = ['--home', target, 'continue', file, '--with', to, '--cwd', work, ...(json ? ['--json'] : [])]
    if (kind === 'read-only') {
      if (asRoot) {
        if (!nobodyPrefix()) return void notes.push('skipped: root without setpriv')
        prefix = nobodyPrefix()
        // `nobody` reads the source and the way to it, and writes nothing under the target.
        for (let d = dir; d !== dirname(d); d = dirname(d)) if (statSync(d).uid === 0) chmodSync(d, statSync(d).mode | 0o055)
        spawnSync('chmod', ['-R', 'a+rX,go-w', dir])
        if (rand() < 0.5) for (const s of STORES[to].slice(0, 1)) mkdirSync(join(target, s), { recursive: true })
        spawnSync('chmod', ['-R', 'a+rX,go-w', target])
      } else spawnSync('chmod', ['-R', 'a-w', target])
    } else if (kind === 'symlink') {
      const at = pick(rand, [...STORES[to], INDEX])
      what += ` (${at} → outside)`
      mkdirSync(dirname(join(target, at)), { recursive: true })
      if (at === INDEX) {
        writeFileSync(join(outside, 'continued.json'), '{}\n')
        symlinkSync(join(outside, 'continued.json'), join(target, at))
      } else {
        // What the agent already keeps there moves with the link (ZCode's database).
        if (existsSync(join(target, at))) {
          cpSync(join(target, at), outside, { recursive: true })
          rmSync(join(target, at), { recursive: true })
        }
        symlinkSync(outside, join(target, at))
      }
    } else if (kind === 'occupied') {
      const w = await run(['--home', target, 'write', '--to', to, '-q'], { input: readFileSync(file), env: { TMPDIR: tmp } })
      if (w.code !== 0) notes.push(`setup: write --to ${to} failed: ${w.stderr.slice(0, 300)}`)
      if (rand() < 0.5) args.push('--new'), (what += ' --new')
    } else if (kind === 'full') {
      const size = 128 + Math.floor(rand() * 896)
      spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}k`, 'tmpfs', target])
      mounted = true
      if (to === 'zcode') cpSync(join(HOME, '.zcode'), join(target, '.zcode'), { recursive: true })
      const fill = Math.floor(rand() * size * 1024 * 0.9)
      try {
        writeFileSync(join(target, 'filler'), Buffer.alloc(fill))
      } catch {}
      what += ` (${size} KiB tmpfs, ${fill} B filled, session +${extra} B)`
    }
    const srcBefore = sha(file)
    const before = treeState(target)
    const listedBefore = await sessionsIn(target)
    const outsideBefore = treeState(outside)
    try {
      const r = await run(args, { timeout: TIMEOUT, prefix, env: { TMPDIR: tmp, HOME: fakeHome, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, XDG_STATE_HOME: join(fakeHome, 'state') } })
      judge(counts, notes, what, r)
      oneLiners(counts, notes, what, r)
      const after = treeState(target)
      if (r.code !== 0 && !r.hung) {
        if (!(json ? /^\{"error":\{"code":"[a-z-]+"/m : /^ferry: error: /m).test(r.stderr)) {
          counts.crashes++
          notes.push(`${what}: exit ${r.code} without a coded error: ${r.stderr.slice(0, 300)}`)
        }
        // A failed run leaves the target as it was: no session under a final name, no index entry for it
        // (SQLite's own -wal and -shm beside a database it opened are not a session; the listing says).
        const added = changedFiles(before, after).filter((n) => !before.has(n) && n !== 'filler' && !/-(wal|shm)$|^\.cache\/ferry\//.test(n))
        const listed = await sessionsIn(target)
        if (listed !== listedBefore) {
          counts.partial++
          notes.push(`${what}: failed (exit ${r.code}) but the target now lists ${listed} sessions, not ${listedBefore}`)
        }
        if (added.length) {
          counts.partial += added.length
          notes.push(`${what}: failed (exit ${r.code}) but left ${added.join(', ')}`)
        }
      } else if (r.code === 0) {
        // The first line names the copy: a JSON object, or `harness<TAB>id<TAB>path`.
        const first = r.stdout.trim().split('\n')[0]
        const id = json ? JSON.parse(first).id : first.split('\t')[1]
        const path = json ? JSON.parse(first).path : first.split('\t')[2]
        // OpenCode and Kilo get a document for their own import (no client here): it must be whole JSON.
        const doc = ['opencode', 'kilo'].includes(to)
        const whole = (f) => {
          try {
            return JSON.parse(readFileSync(f, 'utf8')) !== null
          } catch {
            return false
          }
        }
        const c = doc ? { code: whole(path) ? 0 : 1, stdout: '"kind":"end"', stderr: `${path} is not whole JSON` } : await run(['--home', target, 'cat', `${to}:${id}`], { timeout: TIMEOUT })
        if (c.code !== 0 || !c.stdout.includes('"kind":"end"')) {
          counts.partial++
          notes.push(`${what}: exit 0, but ${to}:${id} does not read back whole: ${c.stderr.slice(0, 300)}`)
        }
      }
      const left = partials(target).concat(leftInTmp(tmp).map((n) => join(tmp, n)))
      if (left.length) {
        counts.partial += left.length
        notes.push(`${what}: left ${left.join(', ')}`)
      }
      // The session already in the store is never replaced.
      if (kind === 'occupied') {
        const touched = changedFiles(before, after).filter((n) => before.has(n) && !/-(wal|shm)$|continued\.json$|\.sqlite$|projects\.json$/.test(n))
        if (touched.length) {
          counts.changed += touched.length
          notes.push(`${what}: changed what was already there: ${touched.join(', ')}`)
        }
        if (args.includes('--new') && r.code !== 0) notes.push(`${what}: --new did not write a fresh copy: ${r.stderr.slice(0, 300)}`)
      }
      const escaped = [...changedFiles(outsideBefore, treeState(outside)).map((n) => join(outside, n)), ...(existsSync(fakeHome) ? [fakeHome] : [])]
      if (escaped.length) {
        counts.escapes += escaped.length
        notes.push(`${what}: wrote outside the target home: ${escaped.join(', ')}`)
      }
      if (sha(file) !== srcBefore) {
        counts.changed++
        notes.push(`${what}: the source changed`)
      }
    } finally {
      if (mounted) spawnSync('umount', [target])
      spawnSync('chmod', ['-R', 'u+w', dir])
    }
    if (notes.length) notes.unshift(`target: ${what}`)
  },
}
