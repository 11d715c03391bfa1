// The fault campaign of #11, shared by the fault suite (test/reliability,
// small and seeded, inside `npm test`) and `npm run fuzz` (many more runs).
// Each run takes a real store laid out as the agent lays it out, damages one
// session file with one mutation, reads it through the library and writes
// what came out into a real sink, then counts what went wrong:
//   crashes  an error that is not a located FerryError, or an uncaught one
//   hangs    a read or write that did not finish in time
//   lost     a record of the undamaged prefix that the damaged read lost
//   changed  the source file's bytes changed by reading it
//   partial  a temp file left in the target, or a committed file cut short
// It runs on the compiled library (dist/), like the CLI tests.
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const lib = await import(join(ROOT, 'dist/lib/index.js'))
const { Diagnostics } = await import(join(ROOT, 'dist/lib/diagnostics.js'))
const { FerryError } = await import(join(ROOT, 'dist/lib/errors.js'))
const { parseStream } = await import(join(ROOT, 'dist/lib/interchange/parse.js'))

const HOME = join(ROOT, 'fixtures/home')
const CAP = 64 * 1024

/** The targets: one session file of each line-based reader, and how to read it. */
export function targets() {
  const zstd = spawnSync('zstd', ['--version']).status === 0
  return [
    { name: 'interchange', file: join(ROOT, 'fixtures/ferry/codex-demo.ferry.jsonl') },
    { name: 'claude-code', ref: 'claude-code:0b9e6c1a-4d2f-4a8b-9c1d-00000000de00', rel: '.claude/projects/-home-dev-demo-app/0b9e6c1a-4d2f-4a8b-9c1d-00000000de00.jsonl' },
    { name: 'codex', ref: 'codex:019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b', rel: '.codex/sessions/2026/11/02/rollout-2026-11-02T09-15-00-019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b.jsonl' },
    { name: 'copilot', home: join(ROOT, 'fixtures/copilot/home'), ref: 'copilot:6c2e4f10-3b7a-4d2e-9f1c-5a8b7c6d5e4f', rel: '.copilot/session-state/6c2e4f10-3b7a-4d2e-9f1c-5a8b7c6d5e4f/events.jsonl' },
    { name: 'pi', ref: 'pi:019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c', home: join(ROOT, 'fixtures/pi/home'), rel: '.pi/agent/sessions/--home-dev-demo-app--/2026-11-05T14-02-11-482Z_019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c.jsonl' },
    { name: 'gemini', home: join(ROOT, 'fixtures/gemini/home'), ref: 'gemini:3f0c2a9e-1b7d-4c55-9e21-5a8d7c6b4e10', rel: '.gemini/tmp/demo-app/chats/session-2026-11-20T09-30-3f0c2a9e.jsonl' },
    { name: 'qwen', home: join(ROOT, 'fixtures/qwen/home'), ref: 'qwen:d3b1c0de-5e6f-4a7b-8c9d-0e1f2a3b4c5d', rel: '.qwen/projects/-home-dev-demo-app/chats/d3b1c0de-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl' },
    { name: 'cursor', ref: 'cursor:c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93', rel: '.cursor/projects/home-dev-demo-app/agent-transcripts/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93/c7a4e2f0-5b1d-4e3a-9f60-2d8c1b7e4a93.jsonl' },
    ...(zstd ? [{ name: 'codex-zstd', ref: 'codex:019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b', rel: '.codex/sessions/2026/11/02/rollout-2026-11-02T09-15-00-019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b.jsonl', zstd: true }] : []),
  ]
}

const splitLines = (b) => {
  const out = []
  let s = 0
  for (let i = 0; i < b.length; i++) if (b[i] === 0x0a) (out.push(b.subarray(s, i + 1)), (s = i + 1))
  if (s < b.length) out.push(b.subarray(s))
  return out
}

/**
 * One mutation of a file's bytes, as data (so fast-check can shrink it).
 * `at` is where the first damaged byte is (for the prefix that must survive).
 */
