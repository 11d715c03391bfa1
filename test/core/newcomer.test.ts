// The first hour of a new user (#46), as real child processes: options that could send data to the
// wrong place are usage errors, never a silent fallback.
import t from 'tap'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, sampleHome, tempDir } from '../kit.js'

t.test('a single-value option given twice is a usage error, never the real HOME or stdout', async (t) => {
  const home = sampleHome(t)
  const other = tempDir(t, 'ferry-other-home-')
  const realHome = tempDir(t, 'ferry-real-home-')
  // HOME stands for the real home: a fallback to it would list or write there.
  const env = { HOME: realHome }
  for (const args of [
    ['--home', home, '--home', other, 'ls'],
    ['--home', home, '--home', other, 'convert', 'claude-code:0b9e', '--to', 'codex'],
    ['--home', home, '--db', join(other, 'a.db'), '--db', join(other, 'b.db'), 'archive'],
    ['--home', home, 'convert', 'claude-code:0b9e', '--to', 'ferry', '--out', join(other, 'a.jsonl'), '--out', join(other, 'b.jsonl')],
    ['--home', home, 'ls', '-n', '3', '-n', '4'],
  ]) {
    const r = await ferry(args, { env })
    t.equal(r.code, 2, `${args.join(' ')}: usage error`)
    t.match(r.stderr, /--(home|db|out|limit) takes one value, got 2/, 'names the option')
    t.equal(r.stdout, '', 'nothing on stdout')
  }
  t.notOk(existsSync(join(realHome, '.codex')), 'nothing written into the real HOME')
  t.notOk(existsSync(join(other, 'a.db')) || existsSync(join(other, 'b.db')), 'no archive made')
  const ok = await ferry(['--home', home, 'ls', '--harness', 'codex', '--harness', 'claude-code', '--json'], { env })
  t.equal(ok.code, 0, 'a repeatable option still repeats')
})

t.test('--out naming a file for a target that writes a store is a usage error naming what works', async (t) => {
  const home = sampleHome(t)
  const dir = tempDir(t, 'ferry-out-')
  for (const to of ['claude-code', 'codex', 'grok', 'cursor']) {
    const out = join(dir, `${to}-file.jsonl`)
    const r = await ferry(['--home', home, 'convert', 'claude-code:0b9e', '--to', to, '--out', out])
    t.equal(r.code, 2, `${to}: usage error`)
    t.match(r.stderr, /writes a store .* not a file; give a folder \(--out .*\/\)/, 'says what would work')
    t.notOk(existsSync(out), 'nothing made under that name')
  }
  const existing = join(dir, 'plain-file')
  writeFileSync(existing, 'mine')
  const r = await ferry(['--home', home, 'convert', 'claude-code:0b9e', '--to', 'claude-code', '--out', existing])
  t.equal(r.code, 2, 'an existing file is not a store either')
  const ok = await ferry(['--home', home, 'convert', 'claude-code:0b9e', '--to', 'codex', '--out', join(dir, 'fresh-store'), '--json'])
  t.equal(ok.code, 0, 'a new folder name without a slash still works')
})
