// The CLI contract of docs/cli.md as real child processes on the sample HOME:
// quickstart's guard, the id-prefix rule, --out, exit codes, JSON errors,
// messages, ls ordering, preambles in pipes, dry runs, completion, and the
// terminal cases through a pseudo-terminal (script(1)).
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, ferry as run, fileTimeout, FIXTURES, jsonl, type RunOptions, type RunResult, tempDir } from '../kit.js'

// Many cases, each a child process: at most three at a time, with room for a loaded machine.
fileTimeout(t, 20 * 60_000)
let running = 0
const waiting: Array<() => void> = []
async function ferry(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (running >= 3) await new Promise<void>((r) => waiting.push(r))
  running++
  try {
    return await run(args, { timeout: 240_000, ...opts })
  } finally {
    running--
    waiting.shift()?.()
  }
}

const HOME = join(FIXTURES, 'home')
const CODEX = '019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b'
const GROK = '01a1f84a-95c0-7a4c-9b21-3e5f0d8c6a17'
const CLAUDE = '0b9e6c1a-4d2f-4a8b-9c1d-00000000de00'
const PI = '019a8f2c-3b1e-7d40-9a6b-5c1e2f3a4b5c'

/** Runs a shell command line (pipes between ferry processes); `$F` is ferry. */
function sh(line: string, opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn('bash', ['-c', line], { cwd: opts.cwd, env: { ...process.env, F: `${process.execPath} ${FERRY}`, NO_COLOR: '1', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b) => (stdout += b))
    child.stderr.on('data', (b) => (stderr += b))
    child.on('close', (code) => res({ code, stdout, stderr }))
  })
}

t.test('quickstart never deletes what it did not make', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'precious.txt'), 'keep me')
  const refused = await ferry(['quickstart', '--samples', '--out', dir])
  t.equal(refused.code, 2, 'a non-empty directory is refused')
  t.match(refused.stderr, /not empty and not made by ferry quickstart.*nothing was deleted/)
  t.same(readdirSync(dir), ['precious.txt'])
  t.equal(readFileSync(join(dir, 'precious.txt'), 'utf8'), 'keep me', 'the file survives')
  const file = await ferry(['quickstart', '--samples', '--out', join(dir, 'precious.txt')])
  t.equal(file.code, 2, 'a file as --out is refused')
  t.equal(readFileSync(join(dir, 'precious.txt'), 'utf8'), 'keep me')

  const out = join(dir, 'tour')
  t.equal((await ferry(['quickstart', '--samples', '--out', out, '--limit', '1'], { timeout: 120_000 })).code, 0)
  t.ok(existsSync(join(out, '.ferry-quickstart')), 'marked as made by quickstart')
  writeFileSync(join(out, 'leftover'), 'x')
  const again = await ferry(['quickstart', '--samples', '--out', out, '--limit', '1'], { timeout: 120_000 })
  t.equal(again.code, 0, 'its own directory is replaced')
  t.notOk(existsSync(join(out, 'leftover')))
})

t.test('one id-prefix rule for every harness; ambiguity is exit 2 with the candidates', async (t) => {
  const [amb, one, codex1, grok, claude, exact, none] = await Promise.all([
    ferry(['--home', HOME, 'cat', '01']),
    ferry(['--home', HOME, 'cat', '0b9e', '--no-native']),
    ferry(['--home', HOME, 'cat', 'codex:0', '--no-native']),
    ferry(['--home', HOME, 'cat', `grok:${GROK.slice(0, 3)}`, '--no-native']),
    ferry(['--home', HOME, 'cat', `claude-code:${CLAUDE.slice(0, 1)}`, '--no-native']),
    ferry(['--home', HOME, 'cat', CODEX, '--no-native']),
    ferry(['--home', HOME, 'cat', 'codex:ffff']),
  ])
  t.equal(amb.code, 2, '01 matches a Codex, a Grok and a Pi session (UUID v7 ids of 2026)')
  t.match(amb.stderr, /"01" is ambiguous: it matches 3 sessions/)
  t.match(amb.stderr, `codex:${CODEX}`)
  t.match(amb.stderr, `grok:${GROK}`)
  t.match(amb.stderr, `pi:${PI}`)
  t.equal(amb.stdout, '', 'nothing read')
  for (const [r, sid] of [[one, `claude-code:${CLAUDE}`], [codex1, `codex:${CODEX}`], [grok, `grok:${GROK}`], [claude, `claude-code:${CLAUDE}`], [exact, `codex:${CODEX}`]] as const) {
    t.equal(r.code, 0, r.stderr)
    t.equal(jsonl(r.stdout).find((x) => x.kind === 'session')?.sid, sid, `resolves to ${sid}`)
  }
  t.equal(none.code, 1, 'no match is a runtime error')
  t.match(none.stderr, /no codex session "ffff"/)
})

