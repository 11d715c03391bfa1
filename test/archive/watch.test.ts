// `ferry archive --watch` as a real long-running process on a HOME of every fixture store: what
// changes is archived within seconds (an appended session, a new session, a new OpenCode row, a
// store that appears later), SIGTERM stops it cleanly with the database consistent; and
// `--install-service` writes a user unit without starting anything when no service manager answers.
import t from 'tap'
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURE, fileTimeout, scaled, spawnFerry, tempDir } from '../kit.js'
import { CODEX, PROJECT, ROLLOUT, consistent, dbOf, makeHome, query } from './helpers.js'
// @ts-ignore plain JS fixture builder: plays `opencode import`
import { createDb, insertDocument } from '../../fixtures/opencode/opencode-db.mjs'

fileTimeout(t, 8 * 60_000)

async function eventually(fn: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + scaled(ms)
  while (Date.now() < end) {
    if (fn()) return true
    await new Promise((r) => setTimeout(r, 250))
  }
  return fn()
}

const sids = (home: string): string[] => (existsSync(dbOf(home)) ? query<{ sid: string }>(dbOf(home), 'SELECT sid FROM sessions').map((r) => r.sid) : [])
const records = (home: string, sid: string): number => query<{ n: number }>(dbOf(home), 'SELECT count(*) AS n FROM records WHERE sid = ?', sid)[0]!.n

t.test('--watch archives what changes, and stops cleanly on SIGTERM', async (t) => {
  const home = makeHome(t)
  // Codex's store appears only later.
  const codexDir = join(tempDir(t, 'ferry-codex-later-'), '.codex')
  cpSync(join(home, '.codex'), codexDir, { recursive: true })
  rmSync(join(home, '.codex'), { recursive: true })
  const w = spawnFerry(['--home', home, 'archive', '--watch', '--json'], { output: 'pipe' })
  t.teardown(() => w.killGroup())
  let out = ''
  w.child.stdout!.on('data', (b: Buffer) => (out += b))
  t.ok(await eventually(() => out.includes('"what":"every store"')), 'the first pass brings the archive up to date')
  const claude = `claude-code:${FIXTURE.claudeCode.feature}`
  const before = records(home, claude)

  // A turn appended to a Claude Code session.
  const file = join(home, PROJECT, `${FIXTURE.claudeCode.feature}.jsonl`)
  const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').pop()!)
  appendFileSync(file, JSON.stringify({ ...last, uuid: '9d0c3a1e-0000-4000-8000-00000000a001', parentUuid: last.uuid, type: 'user', message: { role: 'user', content: 'WATCH-APPENDED one more question' } }) + '\n')
  t.ok(await eventually(() => records(home, claude) > before), 'the appended turn is archived')

  // A new session in a new project folder.
  const fresh = '6e5d4c3b-2a19-4f08-8e7d-00000000a002'
  mkdirSync(join(home, '.claude', 'projects', '-home-dev-other'), { recursive: true })
  writeFileSync(join(home, '.claude', 'projects', '-home-dev-other', `${fresh}.jsonl`), readFileSync(file, 'utf8').replaceAll(FIXTURE.claudeCode.feature, fresh))
  t.ok(await eventually(() => sids(home).includes(`claude-code:${fresh}`)), 'a new session is archived')

  // A new OpenCode row, as `opencode import` (or OpenCode itself) adds one.
  const doc = join(tempDir(t, 'ferry-doc-'), 'doc.json')
  const conv = await ferry(['--home', home, 'convert', 'claude-code:0b9e6c1a-4d2f-4a8b-9c1d-00000000de00', '--to', 'opencode', '--out', doc])
  t.equal(conv.code, 0, conv.stderr)
  const db = createDb(join(home, '.local', 'share', 'opencode', 'opencode.db'))
  const ocBefore = sids(home).filter((s) => s.startsWith('opencode:')).length
  insertDocument(db, JSON.parse(readFileSync(doc, 'utf8')))
  db.close()
  t.ok(await eventually(() => sids(home).filter((s) => s.startsWith('opencode:')).length > ocBefore), 'the new OpenCode session is archived')

  // A store that was not there when the watch started.
  cpSync(codexDir, join(home, '.codex'), { recursive: true })
  t.ok(await eventually(() => sids(home).includes(`codex:${CODEX}`)), 'a store that appears is watched and archived')

  w.child.kill('SIGTERM')
  const end = await w.exited
  t.equal(end.code, 0, 'SIGTERM: exit 0')
  consistent(t, dbOf(home), 'after SIGTERM')
  t.ok(existsSync(join(home, ROLLOUT)))
})

t.test('--install-service writes a user unit and says how to start it when no service manager answers', async (t) => {
  const home = tempDir(t, 'ferry-svc-')
  const env = { PATH: tempDir(t, 'ferry-empty-path-') }
  const r = await ferry(['--home', home, 'archive', '--install-service'], { env })
  t.equal(r.code, 0, r.stderr)
  const unit = join(home, '.config', 'systemd', 'user', 'ferry-archive.service')
  t.ok(existsSync(unit), 'the unit file')
  const text = readFileSync(unit, 'utf8')
  t.match(text, new RegExp(`ExecStart="${process.execPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" ".*bin/ferry.js" "archive" "--watch" "--quiet" "--home" "${home}"`), 'runs archive --watch with absolute paths and the chosen home')
  t.match(r.stdout, /systemctl --user enable --now ferry-archive.service/, 'the command that starts it')
  const u = await ferry(['--home', home, 'archive', '--uninstall-service'], { env })
  t.equal(u.code, 0, u.stderr)
  t.notOk(existsSync(unit), 'removed')
})