export const mutation = fc.oneof(
  fc.record({ op: fc.constant('truncate'), p: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant('flip'), p: fc.double({ min: 0, max: 1, noNaN: true }), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ op: fc.constantFrom('delete', 'duplicate', 'crlf-line'), p: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant('swap'), p: fc.double({ min: 0, max: 1, noNaN: true }), q: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    op: fc.constant('insert'),
    p: fc.double({ min: 0, max: 1, noNaN: true }),
    what: fc.constantFrom('invalid-utf8', 'nul', 'lone-surrogate', 'huge-line', 'deep-nesting', 'wrong-types', 'unknown-kind', 'null-sid', 'garbage'),
  }),
  fc.constant({ op: 'bom' }),
  fc.constant({ op: 'crlf-all' }),
)

const INSERTS = {
  'invalid-utf8': () => Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x0a]),
  nul: () => Buffer.from('\0\0{"kind":\0}\n'),
  'lone-surrogate': () => Buffer.from('{"kind":"message","sid":"x","id":"x:1","role":"user","blocks":[{"type":"text","text":"\\ud800"}]}\n'),
  'huge-line': () => Buffer.concat([Buffer.from('{"kind":"message","text":"'), Buffer.alloc(CAP + 4096, 0x61), Buffer.from('"}\n')]),
  'deep-nesting': () => Buffer.from('['.repeat(100_000) + ']'.repeat(100_000) + '\n'),
  'wrong-types': () => Buffer.from('{"kind":"message","sid":5,"role":7,"blocks":"no","type":["x"],"message":12,"payload":null,"timestamp":{}}\n'),
  'unknown-kind': () => Buffer.from('{"kind":"hologram","sid":"x","type":"hologram","payload":{"type":"hologram"}}\n'),
  'null-sid': () => Buffer.from('{"kind":"native","sid":null,"native":{"format":7,"raw":1}}\n'),
  garbage: () => Buffer.from('}{][ not json at all\n'),
}

/**
 * Which lines of the original a mutation touched (indexes), for formats
 * where a line is a record (the interchange stream): every other line's
 * record must come through, before and after the damage.
 */
export function touchedLines(buf, m) {
  const n = splitLines(buf).length
  const li = (p) => Math.min(n - 1, Math.floor(p * n))
  switch (m.op) {
    case 'truncate': {
      const { at } = applyMutation(buf, m)
      const keep = splitLines(untouchedPrefix(buf, at)).length
      return new Set(Array.from({ length: n - keep }, (_, k) => keep + k))
    }
    case 'flip': {
      const k = Math.min(buf.length - 1, Math.floor(m.p * buf.length))
      const idx = splitLines(buf.subarray(0, k + 1)).length - 1
      // A flipped newline joins two lines: both are touched.
      return new Set([idx, idx + 1])
    }
    case 'delete':
    case 'duplicate':
    case 'crlf-line':
      return new Set([li(m.p)])
    case 'swap':
      return new Set()
    case 'insert': {
      // An insert before line i touches no original line, but a huge or broken line may swallow its neighbour only if it lacks a newline; ours end in one.
      return new Set()
    }
    default:
      return new Set()
  }
}

/** Applies a mutation: the damaged bytes and the offset of the first byte it touched. */
export function applyMutation(buf, m) {
  const lines = splitLines(buf)
  const lineStart = (i) => lines.slice(0, i).reduce((n, l) => n + l.length, 0)
  const li = (p) => Math.min(lines.length - 1, Math.floor(p * lines.length))
  switch (m.op) {
    case 'truncate': {
      const k = Math.floor(m.p * buf.length)
      return { bytes: buf.subarray(0, k), at: k }
    }
    case 'flip': {
      const k = Math.min(buf.length - 1, Math.floor(m.p * buf.length))
      const b = Buffer.from(buf)
      b[k] ^= 1 << m.bit
      return { bytes: b, at: k }
    }
    case 'delete':
    case 'duplicate':
    case 'crlf-line': {
      const i = li(m.p)
      const l = lines[i]
      const rep = m.op === 'delete' ? [] : m.op === 'duplicate' ? [l, l] : [Buffer.from(l.toString('latin1').replace(/\n$/, '\r\n'), 'latin1')]
      return { bytes: Buffer.concat([...lines.slice(0, i), ...rep, ...lines.slice(i + 1)]), at: lineStart(i) }
    }
    case 'swap': {
      let i = li(m.p)
      let j = li(m.q)
      if (i > j) [i, j] = [j, i]
      const out = lines.slice()
      ;[out[i], out[j]] = [out[j], out[i]]
      return { bytes: Buffer.concat(out), at: i === j ? buf.length : lineStart(i) }
    }
    case 'insert': {
      const i = Math.min(lines.length, Math.floor(m.p * (lines.length + 1)))
      return { bytes: Buffer.concat([...lines.slice(0, i), INSERTS[m.what](), ...lines.slice(i)]), at: lineStart(i) }
    }
    case 'bom':
      return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]), at: 0 }
    case 'crlf-all':
      return { bytes: Buffer.from(buf.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'), at: 0 }
  }
  throw new Error(`unknown mutation ${m.op}`)
}

