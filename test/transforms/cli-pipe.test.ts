/**
 * Transforms as CLI filters in real pipes: `ferry cat … | ferry <transform> |
 * ferry write --to …`, then the written session is read back by the target
 * harness reader and its tool pairs checked.
 */
import t from 'tap'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURES, jsonl, pipe, tempDir } from '../kit.js'
import { pairsIntact } from './records.js'

const HOME = join(FIXTURES, 'home')

function files(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else out.push(p)
  }
  return out
}

// A fake secret assembled at run time (never stored in the repository).
const AN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const SECRET = 'ghp_' + Array.from({ length: 36 }, (_, i) => AN[(i * 23 + 3) % AN.length]).join('')

async function catCodex(): Promise<string> {
  const r = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--native'])
  if (r.code !== 0) throw new Error(r.stderr)
  return r.stdout
}

/** Plants a secret in the first user text of an interchange stream. */
function plant(stream: string): string {
  let done = false
  return stream
    .split('\n')
    .map((l) => {
      if (done || !l.includes('"role":"user"') || !l.includes('"type":"text"')) return l
      const r = JSON.parse(l)
      const b = r.blocks.find((x: any) => x.type === 'text')
      if (!b) return l
      b.text += `\nmy token is ${SECRET}`
      delete r.native
      done = true
      return JSON.stringify(r)
    })
    .join('\n')
}

const TRANSFORMS: Array<[string, string[]]> = [
  ['redact', ['redact']],
  ['truncate', ['truncate', '--tool-output', '10', '--text', '20']],
  ['normalize-tools', ['normalize-tools']],
  ['filter', ['filter', '--no-context', '--blocks', 'text,tool']],
]

for (const [name, args] of TRANSFORMS) {
  t.test(`cat codex | ferry ${name} | write --to claude-code, read back`, async (t) => {
    const input = plant(await catCodex())
    t.match(input, SECRET)
    const mid = await ferry(args, { input })
    t.equal(mid.code, 0, mid.stderr)
    const recs = jsonl(mid.stdout)
    t.ok(pairsIntact(recs), 'pairs intact after the transform')
    if (name === 'redact') {
      t.notMatch(mid.stdout, SECRET)
      t.match(mid.stdout, /\[REDACTED:github-token:1\]/)
      t.equal(recs.find((r) => r.kind === 'session').redacted, true)
    }
    const out = tempDir(t)
    const w = await ferry(['write', '--to', 'claude-code', '--out', out], { input: mid.stdout })
    t.equal(w.code, 0, w.stderr)
    const written = files(out).filter((f) => f.endsWith('.jsonl'))
    t.ok(written.length >= 1, 'a session file was written')
    const back = await ferry(['cat', written[0]!])
    t.equal(back.code, 0, back.stderr)
    const again = jsonl(back.stdout)
    t.ok(again.some((r) => r.kind === 'message'), 'the target reader loads it')
    t.ok(pairsIntact(again), 'pairs intact in the written session')
    if (name === 'redact') t.notMatch(back.stdout, SECRET)
  })
}

t.test('cat | every transform | write, over real OS pipes: each stage exits 0 and the session reads back whole', async (t) => {
  for (const [name, args] of TRANSFORMS) {
    const out = tempDir(t)
    const stages = await pipe([['--home', HOME, 'cat', 'codex:019a3c1e', '--native'], args, ['write', '--to', 'claude-code', '--out', out]])
    t.same(stages.map((s) => s.code), [0, 0, 0], `${name}: every stage exits 0 (${stages.map((s) => s.stderr.trim()).filter(Boolean).join(' | ')})`)
    const written = files(out).filter((f) => f.endsWith('.jsonl'))
    t.equal(written.length, 1, `${name}: one session written`)
    const back = await ferry(['cat', written[0]!])
    t.equal(back.code, 0, back.stderr)
    t.ok(pairsIntact(jsonl(back.stdout)), `${name}: pairs intact in the written session`)
  }
})

t.test('--redact flag on cat, --check and --text', async (t) => {
  // The `--truncate '--tool-output 50'` (space) form is rejected by cat's parser at the time of writing; the `=` form works.
  const r = await ferry(['--home', HOME, 'cat', 'codex:019a3c1e', '--redact', '--truncate=--tool-output=50'])
  t.equal(r.code, 0, r.stderr)
  const recs = jsonl(r.stdout)
  t.ok(recs.find((x) => x.kind === 'session').redacted)
  t.ok(recs.some((x) => x.kind === 'message' && x.blocks.some((b: any) => b.type === 'tool_result' && b.truncated)), 'truncate applied after redact')
  const input = plant(await catCodex())
  const chk = await ferry(['redact', '--check'], { input })
  t.equal(chk.code, 1, 'check fails when something would be redacted')
  t.equal(chk.stdout, '')
  t.match(chk.stderr, /github-token×1/)
  t.notMatch(chk.stderr, SECRET)
  const clean = await ferry(['redact', '--check'], { input: await catCodex() })
  t.equal(clean.code, 0, clean.stderr)
  const txt = await ferry(['redact', '--text'], { input: `a\r\nb ${SECRET} c\n` })
  t.equal(txt.stdout, 'a\r\nb [REDACTED:github-token:1] c\n')
})
