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

// #47 item 14: a WAL database held by a writer in locking_mode=EXCLUSIVE (a real second process) is busy
// for as long as that writer runs; main listed nothing (db-error after seconds of retries). Its snapshot
// copy holds every committed transaction, as for the other SQLite stores.
t.test('item 14: ZCode behind locking_mode=EXCLUSIVE is read through a snapshot', async (t) => {
  const { spawn } = await import('node:child_process')
  const { createRequire } = await import('node:module')
  const require = createRequire(import.meta.url)
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'home', '.zcode'), join(home, '.zcode'), { recursive: true })
  const db = join(home, '.zcode/cli/db/db.sqlite')
  const before = await ferry(['--home', home, 'ls', '--harness', 'zcode', '--json'])
  t.equal(before.code, 0, before.stderr)
  const holder = spawn(process.execPath, ['-e', `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))})
    const db = new Database(${JSON.stringify(db)})
    db.pragma('journal_mode = WAL')
    db.pragma('locking_mode = EXCLUSIVE')
    db.exec('BEGIN IMMEDIATE; COMMIT')
    process.stdout.write('held\\n')
    setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => holder.kill())
  await new Promise<void>((res, rej) => {
    holder.stdout!.once('data', () => res())
    holder.once('exit', (c) => rej(new Error(`holder exited ${c}`)))
  })
  const r = await ferry(['--home', home, 'ls', '--harness', 'zcode', '--json'], { timeout: 30_000 })
  t.equal(r.signal, null, 'not killed at the bound')
  t.equal(r.code, 0, r.stderr.slice(0, 300))
  t.equal(r.stdout, before.stdout, 'the same sessions as with no writer')
})