/** The bytes of whole lines before `at`: the part of the file the mutation did not touch. */
function untouchedPrefix(buf, at) {
  if (at <= 0) return buf.subarray(0, 0)
  const nl = buf.lastIndexOf(0x0a, at - 1)
  return buf.subarray(0, nl + 1)
}

const sha = (b) => createHash('sha256').update(b).digest('hex')

function withTimeout(p, ms, what) {
  let timer
  return Promise.race([p, new Promise((_, rej) => (timer = setTimeout(() => rej(Object.assign(new Error(`${what}: no progress in ${ms} ms`), { hang: true })), ms)))]).finally(() => clearTimeout(timer))
}

/** Reads `bytes` as the target's session; resolves { records, error }. */
async function readAs(target, bytes, dir) {
  const diagnostics = new Diagnostics({ stream: null })
  let source = null
  let storeFile = null
  let before = ''
  if (target.file) {
    const { Readable } = await import('node:stream')
    source = Readable.from([bytes]).pipe(parseStream({ file: 'mutated.jsonl', diagnostics, harness: 'ferry', maxLineBytes: CAP }))
  } else {
    const home = join(dir, 'home')
    rmSync(home, { recursive: true, force: true })
    cpSync(join(target.home ?? HOME, dirname(target.rel).split('/')[0]), join(home, target.rel.split('/')[0]), { recursive: true })
    const file = join(home, target.rel)
    if (target.zstd) {
      writeFileSync(file, bytes)
      const z = spawnSync('zstd', ['-q', '-f', '--rm', file, '-o', `${file}.zst`])
      if (z.status !== 0) throw new Error('zstd failed')
    } else writeFileSync(file, bytes)
    storeFile = target.zstd ? `${file}.zst` : file
    before = sha(readFileSync(storeFile))
  }
  const records = []
  let error = null
  try {
    if (!source) source = await lib.open(target.ref, { ctx: lib.context({ home: join(dir, 'home'), diagnostics, maxLineBytes: CAP }) })
    for await (const r of source) records.push(r)
  } catch (err) {
    error = err
  }
  const changed = storeFile !== null && sha(readFileSync(storeFile)) !== before
  return { records, error, diagnostics, changed }
}

function isLocated(err) {
  return err instanceof FerryError && typeof err.code === 'string' && !!err.position?.file
}

/** Writes `records` into a fresh target store; returns what is left there that should not be. */
async function writeOut(records, dir, to) {
  const out = join(dir, 'out')
  rmSync(out, { recursive: true, force: true })
  const { Readable } = await import('node:stream')
  const ctx = lib.context({ home: out, diagnostics: new Diagnostics({ stream: null }) })
  let error = null
  try {
    await lib.pipeline(Readable.from(records, { objectMode: true }), lib.sink(to, { ctx }))
  } catch (err) {
    error = err
  }
  const partial = []
  const walk = (d) => {
    let names
    try {
      names = readdirSync(d)
    } catch {
      return
    }
    for (const n of names) {
      const p = join(d, n)
      if (n.startsWith('.ferry-tmp-')) partial.push(p)
      else if (statSync(p).isDirectory()) walk(p)
      else if (n.endsWith('.jsonl')) {
        const text = readFileSync(p, 'utf8')
        const last = text.trimEnd().split('\n').pop()
        try {
          if (last) JSON.parse(last)
        } catch {
          partial.push(p)
        }
      }
    }
  }
  walk(out)
  return { error, partial }
}

const idsOf = (records) => new Set(records.filter((r) => r.kind === 'message' || r.kind === 'boundary').map((r) => r.id))

/**
 * One run: damage, read, compare with the undamaged prefix, write. Returns
 * the counts of this run and, for a failure, a line saying what happened.
 */
