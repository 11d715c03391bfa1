/**
 * `ferry show` as a person runs it: piped (plain text, no pager) and on a
 * real pseudo-terminal (`script` from util-linux: colour, the terminal's
 * width, the pager), NO_COLOR, ranges, stdin, on every harness's fixtures.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FERRY, ferry, ROOT, scaled, tempDir, timedOutNote } from '../kit.js'
import { fixtureSessions, HOME, writeHostile } from './sessions.js'

const sessions = await fixtureSessions()
const ESC = /\u001b\[/
const strip = (s: string): string => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')
/** Message header lines: `#N who`, indented with bars under sub-agents. */
const headers = (s: string): number[] => [...strip(s).matchAll(/^(?:│ )*#(\d+) /gm)].map((m) => Number(m[1]))

/** Runs `ferry ARGS` on a pseudo-terminal of `cols` columns; returns what the terminal got. */
function onPty(args: string[], env: NodeJS.ProcessEnv, cols = 60): Promise<{ code: number | null; out: string }> {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`
  const cmd = `stty cols ${cols} rows 50; exec ${quote(process.execPath)} ${quote(FERRY)} ${args.map(quote).join(' ')}`
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env }
  for (const k of ['FORCE_COLOR', 'NO_COLOR', 'COLUMNS']) if (!(k in env)) delete clean[k]
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, env: clean, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')))
    child.stderr.on('data', (b: Buffer) => (out += b.toString('utf8')))
    const timer = setTimeout(() => {
      out += `\n[test kit] show on a pty: ${timedOutNote(60_000)}, killed\n`
      child.kill('SIGKILL')
    }, scaled(60_000))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

for (const s of sessions) {
  t.test(`show ${s.ref} piped: plain text, every message numbered`, async (t) => {
    const dir = tempDir(t)
    const mark = join(dir, 'pager-ran')
    const r = await ferry(['--home', HOME, 'show', s.ref, '--context'], { env: { NO_COLOR: '', FORCE_COLOR: '', PAGER: `touch ${mark}; cat` } })
    t.equal(r.code, 0, r.stderr)
    t.equal(r.stderr, '')
    t.notMatch(r.stdout, ESC, 'no colour when piped')
    t.notOk(existsSync(mark), 'no pager when piped')
    t.match(r.stdout, /^━━ \S/, 'a header line first')
    const total = [...s.messages.values()].reduce((a, b) => a + b, 0)
    t.same(headers(r.stdout).length, total, `${total} messages shown`)
    t.match(r.stdout, /── end: \d+ messages?, \d+ tool calls?/, 'counts at the end')
    // Without --context (one more process only where there is context to fold).
    if (s.context === 0) return
    const folded = await ferry(['--home', HOME, 'show', s.ref], { env: { NO_COLOR: '', FORCE_COLOR: '' } })
    t.equal(headers(folded.stdout).length, total - s.context, `without --context: ${total - s.context} numbered (${s.context} injected context entries folded)`)
    const summed = [...folded.stdout.matchAll(/^(?:│ )*▸ (\d+) injected context entr(?:y|ies) \(--context to show\)$/gm)].reduce((a, m) => a + Number(m[1]), 0)
    t.equal(summed, s.context, 'the summary lines count them all')
  })
}

t.test('on a terminal: colour, the terminal width, through the pager', async (t) => {
  const dir = tempDir(t)
  const mark = join(dir, 'pager-ran')
  const ref = sessions[0]!.ref
  const r = await onPty(['--home', HOME, 'show', ref, '--tools', 'full'], { PAGER: `touch ${mark}; cat` }, 60)
  t.equal(r.code, 0, r.out)
  t.match(r.out, ESC, 'coloured')
  t.ok(existsSync(mark), 'the pager ran')
  const long = strip(r.out).split('\n').filter((l) => [...l].length > 60)
  t.same(long, [], 'lines wrapped at the 60 columns of the terminal')
  t.ok(headers(r.out).length > 0, 'messages came through the pager')

  const nc = await onPty(['--home', HOME, 'show', ref, '--no-pager'], { NO_COLOR: '1', PAGER: `touch ${mark}-2; cat` }, 80)
  t.equal(nc.code, 0, nc.out)
  t.notMatch(nc.out, ESC, 'NO_COLOR: no colour on a terminal')
  t.notOk(existsSync(`${mark}-2`), '--no-pager: no pager')
  t.ok(headers(nc.out).length > 0)

  const forced = await ferry(['--home', HOME, 'show', ref], { env: { NO_COLOR: '', FORCE_COLOR: '1' } })
  t.match(forced.stdout, ESC, 'FORCE_COLOR colours a pipe')
})

t.test('ranges, thinking, tools, stdin and hostile text', async (t) => {
  const dir = tempDir(t)
  const file = writeHostile(dir)
  const a = await ferry(['show', `${file}#2-3`])
  t.equal(a.code, 0, a.stderr)
  t.same(headers(a.stdout), [2, 3], 'REF#2-3')
  const b = await ferry(['show', file, '--range', '2-3', '--no-thinking', '--tools', 'none'], { input: '' })
  t.same(headers(b.stdout), [2], '--range 2-3; #3 holds only a result, hidden with --tools none')
  t.notMatch(b.stdout, /∴/, '--no-thinking')
  t.notMatch(b.stdout, /▸/, '--tools none')
  const c = await ferry(['show', '-', '--tools', 'full'], { input: readFileSync(file) })
  t.equal(c.code, 0, c.stderr)
  t.same(headers(c.stdout), [1, 2, 3, 5], 'from stdin; #4 is injected context')
  t.notMatch(c.stdout, /[\u0000\u001b\u0007]/, 'NUL, escapes and BEL from the session are stripped')
  t.notMatch(c.stdout, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone surrogate')
  t.match(c.stdout, /more characters not shown/, 'the huge output is cut visibly')
  t.match(c.stdout, /^▸ 1 injected context entry \(--context to show\)$/m, 'injected context is one summary line')
  t.match(c.stdout, /── compaction \(auto, 12,345 tokens before\) ──/, 'compaction boundary')
  t.match(c.stdout, /\[image: image\/png, 2\.\d MiB\]/, 'an image is a placeholder with its size')
  t.match(c.stdout, /✗ error/, 'the error is marked')
  const bad = await ferry(['show', `${file}#9-3`])
  t.equal(bad.code, 2, 'a bad range is a usage error')
  t.match(bad.stderr, /^ferry: bad range/)
})
