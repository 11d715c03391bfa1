// #11: a transform that fails midway is salvaged like a source: every record
// it let through comes out, the open session's `end` says complete:false,
// then one located `<stage>:<code>` line and exit 1; a writer after it commits
// nothing incomplete. The failure is real: `--images extract` into a
// directory where no file can be created (/proc/self), at the second message.
import t from 'tap'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, tempDir } from '../kit.js'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

function stream(): string {
  const sid = 'ferry:t1'
  const recs = [
    { kind: 'session', ferry: '1.0', sid, id: `${sid}:session`, source: { harness: 'ferry', locator: {} }, native_id: 't1', cwd: '/home/dev/app' },
    { kind: 'message', sid, id: `${sid}:m1`, role: 'user', ts: null, blocks: [{ type: 'text', text: 'first' }] },
    { kind: 'message', sid, id: `${sid}:m2`, role: 'user', ts: null, blocks: [{ type: 'image', mime: 'image/png', data: PNG }] },
    { kind: 'message', sid, id: `${sid}:m3`, role: 'assistant', ts: null, blocks: [{ type: 'text', text: 'third' }] },
    { kind: 'end', sid, id: `${sid}:end`, complete: true },
  ]
  return recs.map((r) => JSON.stringify(r)).join('\n') + '\n'
}

const unwritable = existsSync('/proc/self/status') ? false : 'no /proc here: no directory that refuses new files'

t.test('a transform failing midway: records so far, end complete:false, one located line, exit 1', { skip: unwritable }, async (t) => {
  const dir = tempDir(t)
  const input = join(dir, 'in.jsonl')
  writeFileSync(input, stream())
  for (const args of [
    ['truncate', '--images', 'extract', '--images-dir', '/proc/self', input],
    ['cat', input, '--truncate', '--images extract --images-dir /proc/self'],
  ]) {
    const r = await ferry(args)
    t.equal(r.code, 1, `${args[0]}: exit 1`)
    const recs = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    t.same(recs.map((x) => x.id ?? x.kind), ['stream', 'ferry:t1:session', 'ferry:t1:m1', 'ferry:t1:end'], `${args[0]}: every record before the failure`)
    t.match(recs.at(-1), { kind: 'end', complete: false, warnings: [{ code: 'incomplete' }] })
    const lines = r.stderr.trim().split('\n')
    t.equal(lines.length, 1, r.stderr)
    t.match(lines[0], /^ferry: error: truncate:write-failed: \/proc\/self\/[0-9a-f]{64}\.png: no such file or directory \(ENOENT\)$/)
  }
})

t.test('a writer after a failing transform commits nothing incomplete', { skip: unwritable }, async (t) => {
  const dir = tempDir(t)
  const home = join(dir, 'home')
  const input = join(dir, 'in.jsonl')
  writeFileSync(input, stream())
  const r = await ferry(['convert', input, '--to', 'codex', '--home', home, '--truncate', '--images extract --images-dir /proc/self'])
  t.equal(r.code, 1)
  t.match(r.stderr, /codex:incomplete: ferry:t1: not written/)
  t.match(r.stderr, /^ferry: error: truncate:write-failed: /m)
  const sessions = join(home, '.codex', 'sessions')
  t.same(existsSync(sessions) ? readdirSync(sessions, { recursive: true }).filter((f) => String(f).endsWith('.jsonl')) : [], [], 'no session file')
})