t.test('--out: a file, a directory, stdout', async (t) => {
  const dir = tempDir(t)
  const share = join(dir, 'share.jsonl')
  const [file, slash, dash, store, opencodeDash] = await Promise.all([
    ferry(['--home', HOME, 'convert', `codex:${CODEX}`, `grok:${GROK}`, '--to', 'ferry', '--out', share]),
    ferry(['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'ferry', '--out', join(dir, 'export') + '/']),
    ferry(['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'ferry', '--out', '-']),
    ferry(['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'codex', '--out', '-']),
    ferry(['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'opencode', '--out', '-', '--json']),
  ])
  t.equal(file.code, 0, file.stderr)
  const recs = jsonl(readFileSync(share, 'utf8'))
  t.same(recs.filter((r) => r.kind === 'session').map((r) => r.sid), [`codex:${CODEX}`, `grok:${GROK}`], 'two sessions in one interchange file')
  t.equal(recs.filter((r) => r.kind === 'stream').length, 1, 'one preamble')
  t.equal(file.stdout.trim().split('\n').length, 2, 'each session reported')
  t.equal(slash.code, 0, slash.stderr)
  t.same(readdirSync(join(dir, 'export')), [`codex-${CODEX}.ferry.jsonl`], 'a trailing / is a directory')
  t.equal(dash.code, 0)
  t.equal(jsonl(dash.stdout)[1].sid, `codex:${CODEX}`, '- is stdout for the stream')
  t.equal(store.code, 2, '- is not a store')
  t.notMatch(store.stderr, /\u0000|stdin/, 'no internal sentinel in the message')
  t.match(store.stderr, /--out -: .* not to stdout/)
  t.equal(JSON.parse(opencodeDash.stderr).error.code, 'usage')
})

t.test('--out FILE of a one-session format with several sessions: exit 2, nothing written', async (t) => {
  const dir = tempDir(t)
  const one = join(dir, 'one.json')
  const many = await ferry(['--home', HOME, 'convert', `codex:${CODEX}`, `grok:${GROK}`, '--to', 'opencode', '--out', one])
  t.equal(many.code, 2, many.stderr)
  t.match(many.stderr, /--out .*one\.json: one OpenCode file holds one session and the input has 2; give a directory/)
  // From stdin the count is not known up front: the second session header stops the run before the first is committed.
  const stream = await ferry(['--home', HOME, 'cat', `codex:${CODEX}`, `grok:${GROK}`])
  const piped = await ferry(['write', '--to', 'opencode', '--out', one], { input: stream.stdout })
  t.equal(piped.code, 2, piped.stderr)
  t.match(piped.stderr, /one OpenCode file holds one session/)
  t.same(readdirSync(dir), [], 'nothing written, not even a temp file')
  const single = await ferry(['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'opencode', '--out', one])
  t.equal(single.code, 0, single.stderr)
  t.same(readdirSync(dir), ['one.json'])
})

t.test('usage errors exit 2, runtime errors 1; --json errors are objects on stderr', async (t) => {
  const dir = tempDir(t)
  const usage: string[][] = [
    ['filter', '--range', '12-5'],
    ['convert', '--to', 'codex'],
    ['--home', HOME, 'cat', `codex:${CODEX}`, '--max-line-bytes', 'abc'],
    ['--home', HOME, 'cat', `codex:${CODEX}`, '--truncate', '--tool-output abc'],
    ['--home', join(dir, 'nowhere'), 'ls'],
    ['--home', HOME, 'ls', '--since', 'yesterday-ish'],
    ['--home', HOME, 'cat', '--from', 'codex', '--since', 'someday'],
    ['--home', HOME, 'convert', `codex:${CODEX}`, '--to', 'codex', '--to', 'grok'],
    ['--home', HOME, 'cat', `claud:${CLAUDE}`],
    ['cnvert', 'x'],
    ['help', 'nope'],
    ['--home', HOME, 'ls', '-n', 'x'],
  ]
  const rs = await Promise.all(usage.map((a) => ferry(a)))
  usage.forEach((a, i) => {
    t.equal(rs[i]!.code, 2, `${a.join(' ')} → 2 (${rs[i]!.stderr.trim()})`)
    t.match(rs[i]!.stderr, /^ferry: /)
    t.notMatch(rs[i]!.stderr, /\n\s+at /, 'no stack trace')
  })
  t.match(rs[4]!.stderr, /--home .*nowhere: no such directory/)
  t.match(rs[7]!.stderr, /--to takes one/)
  t.match(rs[8]!.stderr, /unknown harness "claud".*did you mean claude-code/)
  t.match(rs[9]!.stderr, /unknown command "cnvert" \(did you mean convert\?\)/)

  const [j1, j2, j3, j4] = await Promise.all([
    ferry(['--home', HOME, 'ls', '--json', '--since', 'bogus']),
    ferry(['--home', HOME, 'convert', '01', '--to', 'codex', '--json']),
    ferry(['--home', HOME, 'convert', 'codex:ffff', '--to', 'grok', '--json']),
    ferry(['write', '--to', 'ferry', '--out', join(dir, 'w') + '/', '--json'], {
      input: ['{"kind":"session","ferry":"1.0","sid":"ferry:a","id":"ferry:a:session","source":{"harness":"ferry","locator":{}},"native_id":"a"}', '{not json', '{"kind":"message","sid":"ferry:a","id":"ferry:a:m1","role":"user","ts":null,"blocks":[{"type":"text","text":"hi"}]}', '{"kind":"end","sid":"ferry:a","id":"ferry:a:end"}', ''].join('\n'),
    }),
  ])
  const err = (s: string) => s.trim().split('\n').map((l) => JSON.parse(l))
  t.equal(j1.code, 2)
  t.same(err(j1.stderr)[0].error.code, 'usage')
  t.match(err(j1.stderr)[0].error, { file: null, line: null, message: /--since: not a date/ })
  t.equal(j2.code, 2)
  t.equal(err(j2.stderr)[0].error.code, 'ambiguous')
  t.equal(j3.code, 1)
  t.equal(err(j3.stderr)[0].error.code, 'no-session')
  t.equal(j4.code, 1, 'a bad line fails the run after the rest was written')
  const bad = err(j4.stderr)
  t.ok(bad.length >= 1, 'only JSON on stderr')
  t.match(bad[0].error, { code: 'bad-line', file: '<stdin>', line: 2 })
  t.equal(jsonl(j4.stdout)[0].id, 'a', 'the session was still written')
})

t.test('help, version and the messages people meet', async (t) => {
  const [h, v, helpConvert, unquoted, negSpan, yesterday] = await Promise.all([
    ferry(['-h']),
    ferry(['-V']),
    ferry(['help', 'convert']),
    ferry(['--home', HOME, 'cat', `codex:${CODEX}`, '--no-native', '--truncate', '--tool-output', '5']),
    ferry(['--home', HOME, 'ls', '--since', '-3d', '--json']),
    ferry(['--home', HOME, 'cat', '--from', 'codex', '--since', 'yesterday']),
  ])
  t.equal(h.code, 0)
  t.match(h.stdout, /ferry <command> \[options\]/)
  t.equal(v.stdout.trim(), JSON.parse(readFileSync(join(FIXTURES, '..', 'package.json'), 'utf8')).version)
  t.equal(helpConvert.code, 0)
  t.match(helpConvert.stdout, /^ferry convert \[ref\.\.\]/)
  t.equal(unquoted.code, 0, unquoted.stderr)
  t.match(unquoted.stdout, /\[truncated \d+ chars\]/, 'the unquoted transform options apply')
  t.equal(negSpan.code, 0, negSpan.stderr)
  // `yesterday` is a date, not a usage error; the samples are older, so nothing matches (#46: exit 1, said on stderr).
  t.equal(yesterday.code, 1, yesterday.stderr)
  t.match(yesterday.stderr, /^ferry: no sessions matched --from codex --since yesterday /)
  for (const l of jsonl(negSpan.stdout)) t.ok(Date.parse(l.updated_at ?? l.created_at) >= Date.now() - 3 * 86400e3 - 60e3)
  // Every example in every help is on one line and names a real sample, not a placeholder.
  const cmds = ['cat', 'write', 'convert', 'normalize-tools', 'continue']
  const helps = await Promise.all(cmds.map((c) => ferry([c, '--help'])))
  helps.forEach((r, i) => {
    const ex = r.stdout.split('Examples:')[1] ?? ''
    t.ok(ex, `${cmds[i]} --help has examples`)
    t.notMatch(ex, /0199…|5d2f…|:ID\b/, 'no placeholder ids')
    for (const line of ex.split('\n').filter((l) => l.trim().startsWith('ferry ') || l.includes('| ferry'))) t.notMatch(line.trimEnd(), /[|<>]$/, `not cut mid-command: ${line.trim()}`)
  })
})

t.test('ls: newest first in the table and in JSON, --sort, --limit, --until', async (t) => {
  const [table, json, limited, byHarness, until] = await Promise.all([
    ferry(['--home', HOME, 'ls']),
    ferry(['--home', HOME, 'ls', '--json']),
    ferry(['--home', HOME, 'ls', '--json', '-n', '2']),
    ferry(['--home', HOME, 'ls', '--json', '--sort', 'harness']),
    ferry(['--home', HOME, 'ls', '--json', '--until', '2026-11-10']),
  ])
  const rows = jsonl(json.stdout)
  const times = rows.map((r) => r.updated_at ?? r.created_at)
  t.same(times, [...times].sort().reverse(), 'JSON newest first')
  const tableIds = table.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[1])
  t.same(tableIds, rows.map((r) => r.id), 'the table in the same order, ids whole in a pipe')
  t.same(jsonl(limited.stdout).map((r) => r.id), rows.slice(0, 2).map((r) => r.id))
  const hs = jsonl(byHarness.stdout).map((r) => r.harness)
  t.same(hs, [...hs].sort())
  t.same(jsonl(until.stdout).map((r) => r.harness).sort(), ['claude-code', 'codex', 'copilot', 'kilo', 'pi'])
})

t.test('a pipe of stages carries one preamble; --dry-run writes nothing', async (t) => {
  const dir = tempDir(t)
  const r = await sh(`$F --home "${HOME}" cat codex:${CODEX} | $F redact | $F truncate --tool-output 100 | $F cat - | $F filter`)
  t.equal(r.code, 0, r.stderr)
  t.equal(jsonl(r.stdout).filter((x) => x.kind === 'stream').length, 1, 'one stream preamble after four stages')
  const home = join(dir, 'h')
  mkdirSync(home)
  const dry = await ferry(['--home', HOME, 'convert', '--from', 'codex', '--from', 'grok', '--to', 'claude-code', '--out', home + '/', '--dry-run', '--json'])
  t.equal(dry.code, 0, dry.stderr)
  const rep = jsonl(dry.stdout)
  t.same(rep.map((x) => x.from).sort(), [`codex:${CODEX}`, `grok:${GROK}`])
  for (const x of rep) t.match(x, { dry_run: true, harness: 'claude-code', records: Number })
  t.same(readdirSync(home), [], 'nothing written')
})

t.test('completion: bash (sourced, COMPREPLY), zsh and fish scripts', async (t) => {
  const dir = tempDir(t)
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  symlinkSync(FERRY, join(bin, 'ferry'))
  const script = join(dir, 'ferry.bash')
  writeFileSync(script, (await ferry(['completion', 'bash'])).stdout)
  // Completes the line as bash would after TAB: COMP_LINE up to the cursor.
  const complete = (line: string) => {
    const r = spawnSync('bash', ['-c', `source "${script}"; complete -p ferry; COMP_LINE="$1"; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=($1); COMP_CWORD=\${#COMP_WORDS[@]}; _ferry_complete; printf '%s\\n' "\${COMPREPLY[@]}"`, '_', line], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
    })
    const [reg, ...out] = r.stdout.trimEnd().split('\n')
    t.match(reg, /complete .*-F _ferry_complete ferry/, 'registered for ferry')
    return out.filter(Boolean)
  }
  t.same(complete('ferry co'), ['convert', 'continue', 'completion'].sort((a, b) => ['convert', 'continue', 'completion'].indexOf(a) - ['convert', 'continue', 'completion'].indexOf(b)), 'commands')
  t.ok(complete('ferry ls --s').includes('--since'), 'flags of the command')
  t.ok(complete('ferry ls --s').includes('--sort'))
  t.same(complete('ferry convert x --to cl'), ['claude-code'], 'harness ids after --to')
  t.same(complete('ferry ls --sort h'), ['harness'], 'choices of a flag')
  t.same(complete('ferry completion '), ['bash', 'zsh', 'fish'])
  t.same(complete(`ferry --home ${HOME} cat 01`).sort(), [`codex:${CODEX}`, `grok:${GROK}`, `pi:${PI}`], 'session ids where a REF goes')
  // After "codex:" bash replaces only what follows the colon.
  t.same(complete(`ferry --home ${HOME} cat codex:019`), [CODEX])
  const [zsh, fish] = await Promise.all([ferry(['completion', 'zsh']), ferry(['completion', 'fish'])])
  t.match(zsh.stdout, /^#compdef ferry/)
  t.match(zsh.stdout, /compdef _ferry ferry/)
  t.match(fish.stdout, /complete -c ferry .*__ferry_complete/)
  t.equal((await ferry(['completion', 'tcsh'])).code, 2, 'an unknown shell is a usage error')
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` }
  const has = (sh: string) => spawnSync(sh, ['-c', 'exit 0']).status === 0
  await t.test('zsh: compinit, the script, the completion function', async (t) => {
    if (!has('zsh')) return t.skip('zsh is not installed (.ci/run installs it)')
    const zf = join(dir, 'ferry.zsh')
    writeFileSync(zf, zsh.stdout)
    // compadd is zsh's builtin for offering candidates; shadowed here to print what the script offers.
    const z = (words: string[]) => spawnSync('zsh', ['-fc', `autoload -U compinit; compinit -u -D; source "${zf}"; print -r -- "reg:$_comps[ferry]"; compadd() { shift 2; print -l -- "$@" }; words=("$@"); CURRENT=$#; _ferry`, 'zsh', ...words], { env, encoding: 'utf8' })
    const r = z(['ferry', 'convert', 'x', '--to', 'cl'])
    const [reg, ...out] = r.stdout.trimEnd().split('\n')
    t.equal(reg, 'reg:_ferry', `registered by compdef: ${r.stderr}`)
    t.same(out, ['claude-code'], 'harness ids after --to')
    t.same(z(['ferry', 'co']).stdout.trimEnd().split('\n').slice(1).sort(), ['completion', 'continue', 'convert'], 'commands')
    t.same(z(['ferry', '--home', HOME, 'cat', 'codex:019']).stdout.trimEnd().split('\n').slice(1), [`codex:${CODEX}`], 'session ids')
  })
  await t.test('fish: complete -C', async (t) => {
    if (!has('fish')) return t.skip('fish is not installed (.ci/run installs it)')
    const ff = join(dir, 'ferry.fish')
    writeFileSync(ff, fish.stdout)
    const f = (line: string) => spawnSync('fish', ['--no-config', '-c', `source "${ff}"; complete -C "${line}"`], { env, encoding: 'utf8' }).stdout.trimEnd().split('\n').map((l) => l.split('\t')[0]).filter(Boolean)
    t.same(f('ferry co').sort(), ['completion', 'continue', 'convert'], 'commands')
    t.same(f('ferry convert x --to cl'), ['claude-code'], 'harness ids after --to')
    t.ok(f('ferry ls --s').includes('--since'), 'flags of the command')
  })
})

t.test('on a terminal: progress on stderr, the table fits; in a pipe neither', async (t) => {
  const dir = tempDir(t)
  const errFile = join(dir, 'stderr')
  // script(1) gives the child a pseudo-terminal; stdout goes to a file so only stderr is on it.
  const pty = (cmd: string, cols = 80) => spawnSync('script', ['-qec', `stty cols ${cols}; ${cmd}`, '/dev/null'], { encoding: 'utf8', env: { ...process.env, F: `${process.execPath} ${FERRY}` } })
  const conv = pty(`$F --home "${HOME}" convert --from codex --from grok --to ferry --out "${dir}/o/" > "${dir}/out"`)
  t.equal(conv.status, 0, conv.stdout)
  t.match(conv.stdout, /writing .*sessions/, 'progress is drawn on the terminal')
  t.notMatch(readFileSync(join(dir, 'out'), 'utf8'), /\x1b|writing \[/, 'never on stdout')
  const quiet = pty(`$F --home "${HOME}" convert --from codex --to ferry --out "${dir}/q/" --quiet > /dev/null`)
  t.notMatch(quiet.stdout, /writing/, '--quiet silences it')
  const piped = await ferry(['--home', HOME, 'convert', '--from', 'codex', '--to', 'ferry', '--out', join(dir, 'p') + '/'])
  t.equal(piped.stderr, '', 'nothing on a piped stderr: no redraw codes in a CI log')
  const table = pty(`$F --home "${HOME}" ls`, 80)
  const lines = table.stdout.replace(/\r/g, '').split('\n').filter(Boolean)
  t.ok(lines.length >= 6)
  for (const l of lines) t.ok([...l].length <= 80, `fits 80 columns: ${l}`)
  void errFile
})

t.test('ls: SQLite stores count messages in the discovery query', async (t) => {
  const r = await ferry(['--home', HOME, 'ls', '--json', '--harness', 'opencode', '--harness', 'zcode'])
  t.equal(r.code, 0, r.stderr)
  const Database = (await import('better-sqlite3')).default
  const dbs: Record<string, string> = { opencode: join(HOME, '.local/share/opencode/opencode.db'), zcode: join(HOME, '.zcode/cli/db/db.sqlite') }
  const rows = jsonl(r.stdout)
  t.ok(rows.length >= 2)
  const { copyFileSync } = await import('node:fs')
  for (const s of rows) {
    // A plain read-only connection to a WAL database creates -wal/-shm beside it: count in a copy,
    // so the sample store stays as shipped.
    const copy = join(tempDir(t), 'db.sqlite')
    copyFileSync(dbs[s.harness as string]!, copy)
    const db = new Database(copy, { readonly: true })
    const n = (db.prepare('SELECT COUNT(*) AS n FROM message WHERE session_id = ?').get(s.id) as { n: number }).n
    db.close()
    t.equal(s.message_count, n, `${s.harness}:${s.id}: the rows of its messages`)
  }
})
