// `ferry pick` in a real terminal (tmux), the cases each needing a picker
// process of their own: `--print` drawing on /dev/tty while its stdout is a
// file; an empty HOME; and the actions. Enter opens the session
// in `show` through less and the list comes back after q; Ctrl-O continues
// it in another agent (written into that store, the resume command
// printed); Ctrl-R renders it; Ctrl-Y copies its REF (OSC 52, into tmux's
// buffer); Ctrl-F searches the archive's text; `show` and `continue` without
// a REF pick one on a terminal; Ctrl-G in bash inserts a picked REF.
import t from 'tap'
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, FIXTURE, ferry, rollouts, sampleHome, tempDir } from '../kit.js'
import { hasTmux, shq, sleep, Tmux } from './tmux.js'
import { listable } from '../../lib/harness/registry.js'

/** The sample HOME holds one session per listable harness (test/core/cli-store.test.ts). */
const N = listable().length
const loaded = new RegExp(`^pick> .* ${N}/${N}\\s*$`, 'm')

if (!hasTmux()) {
  t.skip('tmux is not installed (apt-get install tmux): the picker tests need a real terminal')
} else {
  t.test('Enter opens the session in show through the pager; q comes back to the list', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    tm.start(`unset PAGER LESS; node ${shq(FERRY)} --home ${shq(home)} pick`, { env: { NO_COLOR: '1' } })
    await tm.waitFor('the list', loaded)
    await tm.keys('c', 'o', 'd', 'e', 'x')
    await tm.waitFor("codex's row first", /^> .* codex /m)
    await tm.keys('Enter')
    // less's own prompt on the last line: the whole page is drawn and less reads keys.
    const s = await tm.waitFor('the session in less', (x) => /^━━ Codex CLI/.test(x) && !/^pick>/m.test(x) && /^(:|\(END\))\s*$/m.test(x.trimEnd().split('\n').pop()!))
    t.match(s, /^#\d+ user/m, 'the conversation as show renders it')
    await tm.keys('q')
    await tm.waitFor('the list again, with the query kept', /^pick> codex/m)
    // The list is not only drawn but reads keys again, after a while (it once quit on its own a moment after).
    await sleep(1000)
    await tm.keys('BSpace')
    await tm.waitFor('the query edited', /^pick> code(?!x)/m)
    t.equal(tm.file('rc'), '', 'still running')
    await tm.keys('Escape')
    t.equal(await tm.exitCode(), 0)
  })

  t.test('Ctrl-O continues in the agent chosen: written into its store, the resume command printed', async (t) => {
    const home = sampleHome(t)
    const state = tempDir(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out 2> err`, { env: { NO_COLOR: '1', XDG_STATE_HOME: state } })
    await tm.waitFor('the list', loaded)
    await tm.keys('c', 'o', 'd', 'e', 'x')
    await tm.waitFor("codex's row first", /^> .* codex /m)
    await tm.keys('C-o')
    const s = await tm.waitFor('the agents to continue in', /^continue codex:019a3c1e\S* in/m)
    t.match(s, /^> Claude Code \(claude-code\)/m, 'the first target is selected')
    t.notMatch(s, /Codex CLI \(codex\)/, "the session's own agent is not offered")
    await tm.keys('Enter')
    t.equal(await tm.exitCode(), 0, tm.file('err'))
    const [written, cmd] = tm.file('out').trim().split('\n')
    const [harness, id, path] = written!.split('\t')
    t.equal(harness, 'claude-code')
    t.ok(path!.startsWith(join(home, '.claude', 'projects')) && existsSync(path!), 'written into the Claude Code store under --home')
    t.match(readFileSync(path!, 'utf8'), /npm test/, 'with the conversation')
    t.match(cmd, new RegExp(`^cd \\S+ && claude --resume ${id}$`), 'and the command that resumes it')
    t.match(tm.file('err'), /continuing in/, 'the missing cwd is said on stderr')
  })

  t.test('Ctrl-R renders to HTML in the current directory; Ctrl-Y copies the REF', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out`, { env: { NO_COLOR: '1' } })
    await tm.waitFor('the list', loaded)
    await tm.keys('g', 'r', 'o', 'k')
    await tm.waitFor('one row', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    await tm.keys('C-y')
    await tm.waitFor('the copy said', /^copied grok:01a1f84a/m)
    t.match(tm.buffer(), /^grok:01a1f84a-[0-9a-f-]+$/, 'the REF is on the clipboard (tmux buffer, from OSC 52)')
    await tm.keys('C-r')
    await tm.waitFor('the formats', /^render grok:\S+ \(redacted\) to/m)
    await tm.keys('Enter')
    t.equal(await tm.exitCode(), 0)
    const file = tm.file('out').trim()
    t.match(file, /^grok-01a1f84a-95c\.html$/)
    t.match(readFileSync(join(tm.dir, file), 'utf8'), /^<!doctype html>/i, 'a complete HTML document')
  })

  t.test('archived sessions marked; Ctrl-F: full-text search in the archive, hits as rows; --print prints the hit\'s REF', async (t) => {
    const home = sampleHome(t)
    const a = await ferry(['--home', home, 'archive'])
    t.equal(a.code, 0, a.stderr)
    // A session its agent no longer has is still listed: from the archive, marked.
    for (const f of rollouts(join(home, '.codex', 'sessions'))) if (f.includes(FIXTURE.codex.classic)) rmSync(f)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick --print > out`, { env: { NO_COLOR: '1' } })
    await tm.waitFor('the list', loaded)
    // The oldest session: below the nine rows of an 80×24 list until the filter brings it up.
    tm.type('codex')
    const list = await tm.waitFor('the Codex row', /^pick> codex.* 1\//m)
    t.match(list, /^[> ] \d\d-\d\d \d\d:\d\d codex .*\[archive\] /m, 'the deleted Codex session, from the archive')
    await tm.keys('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace')
    await tm.waitFor('the whole list again', loaded)
    await tm.keys('C-f')
    await tm.waitFor('text mode', /^text> _\s+0 hits/m)
    tm.type('Diagnose failing')
    const s = await tm.waitFor('the hits', /^text> Diagnose failing_\s+[1-9]\d* hits/m)
    t.match(s.split('\n')[1], /^> .* grok .*Diagnose failing/, 'the hit as a row, its text shown')
    await tm.keys('Enter')
    t.equal(await tm.exitCode(), 0)
    t.match(tm.file('out'), /^grok:01a1f84a-[0-9a-f-]+\n$/, 'the live REF of the session hit')
  })

  t.test('show without a REF on a terminal picks one; continue without one elsewhere says so', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    // Tall enough for the whole session: the shown text stays on the screen after the picker's is gone.
    tm.start(`PAGER=cat node ${shq(FERRY)} --home ${shq(home)} show`, { env: { NO_COLOR: '1' }, height: 150 })
    await tm.waitFor('the picker', loaded)
    await tm.keys('g', 'r', 'o', 'k')
    await tm.waitFor('one row', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    await tm.keys('Enter')
    t.equal(await tm.exitCode(), 0)
    t.match(tm.screen(), /^━━ Grok/m, 'the session shown')
    const r = await ferry(['--home', home, 'continue', '--with', 'claude-code'])
    t.equal(r.code, 2)
    t.match(r.stderr, /continue: name the session to continue/)
  })

  t.test('--print: drawn on the terminal while stdout is a file; Enter prints the REF', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick --print > out`, { env: { FORCE_COLOR: '1' } })
    await tm.waitFor('the list', loaded)
    await tm.keys('g', 'r', 'o', 'k')
    await tm.waitFor('one row', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    const { execFileSync } = await import('node:child_process')
    t.match(execFileSync('tmux', ['-L', tm.socket, 'capture-pane', '-p', '-e', '-t', 't'], { encoding: 'utf8' }), /\x1b\[[0-9;]*7m/, 'FORCE_COLOR: the selected row in reverse video')
    await tm.keys('Enter')
    t.equal(await tm.exitCode(), 0)
    t.match(tm.file('out'), /^grok:01a1f84a-[0-9a-f-]+\n$/, 'the REF, one line')
  })

  t.test('a HOME with no sessions says so', async (t) => {
    const home = tempDir(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out`, { env: { NO_COLOR: '1' } })
    const s = await tm.waitFor('the empty list', /no sessions found \(stores looked at: /)
    t.match(s, /^pick> _\s+0\/0\s*$/m)
    await tm.keys('Enter', 'C-o', 'Escape')
    t.equal(await tm.exitCode(), 0)
    t.equal(tm.file('out'), '')
  })

  t.test('bash: Ctrl-G (completion --bind) inserts the REF picked on the command line', async (t) => {
    const home = sampleHome(t)
    const bin = tempDir(t)
    writeFileSync(join(bin, 'ferry'), `#!/bin/sh\nexec ${shq(process.execPath)} ${shq(FERRY)} --home ${shq(home)} "$@"\n`)
    chmodSync(join(bin, 'ferry'), 0o755)
    const tm = new Tmux(t)
    tm.start(`PATH=${shq(bin)}:$PATH PS1='$ ' bash --norc --noprofile`, { env: { NO_COLOR: '1' } })
    await tm.waitFor('the prompt', /^\$/m)
    tm.type('source <(ferry completion bash --bind)')
    await tm.keys('Enter')
    tm.type('echo picked=')
    await tm.keys('C-g')
    await tm.waitFor('the picker', loaded)
    await tm.keys('g', 'r', 'o', 'k')
    await tm.waitFor('one row', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    await tm.keys('Enter')
    await tm.waitFor('the REF on the command line', /^\$ echo picked=grok:01a1f84a-[0-9a-f-]+\s*$/m)
    await tm.keys('Enter')
    await tm.waitFor('the command run', /^picked=grok:01a1f84a-[0-9a-f-]+\s*$/m)
    t.pass('inserted at the cursor and run')
  })
}
