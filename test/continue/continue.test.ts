// `ferry continue` as a real child process over the sample home: every
// source × every writable store target, idempotence, --new, --exec.
import t from 'tap'
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listable, writable } from '../../lib/harness/registry.js'
import { FIXTURES, ferry, jsonl, tempDir } from '../kit.js'

function setup(t: { teardown: (fn: () => void) => void }) {
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  const state = tempDir(t)
  return { home, env: { XDG_STATE_HOME: state } }
}

t.test('every source into every writable store target', async (t) => {
  const { home, env } = setup(t)
  const sessions = jsonl((await ferry(['--home', home, 'ls', '--json'])).stdout).filter((s) => !s.parent)
  const targets = writable().filter((h) => h.kind === 'store' && !h.holdsCopies)
  t.ok(sessions.length >= listable().length - 1)
  const work = tempDir(t)
  const written = new Map<string, string[]>(targets.map((h) => [h.id, []]))
  for (const s of sessions) {
    for (const h of targets) {
      if (h.id === s.harness) continue
      const r = await ferry(['--home', home, 'continue', `${s.harness}:${s.id}`, '--with', h.id, '--json'], { env, cwd: work })
      t.equal(r.code, 0, `${s.harness} → ${h.id}: ${r.stderr}`)
      const [o] = jsonl(r.stdout)
      t.ok(existsSync(o.path), `${s.harness} → ${h.id} written`)
      t.ok(o.command.includes(o.id) || o.command.some((a: string) => a.includes(o.id)), 'command names the written id')
      t.equal(o.cwd, work, 'missing cwd remapped to the current directory')
      t.match(r.stderr, /does not exist here; continuing in/)
      written.get(h.id)!.push(o.id)
    }
  }
  // One listing per target after all the writes: each target's discovery finds every copy.
  for (const h of targets) {
    if (h.id === 'opencode') continue
    const found = new Set(jsonl((await ferry(['--home', home, 'ls', '--json', '--all', '--harness', h.id])).stdout).map((x) => x.id))
    for (const id of written.get(h.id)!) t.ok(found.has(id), `${h.id}'s discovery finds ${id}`)
  }
})

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
