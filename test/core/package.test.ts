// The packed package as a user gets it: `npm pack`, installed into a fresh
// project, `npx ferry quickstart` converts the bundled samples. One pack and
// one install (slow), so every package check lives in this file.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, jsonl, scaled, tempDir } from '../kit.js'

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...env }, encoding: 'utf8', timeout: scaled(240_000) })
}

t.test('npm pack → npm install → npx ferry quickstart', async (t) => {
  const dir = tempDir(t, 'ferry-pack-')
  // --ignore-scripts: `prepare` would rebuild dist, which the test run has just built.
  const pack = run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--json'], ROOT)
  t.equal(pack.status, 0, pack.stderr)
  const info = JSON.parse(pack.stdout)[0]
  const files = (info.files as Array<{ path: string }>).map((f) => f.path)
  t.ok(files.some((f) => f.startsWith('fixtures/home/.codex/sessions/')), 'the sample stores ship in the package')
  t.ok(files.includes('docs/cli.md'), 'the CLI reference ships')
  t.notOk(files.some((f) => f.startsWith('fixtures/codex/')), 'test fixtures stay out')

  const proj = join(dir, 'proj')
  mkdirSync(proj)
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'try-ferry', version: '1.0.0', private: true }))
  const tgz = join(dir, info.filename)
  // Offline from the npm cache when it has every dependency; otherwise one fetch from the registry.
  // Scripts are skipped: better-sqlite3 would compile from source (no prebuilt binary can be fetched
  // here), so its binary of the same version is taken from this checkout instead.
  const base = ['install', '--no-audit', '--no-fund', '--ignore-scripts', tgz]
  let inst = run('npm', [...base, '--offline'], proj)
  if (inst.status !== 0) inst = run('npm', [...base, '--prefer-offline'], proj)
  t.equal(inst.status, 0, inst.stderr)
  const mine = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')).version
  const theirs = JSON.parse(readFileSync(join(proj, 'node_modules/better-sqlite3/package.json'), 'utf8')).version
  t.equal(theirs, mine, 'the same better-sqlite3 as this checkout')
  cpSync(join(ROOT, 'node_modules/better-sqlite3/build'), join(proj, 'node_modules/better-sqlite3/build'), { recursive: true })

  // A user with no agent sessions of their own, in some other directory.
  const home = join(dir, 'home')
  const work = join(dir, 'work')
  mkdirSync(home)
  mkdirSync(work)
  const npx = (args: string[]) => run('npx', ['--prefix', proj, '--no-install', 'ferry', ...args], work, { HOME: home, XDG_DATA_HOME: '', XDG_CONFIG_HOME: '', XDG_STATE_HOME: '' })
  const qs = npx(['quickstart'])
  t.equal(qs.status, 0, qs.stderr)
  t.match(qs.stdout, /using the bundled sample stores in .*node_modules\/ferry\/fixtures\/home/)
  const m = /(\d+) conversions written, (\d+) failed/.exec(qs.stdout)
  t.ok(m && Number(m[1]) > 0 && m[2] === '0', `conversions written: ${m?.[0]}`)
  t.ok(existsSync(join(work, 'ferry-out', '.codex')), 'written under ./ferry-out of the current directory')
  t.same(readdirSync(work), ['ferry-out'], 'nothing else written in the current directory')

  const v = npx(['--version'])
  t.equal(v.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
  // The README's example ids are sample ids: they resolve from the package too.
  const ls = jsonl(npx(['ls', '--json', '--home', join(proj, 'node_modules/ferry/fixtures/home')]).stdout)
  t.ok(ls.length >= 5, 'the installed samples list')
})
