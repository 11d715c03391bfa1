// `ferry pick` in a real terminal (tmux): type to filter, move, preview and
// scroll it, resize, Escape; and the key reader. `--print`, an empty HOME and
// the actions (show, continue, render, copy, full text, the shell key) are in
// pick-actions.test.ts, in the full suite (each case is a picker process).
import t from 'tap'
import { FERRY, sampleHome } from '../kit.js'
import { hasTmux, shq, Tmux } from './tmux.js'
import { listable } from '../../lib/harness/registry.js'

/** The sample HOME holds one session per listable harness (test/core/cli-store.test.ts). */
const N = listable().length

if (!hasTmux()) {
  t.skip('tmux is not installed (apt-get install tmux): the picker tests need a real terminal')
} else {
  /** The rows of the list pane (80×24: lines 1–9), the ones that show a session. */
  const rows = (s: string) => s.split('\n').slice(1, 10).filter((l) => /^[> ] \d\d-\d\d \d\d:\d\d /.test(l))
  const loaded = (n: number) => new RegExp(`^pick> .* ${n}/${n}\\s*$`, 'm')

  t.test('type to filter, move, preview, scroll, resize, Escape exits 0 without output', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out 2> err`, { env: { NO_COLOR: '1' } })
    let s = await tm.waitFor('every sample session', loaded(N))
    const all = rows(s)
    t.equal(all.length, Math.min(N, 9), 'one row per session (the list pane shows nine at 80×24)')
    const times = all.map((l) => l.slice(2, 13))
    t.same(times, [...times].sort().reverse(), 'newest first')
    t.match(all[0], /^> /, 'the first row is selected')
    t.notMatch(tm.file('out') + (await import('node:child_process')).execFileSync('tmux', ['-L', tm.socket, 'capture-pane', '-p', '-e', '-t', 't'], { encoding: 'utf8' }), /\x1b\[[0-9;]*m/, 'NO_COLOR: no colour on screen')

    await tm.keys('g', 'r', 'o', 'k')
    s = await tm.waitFor('the filter to leave one row', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    t.equal(rows(s).length, 1)
    t.match(rows(s)[0], /^> .* grok /)
    s = await tm.waitFor("grok's preview", /^━━ Grok/m)
    t.match(s.split('\n')[10], /^── grok:01a1f84a/, 'the rule names the selected session')

    await tm.keys('BSpace', 'BSpace', 'BSpace', 'BSpace')
    await tm.waitFor('the whole list again', new RegExp(`^pick> _\\s+${N}/${N}`, 'm'))
    await tm.keys('Down', 'Down')
    s = await tm.waitFor('the third row selected', (x) => /^> /.test(x.split('\n')[3] ?? ''))
    const agent = s.split('\n')[3]!.slice(14, 25).trim()
    s = await tm.waitFor('the preview of the third row', (x) => new RegExp(`^── ${agent}:`).test(x.split('\n')[10] ?? '') && /^━━ /m.test(x))
    await tm.keys('PageDown')
    s = await tm.waitFor('the preview scrolled', / 11-\d+\/\d+/)
    t.notMatch(s, /^━━ /m, 'the header scrolled away')

    tm.resize(100, 30)
    s = await tm.waitFor('the redraw at 100×30', (x) => /esc quit/.test(x.split('\n')[28] ?? ''))
    t.equal(s.split('\n')[0]!.length, 100, 'the prompt line spans the new width (count at column 100)')
    t.equal(rows(s.split('\n').slice(0, 12).join('\n')).length, Math.min(N, 9))

    await tm.keys('Escape')
    t.equal(await tm.exitCode(), 0, 'Escape: exit 0')
    t.equal(tm.file('out'), '', 'and nothing on stdout')
    t.equal(tm.file('err'), '', 'nor on stderr')
  })

  t.test('what is typed before the list is drawn is read first, in order', async (t) => {
    const home = sampleHome(t)
    const tm = new Tmux(t)
    tm.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out`, { env: { NO_COLOR: '1' } })
    // Typed at once, while Node and the picker start (the process's first read may come before or after).
    tm.type('grok')
    await tm.keys('Escape')
    t.equal(await tm.exitCode(), 0, 'Escape, typed after the text, ends the picker')
    t.equal(tm.file('out'), '')
    const tm2 = new Tmux(t)
    tm2.start(`node ${shq(FERRY)} --home ${shq(home)} pick > out`, { env: { NO_COLOR: '1' } })
    tm2.type('gro')
    await tm2.keys('k')
    await tm2.waitFor('the text typed early as the query', new RegExp(`^pick> grok.* 1/${N}`, 'm'))
    await tm2.keys('Escape')
    t.equal(await tm2.exitCode(), 0)
  })
}

// Keys that arrive in one read (a loaded machine, a paste) are taken one by one: text, then Ctrl-O, then Enter.
t.test('keys read together are split: text, control keys, sequences, Enter', async (t) => {
  const { parseKeys } = await import('../../lib/pick/keys.js')
  const k = (text: string, name?: string, ctrl = false) => ({ text, ctrl, meta: false, ...(name ? { name } : {}) })
  t.same(parseKeys('codex\x0f\r'), [k('codex'), k('o', undefined, true), k('', 'return')])
  t.same(parseKeys('x'), [k('x')])
  t.same(parseKeys('\x1b'), [k('', 'escape')], 'a lone Escape')
  t.same(parseKeys('\x1b[B'), [k('', 'down')])
  t.same(parseKeys('t\x1b[B\x1b[6~\x1b[99z\x1bOA\x1b'), [k('t'), k('', 'down'), k('', 'pageDown'), k('', 'up'), k('', 'escape')], 'an unknown sequence dropped')
  t.same(parseKeys('\x1bxa\x7f'), [k('a'), k('', 'backspace')], 'Alt+x is not Escape then x')
})
