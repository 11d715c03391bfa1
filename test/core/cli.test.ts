import t from 'tap'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, jsonl, scaled, sh, spawnFerry, tempDir } from '../kit.js'

function bigStream(n: number): string {
  const sid = 'ferry:big'
  const out = [JSON.stringify({ kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 'big' })]
  for (let i = 0; i < n; i++) out.push(JSON.stringify({ kind: 'message', sid, id: `${sid}:m${i}`, role: 'user', ts: null, blocks: [{ type: 'text', text: `line ${i} `.repeat(20) }] }))
  return out.join('\n') + '\n'
}

t.test('usage errors exit 2 with one line', async (t) => {
  for (const args of [['nope'], ['write'], ['write', '--to', 'nosuch'], ['cat', 'codex:x', '--bogus-flag'], ['write', '--to', 'claud']]) {
    const r = await ferry(args, { input: '' })
    t.equal(r.code, 2, `${args.join(' ')} → exit 2 (${r.stderr.trim()})`)
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line')
    t.match(r.stderr, /^ferry: /)
  }
})

t.test('a missing session is a runtime error (exit 1) naming it', async (t) => {
  const home = tempDir(t)
  const r = await ferry(['--home', home, 'cat', 'codex:0199a3c1-0000-7000-8000-000000000000'])
  t.equal(r.code, 1)
  t.match(r.stderr, /no codex session "0199a3c1-0000-7000-8000-000000000000"/)
  const p = await ferry(['cat', join(home, 'nothing-here.jsonl')])
  t.equal(p.code, 1)
})

t.test('--help on every command shows examples', async (t) => {
  for (const cmd of ['ls', 'cat', 'write', 'convert', 'quickstart']) {
    const r = await ferry([cmd, '--help'])
    t.equal(r.code, 0)
    t.match(r.stdout, /Examples:/, `${cmd} --help has examples`)
  }
})

t.test('a closed stdout (ferry cat | head -1) exits 0 quietly and stops reading', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'big.jsonl')
  const { writeFileSync } = await import('node:fs')
  writeFileSync(file, bigStream(200_000))
  const res = await sh(`$FERRY cat "${file}" | head -1`)
  t.equal(res.stdout.trim().split('\n').length, 1)
  t.equal(res.stderr, '', 'nothing on stderr')
  // And the exit status of ferry itself, via bash's PIPESTATUS.
  const st = (await sh(`$FERRY cat "${file}" | head -1 >/dev/null; echo \${PIPESTATUS[0]}`)).stdout.trim()
  t.equal(st, '0', 'ferry exits 0')
})

t.test('--home isolates every store from the real environment', async (t) => {
  const empty = tempDir(t)
  const elsewhere = tempDir(t)
  mkdirSync(join(elsewhere, 'sessions'), { recursive: true })
  const r = await ferry(['--home', empty, 'ls', '--json'], {
    env: { CODEX_HOME: elsewhere, CLAUDE_CONFIG_DIR: elsewhere, XDG_DATA_HOME: elsewhere, GROK_HOME: elsewhere, HOME: elsewhere },
  })
  t.equal(r.code, 1, 'nothing found is exit 1 (#46)')
  t.equal(r.stdout, '', 'nothing found in an empty home')
  const table = await ferry(['--home', empty, 'ls'])
  t.match(table.stderr, /no sessions found/)
  t.match(table.stderr, new RegExp(`codex ${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.codex`), 'roots are under --home')
})

t.test('a killed writer leaves no session behind', async (t) => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const dir = tempDir(t)
    const { child, exited } = spawnFerry(['write', '--to', 'ferry', '--out', dir], { stdin: 'pipe' })
    const data = bigStream(20_000)
    // Feed half the stream (it cannot finish: the rest never comes), wait until the temp file exists, then kill mid-session.
    child.stdin!.write(data.slice(0, data.length / 2))
    const until = Date.now() + scaled(30_000)
    while (Date.now() < until && !readdirSync(dir).some((f) => f.startsWith('.ferry-tmp-'))) await new Promise((r) => setTimeout(r, 25))
    t.ok(readdirSync(dir).some((f) => f.startsWith('.ferry-tmp-')), `${signal}: writing had started (temp file present)`)
    child.kill(signal)
    await exited
    const left = readdirSync(dir)
    t.same(left.filter((f) => !f.startsWith('.ferry-tmp-')), [], `${signal}: no session file`)
    if (signal === 'SIGTERM') t.same(left, [], 'SIGTERM: temp files removed too')
    t.notOk(existsSync(join(dir, 'ferry-big.ferry.jsonl')))
  }
})

t.test('write reports each session on stdout, one line each', async (t) => {
  const dir = tempDir(t)
  // A session is committed on its end record (#11 defect 5: without it, it is incomplete).
  const r = await ferry(['write', '--to', 'ferry', '--out', dir], { input: bigStream(3) + JSON.stringify({ kind: 'end', sid: 'ferry:big', id: 'ferry:big:end', complete: true }) + '\n' })
  t.equal(r.code, 0, r.stderr)
  t.same(r.stdout.trim().split('\t'), ['ferry', 'big', join(dir, 'ferry-big.ferry.jsonl')])
  t.same(jsonl((await ferry(['cat', join(dir, 'ferry-big.ferry.jsonl')])).stdout).filter((x) => x.kind === 'message').length, 3)
})
