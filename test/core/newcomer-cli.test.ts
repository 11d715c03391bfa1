// The first hour of a new user (#46, items 2, 6, 9; the heavier half is newcomer-terminal.test.ts),
// as real child processes: home paths redacted only where a path starts, nothing matched said on
// stderr with exit 1, usage errors and --help in ferry's own words and order.
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, jsonl, sampleHome, tempDir } from '../kit.js'

t.test('redact --paths: only a home at the start of a path becomes ~', async (t) => {
  const home = sampleHome(t)
  const text = 'see /srv/app/home/bob/notes.txt, cd /home/ada/src and "C:\\Users\\ada\\y"; run …/claude-code/home/.claude/projects/p and /Users/bo/z'
  const stream = await ferry(['--home', home, 'cat', 'claude-code:0b9e', '--no-native'])
  const recs = jsonl(stream.stdout).map((r) => (r.kind === 'message' && r.role === 'user' ? { ...r, blocks: [{ type: 'text', text }] } : r))
  const r = await ferry(['redact', '--paths'], { input: recs.map((x) => JSON.stringify(x)).join('\n') + '\n', env: { HOME: '/home/ada' } })
  t.equal(r.code, 0, r.stderr)
  const out = jsonl(r.stdout).find((x) => x.kind === 'message' && x.role === 'user').blocks[0].text
  t.equal(out, 'see /srv/app/home/bob/notes.txt, cd ~/src and "~\\y"; run …/claude-code/home/.claude/projects/p and ~/z')
})

t.test('nothing matched: one line on stderr, exit 1, nothing on stdout, no file', async (t) => {
  const home = sampleHome(t)
  const out = join(tempDir(t, 'ferry-nomatch-'), 'share.jsonl')
  for (const args of [
    ['ls', '--since', '2h', '--harness', 'codex'],
    ['ls', '--since', '2h', '--harness', 'codex', '--json'],
    ['cat', '--from', 'codex', '--since', '2h'],
    ['convert', '--from', 'codex', '--since', '2h', '--to', 'ferry', '--out', out],
  ]) {
    const r = await ferry(['--home', home, ...args])
    t.equal(r.code, 1, `${args.join(' ')}: exit 1`)
    t.equal(r.stdout, '', 'nothing on stdout')
    if (args.includes('--json')) t.match(JSON.parse(r.stderr.trim()), { error: { code: 'no-match', message: /^no sessions matched --harness codex --since 2h/, line: null } })
    else t.match(r.stderr, /^ferry: no sessions matched --(harness|from) codex --since 2h \(stores looked at: codex /, 'says what was asked and where')
  }
  t.notOk(existsSync(out), 'no 0-byte --out file')
  const empty = tempDir(t, 'ferry-empty-home-')
  const none = await ferry(['--home', empty, 'ls'])
  t.equal(none.code, 1)
  t.equal(none.stdout, '')
  t.match(none.stderr, /^ferry: no sessions found \(stores looked at: /)
  const zero = await ferry(['--home', home, 'ls', '-n', '0'])
  t.same([zero.code, zero.stdout, zero.stderr], [0, '', ''], '-n 0 of sessions that exist: nothing, as head -n 0')
})

t.test('usage errors in our own words, one line; --help lists own flags first, global options last', async (t) => {
  for (const [args, msg] of [
    [['ls', '--limit', 'abc'], /^ferry: --limit: not a number: "abc"\n$/],
    [['ls', '-n'], /^ferry: -n needs a value \(see ferry ls --help\)\n$/],
    [['show', 'x', '--tools', 'bogus'], /^ferry: --tools "bogus": not one of full, brief, none \(see ferry show --help\)\n$/],
    [['hooks'], /^ferry: hooks: an argument is missing \(see ferry hooks --help\)\n$/],
    [['ls', '--bogus'], /^ferry: unknown option --bogus \(see ferry ls --help\)\n$/],
  ] as Array<[string[], RegExp]>) {
    const r = await ferry(args)
    t.equal(r.code, 2, args.join(' '))
    t.match(r.stderr, msg)
  }
  const help = (await ferry(['ls', '--help'])).stdout
  const own = help.indexOf('--limit')
  const global = help.indexOf('Global options:')
  t.ok(own > 0 && global > own && help.indexOf('--home') > global && help.indexOf('--help') > global, 'own flags first, global options last')
})
