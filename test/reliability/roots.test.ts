// #47 item 4: the Claude Code and ZCode writers refuse a symlink inside their store that leads out of
// it (the projects folder, ZCode's db folder, db.sqlite and its -wal/-shm), as every other writer does.
import t from 'tap'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, sampleHome, tempDir } from '../kit.js'

const SRC = 'codex:019a3c1e'

t.test('item 4: a symlinked ~/.claude/projects', async (t) => {
  const home = sampleHome(t)
  const outside = tempDir(t)
  const fresh = tempDir(t)
  mkdirSync(join(fresh, '.claude'), { recursive: true })
  symlinkSync(outside, join(fresh, '.claude', 'projects'))
  const r = await ferry(['--home', home, 'convert', SRC, '--to', 'claude-code', '--out', join(fresh, '.claude')])
  t.not(r.code, 0, 'non-zero exit')
  t.match(r.stderr, /unsafe-path/, 'unsafe-path')
  t.same(readdirSync(outside), [], 'nothing written outside the store')
})

t.test('item 4: ZCode’s db folder, db.sqlite, -wal and -shm symlinked out of the store', async (t) => {
  const home = sampleHome(t)
  const outside = tempDir(t)
  // A real ZCode database, made where the links will point.
  const made = await ferry(['--home', home, 'convert', 'claude-code:0b9e6c1a', '--to', 'zcode', '--out', join(outside, 'db.sqlite')])
  t.equal(made.code, 0, made.stderr)
  const bytes = () => readFileSync(join(outside, 'db.sqlite')).toString('base64')
  const cases: Array<[string, (root: string) => void]> = [
    ['cli/db folder', (root) => {
      mkdirSync(join(root, 'cli'), { recursive: true })
      symlinkSync(outside, join(root, 'cli', 'db'))
    }],
    ['db.sqlite', (root) => {
      mkdirSync(join(root, 'cli', 'db'), { recursive: true })
      symlinkSync(join(outside, 'db.sqlite'), join(root, 'cli', 'db', 'db.sqlite'))
    }],
  ]
  for (const side of ['-wal', '-shm']) {
    cases.push([`db.sqlite${side}`, (root) => {
      // A real database of its own in the store, with only its side file linked out (dangling).
      mkdirSync(join(root, 'cli', 'db'), { recursive: true })
      symlinkSync(join(outside, `elsewhere${side}`), join(root, 'cli', 'db', `db.sqlite${side}`))
    }])
  }
  for (const [what, lay] of cases) {
    const root = join(tempDir(t), '.zcode')
    lay(root)
    if (what.endsWith('-wal') || what.endsWith('-shm')) {
      copyFileSync(join(outside, 'db.sqlite'), join(root, 'cli', 'db', 'db.sqlite'))
    }
    const before = bytes()
    const r = await ferry(['--home', home, 'convert', SRC, '--to', 'zcode', '--zcode-home', root])
    t.not(r.code, 0, `${what}: non-zero exit`)
    t.match(r.stderr, /unsafe-path/, `${what}: unsafe-path`)
    t.equal(bytes(), before, `${what}: the database outside is unchanged`)
    t.notOk(existsSync(join(outside, 'elsewhere-wal')) || existsSync(join(outside, 'elsewhere-shm')), `${what}: no side file created outside`)
  }
})
