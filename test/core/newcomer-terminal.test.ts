// The first hour of a new user (#46, items 4, 5, 7, 9, 15), the heavier half (test:full): dry runs
// against real runs, continue without the agent on PATH, show without less and progress on a
// pseudo-terminal (script(1)), a sub-agent read back. The light half is newcomer-cli.test.ts.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { FERRY, ferry, gen, jsonl, sampleHome, scaled, sh, tempDir } from '../kit.js'

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Runs a shell line on a pseudo-terminal of `cols` columns (script(1)); its output with escapes removed. */
function onTerminal(line: string, cols = 80, env: NodeJS.ProcessEnv = {}): { out: string; code: number | null } {
  const r = spawnSync('script', ['-qfec', `stty cols ${cols} rows 50; ${line}`, '/dev/null'], { env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: scaled(90_000) })
  // eslint-disable-next-line no-control-regex
  return { out: (r.stdout ?? '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n'), code: r.status }
}
const ferryLine = (args: string[]) => [process.execPath, FERRY, ...args].map(quote).join(' ')

t.test('--dry-run reports the id and path a real run writes', async (t) => {
  const home = sampleHome(t)
  for (const to of ['claude-code', 'gemini', 'zcode']) {
    const dry = await ferry(['--home', home, 'convert', 'codex:019a3c1e', '--to', to, '--dry-run', '--json'])
    t.equal(dry.code, 0, dry.stderr)
    const [d] = jsonl(dry.stdout)
    t.equal(d.dry_run, true)
    if (to !== 'zcode') t.notOk(existsSync(d.path), `${to}: nothing written at ${d.path}`)
    const real = await ferry(['--home', home, 'convert', 'codex:019a3c1e', '--to', to, '--json'])
    t.equal(real.code, 0, real.stderr)
    const [w] = jsonl(real.stdout)
    t.same([d.id, d.path], [w.id, w.path], `${to}: same id and path`)
  }
  const again = await ferry(['--home', home, 'convert', 'codex:019a3c1e', '--to', 'zcode', '--dry-run'])
  t.equal(again.code, 1, 'a clash a real run would meet is reported')
  t.match(again.stderr, new RegExp(`zcode:exists: ${home}/\\.zcode/`), 'naming the real store, not a scratch folder')
})

t.test('continue into an agent that is not on PATH: the import step is in the command; --exec --json fails as JSON', async (t) => {
  const home = sampleHome(t)
  const state = tempDir(t, 'ferry-state-')
  const bin = tempDir(t, 'ferry-bin-')
  symlinkSync(process.execPath, join(bin, 'node'))
  const env = { PATH: bin, XDG_STATE_HOME: state }
  const r = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'opencode', '--cwd', home], { env })
  t.equal(r.code, 0, r.stderr)
  const line = r.stdout.trim().split('\n')[1]!
  t.match(line, new RegExp(`^cd ${home} && opencode import ${home}/\\.local/share/opencode/ferry-import/ses_\\w+\\.json && opencode --session ses_\\w+$`), 'import, then resume')
  const j = await ferry(['--home', home, 'continue', 'codex:019a3c1e', '--with', 'opencode', '--cwd', home, '--exec', '--json'], { env })
  t.equal(j.code, 1)
  const errors = j.stderr.trim().split('\n').filter((l) => l.startsWith('{'))
  t.match(JSON.parse(errors.at(-1)!), { error: { code: 'no-client', message: /opencode \(OpenCode\) is not on PATH; .* opencode import .* && opencode --session /, line: null } })
  const w = await ferry(['--home', home, 'convert', 'codex:019a3c1e', '--to', 'opencode', '--force'], { env })
  t.match(w.stderr, /ferry: resume: cd .* && opencode import .*\.json && opencode --session ses_/, "write/convert's resume line too")
})

t.test('show on a terminal without less writes directly', async (t) => {
  const home = sampleHome(t)
  const bin = tempDir(t, 'ferry-bin-')
  symlinkSync(process.execPath, join(bin, 'node'))
  const r = onTerminal(`PATH=${quote(bin)} ${ferryLine(['--home', home, 'show', 'codex:019a3c1e'])}`, 100)
  t.equal(r.code, 0)
  t.notMatch(r.out, /not found/, 'no shell error')
  t.match(r.out, /Why does `npm test` fail\?/, 'the conversation is on the screen')
})

t.test('a Claude Code sub-agent written by convert --out DIR/ reads back by its own ref; JSON sink errors carry line', async (t) => {
  const out = tempDir(t, 'ferry-sub-') + '/'
  const qwen = join(dirname(FERRY), '..', 'fixtures', 'qwen', 'home')
  const r = await ferry(['--home', qwen, 'convert', 'qwen:d3b1c0de', '--to', 'claude-code', '--out', out, '--json'])
  t.equal(r.code, 0, r.stderr)
  const sub = jsonl(r.stdout).find((w) => /sub-agent/.test(w.note ?? ''))
  t.ok(sub, 'a sub-agent was written')
  const back = await ferry(['--claude-dir', out, 'cat', `claude-code:${sub.id}`, '--no-native'])
  t.equal(back.code, 0, back.stderr)
  t.equal(jsonl(back.stdout).find((x) => x.kind === 'session').sid, `claude-code:${sub.id}`)
  const again = await ferry(['--home', qwen, 'convert', 'qwen:d3b1c0de', '--to', 'claude-code', '--out', out, '--json'])
  const err = JSON.parse(again.stderr.trim().split('\n')[0]!)
  t.ok('line' in err.error && 'file' in err.error, 'the documented keys are there')
})

