// #47 item 7: every store writer on a full disk (a real 512 KiB tmpfs): the session that does not fit
// fails with one clear line (no crash, no stack trace), nothing of it stays (no temp file, no partial
// session under a final name), and the sessions after it are still written.
import t from 'tap'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writable } from '../../lib/harness/registry.js'
import { ferry } from '../kit.js'

function session(n: number, textBytes: number): string[] {
  const sid = `claude-code:0b9e6c1a-4d2f-4a8b-9c1d-0000000${String(n).padStart(5, '0')}`
  const recs = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'claude-code', locator: {} }, native_id: sid.slice(12), cwd: '/home/dev/app', created_at: '2026-11-02T09:00:00.000Z' },
    ...Array.from({ length: 4 }, (_, k) => ({ kind: 'message', sid, id: `${sid}:m${k}`, role: k % 2 ? 'assistant' : 'user', ts: `2026-11-02T09:00:0${k}.000Z`, blocks: [{ type: 'text', text: `${n}:${k} ` + 'y'.repeat(textBytes / 4) }] })),
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ]
  return recs.map((r) => JSON.stringify(r))
}

/** Every file under dir (relative), temp files included. */
function all(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
}

t.test('item 7: a session bigger than the disk, between two that fit, for every store writer', async (t) => {
  const probe = mkdtempSync(join(tmpdir(), 'ferry-tmpfs-'))
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', probe], { encoding: 'utf8' })
  spawnSync('umount', [probe])
  rmSync(probe, { recursive: true, force: true })
  if (m.status !== 0) return t.skip(`cannot mount a tmpfs here (${(m.stderr || '').trim() || 'not permitted'})`)
  const input = [...session(1, 8_000), ...session(2, 2_000_000), ...session(3, 8_000)].join('\n') + '\n'
  for (const h of writable().filter((x) => x.kind === 'store' && !x.holdsCopies)) {
    const mnt = mkdtempSync(join(tmpdir(), 'ferry-tmpfs-'))
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', mnt])
    try {
      const r = await ferry(['write', '--to', h.id, '--home', mnt], { input })
      if (r.code === 2) {
        t.comment(`${h.id}: ${r.stderr.trim()} (a store that must exist first: not tested here)`)
        continue
      }
      t.equal(r.code, 1, `${h.id}: exit 1`)
      t.match(r.stderr, /write-failed|ENOSPC|no space/i, `${h.id}: says the disk is full`)
      t.notMatch(r.stderr, /internal|\n\s+at /, `${h.id}: no crash, no stack trace`)
      const files = all(mnt)
      t.same(files.filter((f) => f.includes('.ferry-tmp-')), [], `${h.id}: no temp file left`)
      // The written report: one line per committed session (an OpenCode/Kilo import file is no listed session yet).
      const n = r.stdout.trim() ? r.stdout.trim().split('\n').length : 0
      t.equal(n, 2, `${h.id}: the sessions before and after it are written (${n})`)
      for (const line of r.stdout.trim().split('\n')) {
        const path = line.split('\t')[2]
        if (path) t.ok(files.some((f) => path.endsWith(f)), `${h.id}: ${path} exists`)
      }
    } finally {
      spawnSync('umount', [mnt])
      rmSync(mnt, { recursive: true, force: true })
    }
  }
})
