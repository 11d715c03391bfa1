// `ferry continue` from every sample session (one per readable harness, in
// the sample home) into every writable store target, through the CLI: each
// copy written and named by the resume command, the missing cwd remapped, and
// every target's discovery finding every copy. Slow (every pair is a child
// process): in the full suite (test/run.mjs --full).
import t from 'tap'
import { existsSync } from 'node:fs'
import { listable, writable } from '../../lib/harness/registry.js'
import { ferry, jsonl, sampleHome, tempDir } from '../kit.js'

t.test('every source into every writable store target', async (t) => {
  const home = sampleHome(t)
  const env = { XDG_STATE_HOME: tempDir(t) }
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
    if (h.id === 'opencode' || h.id === 'kilo') continue // documents wait for `<client> import`
    const found = new Set(jsonl((await ferry(['--home', home, 'ls', '--json', '--all', '--harness', h.id])).stdout).map((x) => x.id))
    for (const id of written.get(h.id)!) t.ok(found.has(id), `${h.id}'s discovery finds ${id}`)
  }
})
