// #47 item 6: a junk -wal beside a zeroed -shm costs no wait (a read-only connection would retry the
// recovery it cannot run for seconds at every open): the store is read through a snapshot copy; and
// snapshot copies a killed run left in $TMPDIR are removed by the next run.
import t from 'tap'
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURES, tempDir } from '../kit.js'

t.test('item 6: junk -wal and zeroed -shm on every SQLite store of the sample home', async (t) => {
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  const tmp = tempDir(t)
  const stale = join(tmp, 'ferry-opencode-999999-AbC123')
  mkdirSync(stale)
  writeFileSync(join(stale, 'opencode.db'), 'left by a killed run')
  const before = await ferry(['--home', home, 'ls', '--json'])
  const dbs = [join(home, '.local/share/opencode/opencode.db'), join(home, '.zcode/cli/db/db.sqlite')].filter((p) => existsSync(p))
  t.ok(dbs.length >= 1, `${dbs.length} database stores`)
  for (const db of dbs) {
    writeFileSync(`${db}-wal`, Buffer.alloc(64 * 1024, 0x5a))
    writeFileSync(`${db}-shm`, Buffer.alloc(32 * 1024))
  }
  const started = Date.now()
  const r = await ferry(['--home', home, 'ls', '--json'], { env: { TMPDIR: tmp }, timeout: 30_000 })
  t.equal(r.signal, null, 'not killed at the bound')
  t.equal(r.code, 0, r.stderr.slice(0, 300))
  t.equal(r.stdout.trim().split('\n').length, before.stdout.trim().split('\n').length, 'every session still listed')
  t.comment(`ls took ${Date.now() - started} ms`)
  t.notOk(existsSync(stale), 'the snapshot copy of a run that is gone was removed')
  t.same(readdirSync(tmp).filter((n) => n.startsWith('ferry-')), [], 'and this run left none')
})
