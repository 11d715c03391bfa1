// The Pi harness through the compiled CLI (real child processes): the native
// round trip byte for byte, and `continue --with pi` running the resume
// command in the session's directory (a stub `pi` on PATH).
import t from 'tap'
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, ferry, jsonl, tempDir } from '../../kit.js'

const REL = '.pi/agent/sessions/--home-dev-demo-app--/2026-11-05T14-02-11-482Z_019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c.jsonl'

t.test('convert pi:… --to pi --out DIR is byte-identical', async (t) => {
  const home = join(FIXTURES, 'pi', 'home')
  const out = tempDir(t)
  const r = await ferry(['--home', home, 'convert', 'pi:019a8f2c', '--to', 'pi', '--out', out])
  t.equal(r.code, 0, r.stderr)
  t.ok(readFileSync(join(out, REL.replace('.pi/agent/', ''))).equals(readFileSync(join(home, REL))))
})

t.test('continue --with pi: a Claude Code session resumed by `pi --session <id>` from its cwd', async (t) => {
  const home = tempDir(t)
  cpSync(join(FIXTURES, 'claude-code', 'home'), home, { recursive: true })
  const work = tempDir(t)
  const bin = tempDir(t)
  const log = join(bin, 'log')
  writeFileSync(join(bin, 'pi'), `#!/bin/sh\necho "$PWD" > ${log}\necho "$@" >> ${log}\n`)
  chmodSync(join(bin, 'pi'), 0o755)
  const env = { XDG_STATE_HOME: tempDir(t), PATH: `${bin}:${process.env.PATH}` }
  const shown = await ferry(['--home', home, 'continue', 'claude-code:3f1c9a2e', '--with', 'pi', '--cwd', work, '--json'], { env })
  t.equal(shown.code, 0, shown.stderr)
  const w = jsonl(shown.stdout)[0]
  t.match(w, { harness: 'pi', id: /^[0-9a-f]{8}-[0-9a-f]{4}-7/ })
  const header = JSON.parse(readFileSync(w.path, 'utf8').split('\n')[0]!)
  t.same(header, { type: 'session', version: 3, id: w.id, timestamp: header.timestamp, cwd: work }, 'the header names the directory Pi must resume from')
  const e = await ferry(['--home', home, 'continue', 'claude-code:3f1c9a2e', '--with', 'pi', '--cwd', work, '--exec'], { env })
  t.equal(e.code, 0, e.stderr)
  t.same(readFileSync(log, 'utf8').trim().split('\n'), [work, `--session ${w.id}`], 'ran in the cwd with the resume argv')
})
