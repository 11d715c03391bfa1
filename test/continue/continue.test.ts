// `ferry continue` as a real child process over the sample home: idempotence,
// --new, --exec, the resume hints of write and convert. (Every source into
// every store target: continue-matrix.test.ts, in the full suite.)
import t from 'tap'
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listable, writable } from '../../lib/harness/registry.js'
import { ferry, jsonl, sampleHome, tempDir } from '../kit.js'

/** A copy of the sample home, and a state directory of its own (where continue remembers its copies). */
function setup(t: { teardown: (fn: () => void) => void }) {
  return { home: sampleHome(t), env: { XDG_STATE_HOME: tempDir(t) } }
}

t.test('idempotence, --new, --exec with a stub agent, missing binary', async (t) => {
  const { home, env } = setup(t)
  const work = tempDir(t)
  const a = jsonl((await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })).stdout)[0]
  const b = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })
  t.equal(jsonl(b.stdout)[0].id, a.id, 'unchanged source reuses the copy')
  t.match(b.stderr, /reusing/)
  const c = jsonl((await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--new', '--cwd', work], { env })).stdout)[0]
  t.not(c.id, a.id, '--new writes a fresh copy')
  t.ok(existsSync(c.path))
  // The source grows: the next continue writes a new session and names the older copy.
  const rollout = jsonl((await ferry(['--home', home, 'ls', '--json', '--harness', 'codex'])).stdout).find((s) => s.id.startsWith('019a3c1e'))!.path
  appendFileSync(rollout, JSON.stringify({ timestamp: '2026-11-02T09:20:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And now?' }] } }) + '\n')
  const g = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--json', '--cwd', work], { env })
  t.equal(g.code, 0, g.stderr)
  const grown = jsonl(g.stdout)[0]
  t.not(grown.id, a.id, 'a grown source is a new copy')
  t.match(g.stderr, new RegExp(`the source grew since the last copy; wrote a new session ${grown.id} \\(newer than [^)]*${a.id}`))
  t.match(readFileSync(grown.path, 'utf8'), /And now\?/, 'with the new turn')
  const bin = tempDir(t)
  const log = join(bin, 'log')
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho "$PWD" > ${log}\necho "$@" >> ${log}\n`)
  chmodSync(join(bin, 'claude'), 0o755)
  const e = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'claude-code', '--exec', '--cwd', work], { env: { ...env, PATH: `${bin}:${process.env.PATH}` } })
  t.equal(e.code, 0, e.stderr)
  t.same(readFileSync(log, 'utf8').trim().split('\n'), [work, `--resume ${grown.id}`], "stub ran in the cwd with the resume argv of the newest copy")
  // A store that holds copies is no agent: refused before anything is written.
  const archive = writable().find((h) => h.holdsCopies)
  if (archive) {
    const a = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', archive.id], { env })
    t.equal(a.code, 2, 'continue into the archive is a usage error')
    t.match(a.stderr, /cannot be continued into: it has no resume command/)
    t.notOk(existsSync(join(home, '.local', 'share', 'ferry')), 'and nothing was written')
  }
  // Another program called `agent` first on PATH is not Cursor's: not run.
  const cursor = writable().find((h) => h.isOwnBinary)
  if (cursor) {
    const name = cursor.resumeHint!.split(' ')[0]!
    writeFileSync(join(bin, name), `#!/bin/sh\necho ran > ${join(bin, 'other-ran')}\n`)
    chmodSync(join(bin, name), 0o755)
    const o = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', cursor.id, '--exec', '--cwd', work], { env: { ...env, PATH: `${bin}:${process.env.PATH}` } })
    t.equal(o.code, 1, o.stderr)
    t.match(o.stderr, new RegExp(`is not ${cursor.name}'s ${name}`))
    t.notOk(existsSync(join(bin, 'other-ran')), 'the other program was not run')
    // Cursor's own install layout: the link resolves into cursor-agent/versions/…
    const own = join(bin, 'cursor-agent', 'versions', '1')
    mkdirSync(own, { recursive: true })
    writeFileSync(join(own, 'cursor-agent'), `#!/bin/sh\necho "$@" > ${join(bin, 'own-ran')}\n`)
    chmodSync(join(own, 'cursor-agent'), 0o755)
    rmSync(join(bin, name))
    symlinkSync(join(own, 'cursor-agent'), join(bin, name))
    const c = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', cursor.id, '--exec', '--cwd', work], { env: { ...env, PATH: `${bin}:${process.env.PATH}` } })
    t.equal(c.code, 0, c.stderr)
    t.match(readFileSync(join(bin, 'own-ran'), 'utf8'), /--resume=/, "Cursor's agent ran with the resume argument")
  }
  const m = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'grok', '--exec', '--cwd', work], { env: { ...env, PATH: bin } })
  t.equal(m.code, 1)
  t.match(m.stderr, /grok \(Grok[^)]*\) is not on PATH; the session is written/)
  t.notMatch(m.stderr, /\n\s+at /, 'no stack trace')
})

t.test('write and convert into a real store say how to resume each session', async (t) => {
  const { home, env } = setup(t)
  const text = await ferry(['--home', home, 'convert', 'claude-code:0b9e6c1a', '--to', 'codex'], { env })
  t.equal(text.code, 0, text.stderr)
  const [harness, id] = text.stdout.trim().split('\t')
  t.equal(harness, 'codex')
  t.equal(text.stdout.trim().split('\t').length, 3, 'the report keeps its columns')
  t.match(text.stderr, new RegExp(`ferry: resume: cd /home/dev/demo-app && codex resume ${id}`))
  const json = jsonl((await ferry(['--home', home, 'convert', 'claude-code:0b9e6c1a', '--to', 'grok', '--json'], { env })).stdout)[0]
  t.same(json.command, ['grok', '--resume', json.id])
  t.equal(json.cwd, '/home/dev/demo-app')
  const out = await ferry(['--home', home, 'convert', 'claude-code:0b9e6c1a', '--to', 'claude-code', '--out', join(tempDir(t), 'x') + '/'], { env })
  t.notMatch(out.stderr, /resume:/, 'not for --out (not a store the agent reads)')
})