export async function runOne(target, m, dir) {
  const original = target.file ? readFileSync(target.file) : readFileSync(join(target.home ?? HOME, target.rel))
  const { bytes, at } = applyMutation(original, m)
  const counts = { inputs: 1, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0 }
  const notes = []
  let uncaught = null
  const onUncaught = (err) => (uncaught = err)
  process.on('uncaughtException', onUncaught)
  process.on('unhandledRejection', onUncaught)
  try {
    const base = await withTimeout(readAs(target, untouchedPrefix(original, at), dir), 20_000, 'prefix read')
    const got = await withTimeout(readAs(target, bytes, dir), 20_000, 'read')
    if (got.changed) {
      counts.changed++
      notes.push('the source file changed while it was read')
    }
    if (got.error && !isLocated(got.error)) {
      counts.crashes++
      notes.push(`unlocated error: ${got.error?.stack ?? got.error}`)
    }
    const have = idsOf(got.records)
    if (target.file) {
      // The interchange stream: one record per line, so every untouched line's record must be there.
      const touched = touchedLines(original, m)
      const want = []
      splitLines(original).forEach((l, i) => {
        if (touched.has(i)) return
        try {
          const r = JSON.parse(l.toString('utf8'))
          if (r.kind === 'message' || r.kind === 'boundary') want.push(r.id)
        } catch {}
      })
      const missing = want.filter((id) => !have.has(id))
      if (missing.length) {
        counts.lost += missing.length
        notes.push(`lost ${missing.length} record(s) of untouched lines: ${missing.slice(0, 3).join(', ')}`)
      }
    }
    // Lines cut inside a zstd frame or a UTF-8 sequence may end the prefix's last record early; ids must still be there.
    const lost = [...idsOf(base.records)].filter((id) => !have.has(id))
    if (lost.length) {
      counts.lost += lost.length
      notes.push(`lost ${lost.length} record(s) of the untouched prefix: ${lost.slice(0, 3).join(', ')}`)
    }
    const w = await withTimeout(writeOut(got.records, dir, target.name === 'claude-code' ? 'codex' : 'claude-code'), 20_000, 'write')
    if (w.error && !(w.error instanceof FerryError)) {
      counts.crashes++
      notes.push(`writer threw: ${w.error?.stack ?? w.error}`)
    }
    if (w.partial.length) {
      counts.partial += w.partial.length
      notes.push(`left behind: ${w.partial.join(', ')}`)
    }
  } catch (err) {
    if (err?.hang) counts.hangs++
    else counts.crashes++
    notes.push(String(err?.stack ?? err))
  } finally {
    await new Promise((r) => setImmediate(r))
    process.off('uncaughtException', onUncaught)
    process.off('unhandledRejection', onUncaught)
  }
  if (uncaught) {
    counts.crashes++
    notes.push(`uncaught: ${uncaught?.stack ?? uncaught}`)
  }
  return { counts, notes }
}

/** Source stores are never changed: the fixture files' hashes before and after the whole campaign. */
export function sourceHashes() {
  const files = targets().map((t) => t.file ?? join(t.home ?? HOME, t.rel))
  return new Map(files.map((f) => [f, sha(readFileSync(f))]))
}

/** Runs `runs` mutations per target with `seed`; returns totals and the failures seen. */
export async function campaign({ runs, seed, onProgress }) {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-fuzz-'))
  const totals = { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0 }
  const failures = []
  const perTarget = {}
  const before = sourceHashes()
  try {
    for (const target of runs > 0 ? targets() : []) {
      const samples = fc.sample(mutation, { numRuns: runs, seed: seed + target.name.length })
      const mine = (perTarget[`lines: ${target.name}`] = { inputs: 0, crashes: 0, hangs: 0, lost: 0, changed: 0, partial: 0 })
      for (const m of samples) {
        const { counts, notes } = await runOne(target, m, dir)
        for (const k of Object.keys(totals)) (totals[k] += counts[k]), (mine[k] += counts[k])
        if (notes.length) failures.push({ target: target.name, mutation: m, notes })
        onProgress?.(totals)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  for (const [f, h] of sourceHashes()) if (before.get(f) !== h) totals.changed++
  return { totals, failures, perTarget }
}