t.test('progress for one big session: bytes read of its size, percentage, rate, ETA', async (t) => {
  const home = gen(tempDir(t, 'ferry-big-'), { harness: 'claude', seed: 'progress', big: '12M' })
  const dir = join(home, '.claude', 'projects')
  const proj = readdirSync(dir)[0]!
  const id = readdirSync(join(dir, proj))[0]!.replace(/\.jsonl$/, '')
  const out = tempDir(t, 'ferry-big-out-') + '/'
  mkdirSync(out, { recursive: true })
  const r = onTerminal(`${ferryLine(['--home', home, 'convert', `claude-code:${id.slice(0, 8)}`, '--to', 'codex', '--out', out])} >/dev/null`, 120)
  t.equal(r.code, 0, r.out)
  t.match(r.out, /writing \[[#-]+\] 0\/1 sessions .*\d+(\.\d)? MiB of 1\d MiB \d+% \d+(\.\d)? (KiB|MiB)\/s ETA \d+s/, 'bytes of the size, %, rate and ETA')
})

t.test('redact marks the session in its metadata and the page footer, never its title', async (t) => {
  const home = sampleHome(t)
  const r = await sh(`$FERRY --home ${quote(home)} cat codex:019a3c1e --no-native | $FERRY redact`)
  t.equal(r.code, 0, r.stderr)
  const header = jsonl(r.stdout).find((x) => x.kind === 'session')
  t.equal(header.redacted, true, 'metadata says redacted')
  t.equal(header.title, 'Why does `npm test` fail?', 'title as written')
  const page = await sh(`$FERRY --home ${quote(home)} cat codex:019a3c1e --no-native | $FERRY redact | $FERRY render - --format md --no-redact`)
  t.equal(page.code, 0, page.stderr)
  t.notMatch(page.stdout, /\[redacted\]/, 'no title suffix on the page')
  t.match(page.stdout, /redacted before rendering/, 'the footer says it')
})

t.test('ls: cut cells end in …, short unique ids on a narrow terminal, in a pipe and on a terminal', async (t) => {
  const home = sampleHome(t)
  // A title longer than the pipe's 80 columns.
  const p = join(home, '.claude', 'projects', '-home-dev-demo-app', '0b9e6c1a-4d2f-4a8b-9c1d-00000000de00.jsonl')
  writeFileSync(p, JSON.stringify({ type: 'custom-title', customTitle: 'T'.repeat(120), sessionId: '0b9e6c1a-4d2f-4a8b-9c1d-00000000de00' }) + '\n', { flag: 'a' })
  const piped = await ferry(['--home', home, 'ls', '--harness', 'claude-code'])
  t.match(piped.stdout, /T{79}…$/m, 'a cut title ends in …')
  t.match(piped.stdout, /0b9e6c1a-4d2f-4a8b-9c1d-00000000de00/, 'ids whole in a pipe')
  const narrow = onTerminal(ferryLine(['--home', home, 'ls']), 80)
  const rows = narrow.out.split('\n').filter((l) => /^codex /.test(l))
  t.match(rows[0], /^codex\s+019a3c1e /, 'an 8-character unique prefix at 80 columns')
  t.ok(narrow.out.split('\n').every((l) => l.length <= 80), 'fits 80 columns')
})

t.test('quickstart: import documents with their import command, next steps that run as printed', async (t) => {
  const dir = tempDir(t, 'ferry-qs-')
  const bin = tempDir(t, 'ferry-bin-')
  symlinkSync(process.execPath, join(bin, 'node'))
  const r = await ferry(['quickstart', '--samples', '--out', join(dir, 'out'), '--limit', '1'], { env: { PATH: bin }, timeout: 120_000 })
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /\nImport documents, .*\nopencode\s+ses_\w+\s+cd \S+ && opencode import \S+\.json\n/, 'the OpenCode document and its import')
  const steps = r.stdout.split('\nNext steps')[1]?.split('\n').slice(1).filter((l) => l.startsWith('  npx ferry ')) ?? []
  t.equal(steps.length, 4, 'four next steps, from a clone as npx ferry')
  for (const step of steps) {
    const line = step.replace(/\s+# .*$/, '').trim().replace(/^npx ferry /, '$FERRY ')
    const s = await sh(line, { cwd: dir })
    t.equal(s.code, 0, `${step.trim()}: ${s.stderr}`)
    t.ok(s.stdout.length > 0 || existsSync(join(dir, 'session.html')), `${step.trim()}: prints something`)
  }
  t.ok(existsSync(join(dir, 'session.html')), 'the render step wrote its page')
})
