/**
 * Pages worth sharing (#46), as child processes on the demo session
 * (test/render/demo.jsonl, shaped like a Claude Code session: eight entries
 * of injected context, then calls, an error, two prompts) and Codex's
 * code-mode fixture: injected context is one summary line unless
 * --context, never a person's own words; a call and its result share one
 * card; times are local with the zone named and the machine time kept;
 * plurals; the title uncut; a code-mode script reads as its commands.
 * The same pages in Chromium: test/render/page-browser.test.ts.
 */
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, FIXTURE, kit, ROOT, tempDir } from '../kit.js'

const DEMO = join(ROOT, 'test/render/demo.jsonl')
const CAVEAT = '<local-command-caveat>'
const envTZ = (tz: string) => ({ env: { TZ: tz, NO_COLOR: '', FORCE_COLOR: '' } })

t.test('show: injected context is one summary line; --context shows it', async (t) => {
  const r = await ferry(['show', DEMO], envTZ('UTC'))
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^▸ 8 injected context entries \(--context to show\)$/m, 'one summary line for the eight entries')
  t.notMatch(r.stdout, /^#[1-8] /m, 'none of them numbered')
  t.notOk(r.stdout.includes(CAVEAT), 'nor their text')
  t.match(r.stdout, /^#9 user/m, 'the first prompt keeps its number (#9, as ranges count)')
  t.match(r.stdout, /── end: 20 messages, 4 tool calls, 1 error, 8 injected context$/m, 'counts, "1 error"')
  const all = await ferry(['show', DEMO, '--context'], envTZ('UTC'))
  t.match(all.stdout, /^#1 injected context \(command\)/m, '--context: numbered')
  t.ok(all.stdout.includes(CAVEAT), 'in full')
  t.notMatch(all.stdout, /injected context entries \(--context/, 'no summary line')
})

t.test('context never hides what a person typed', async (t) => {
  const dir = tempDir(t)
  const sid = 'ferry:mixed-1'
  const rec = (id: string, o: { kind: string }) => JSON.stringify({ kind: o.kind, sid, id: `${sid}:${id}`, ...o })
  const file = join(dir, 'mixed.jsonl')
  writeFileSync(file, [
    rec('s', { kind: 'session', ferry: '1.0', source: { harness: 'ferry', locator: {} }, native_id: 'mixed-1', title: 'mixed' }),
    // Block-level context (the model marks the injected part of a message): only that block folds.
    rec('m1', { kind: 'message', role: 'user', ts: null, blocks: [{ type: 'text', text: '<system-reminder>injected-words</system-reminder>', context: true }, { type: 'text', text: 'typed-words-one' }] }),
    rec('m2', { kind: 'message', role: 'assistant', ts: null, blocks: [{ type: 'tool_use', id: 'c1', name: 'clear', input: { args: '' } }] }),
    // A command's printed output, flagged context as a whole, answers a call that is shown.
    rec('m3', { kind: 'message', role: 'user', ts: null, context: true, context_kind: 'command', blocks: [{ type: 'tool_result', tool_use_id: 'c1', content: 'command-output-words' }] }),
    rec('m4', { kind: 'message', role: 'user', ts: null, blocks: [{ type: 'text', text: 'typed-words-two' }] }),
  ].join('\n') + '\n')
  for (const [cmd, extra] of [['show', ['--tools', 'full']], ['render', ['--format', 'html']]] as const) {
    const r = await ferry([cmd, file, ...extra])
    t.equal(r.code, 0, r.stderr)
    for (const w of ['typed-words-one', 'typed-words-two', 'command-output-words']) t.ok(r.stdout.includes(w), `${cmd}: ${w} shown`)
    t.notOk(r.stdout.includes('injected-words'), `${cmd}: the injected block is folded`)
    t.match(r.stdout, /1 injected context entry/, `${cmd}: and counted`)
  }
})

t.test('HTML: cards, contents, local times, plurals, the title uncut, one marker', async (t) => {
  const dir = tempDir(t)
  const title = `${'A very long title word '.repeat(14)}ends here`
  const lines = readFileSync(DEMO, 'utf8').trim().split('\n')
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), title })
  const file = join(dir, 'demo.jsonl')
  writeFileSync(file, lines.join('\n') + '\n')
  const out = join(dir, 'page.html')
  writeFileSync(out, 'old')
  const r = await ferry(['render', file, '--format', 'html', '--out', out, '--force'], envTZ('Europe/Berlin'))
  t.equal(r.code, 0, r.stderr)
  const html = readFileSync(out, 'utf8')
  t.not(html, 'old', '--force replaced the file')
  // (Until #46's redact fix lands, redaction may still append " [redacted]" to it.)
  t.ok(html.includes(`<title>${title}`) && html.includes(`<h1>${title}`), `the title whole (${title.length} characters)`)
  t.match(html, /<p class="hidden-context">8 injected context entries not shown/, 'context: one line')
  t.notOk(html.includes('local-command-caveat'), 'and not its text')
  t.match(html, /<details class="call failed" id="call-toolu_02Bash"><summary><b>Bash<\/b> <code>npm test<\/code> <span class="status">✗ error · exit 127 · 5 lines<\/span><\/summary>[\s\S]*?<div class="result" id="m13" data-n="13">[\s\S]*?jest: not found[\s\S]*?<\/details>/, 'the call and its result (#13) in one card')
  t.match(html, /<span class="status">1 line<\/span>/, '"1 line"')
  t.notMatch(html, /\b1 (lines|errors|messages|tool calls|turns)\b/, 'no "1 lines"')
  t.match(html, /<time datetime="2026-11-05T14:02:02\.000Z" title="Thu, 5 Nov 2026, 15:02:02 CET">Thu, 5 Nov 2026, 15:02:02 CET<\/time>/, 'local time with its zone, the instant in datetime')
  t.match(html, /<time datetime="2026-11-05T14:02:04\.000Z" title="[^"]+">15:02:04<\/time>/, 'the same day: the clock time')
  t.match(html, /<nav class="toc" aria-label="Turns"><details open><summary>Contents: 2 turns<\/summary><ol><li><a href="#m9">#9<\/a>/, 'contents: the two prompts')
  t.notMatch(html, /<summary>\s*[▸▶►]/, 'no second disclosure marker in a summary')
  const ny = await ferry(['render', file, '--format', 'md'], envTZ('America/New_York'))
  t.match(ny.stdout, /### 9 · user · Thu, 5 Nov 2026, 09:02:02 GMT-5/, 'Markdown: local time too (TZ=America/New_York)')
  t.match(ny.stdout, /output of Read, 1 line</, 'Markdown plurals')
  t.match(ny.stdout, /_8 injected context entries not shown/, 'Markdown: context folded')
})

t.test("Codex code mode: a script's calls read as the commands they run", async (t) => {
  const home = kit('codex').home(t, 'codemode')
  const ref = `codex:${FIXTURE.codex.codemode}`
  const show = await ferry(['--home', home, 'show', ref], envTZ('UTC'))
  t.equal(show.code, 0, show.stderr)
  t.match(show.stdout, /▸ exec_command cat package\.json; npm test$/m, 'terminal: the commands')
  t.notMatch(show.stdout, /▸ exec const a = await/, 'not the script')
  const html = await ferry(['--home', home, 'render', ref, '--format', 'html'], envTZ('UTC'))
  t.match(html.stdout, /<summary><b>exec_command<\/b> <code>cat package\.json; npm test<\/code>/, 'HTML: the card names the commands')
  t.match(html.stdout, /tools\.exec_command\(\{ cmd: \\?&quot;cat package\.json/, 'the script is its input')
})
