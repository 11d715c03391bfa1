/**
 * `ferry render` on every harness's fixture sessions, in both formats, as a
 * child process; redaction by default (the corpus's secret kinds, home
 * paths, e-mail addresses); hostile content never becomes markup; --out is
 * atomic.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ferry, tempDir } from '../kit.js'
import { corpus, SECRET_KIND_COUNT, survives } from '../../bench/redact-corpus.mjs'
import { fixtureSessions, HOME, hostileLines, PAYLOADS, writeHostile } from './sessions.js'

const sessions = await fixtureSessions()

t.test('the fixtures cover every harness with sessions in fixtures/home', async (t) => {
  t.ok(new Set(sessions.map((s) => s.harness)).size >= 6, `harnesses: ${[...new Set(sessions.map((s) => s.harness))].join(', ')}`)
})

for (const s of sessions) {
  t.test(`render ${s.ref}: md and html, every message anchored (--context), redacted`, async (t) => {
    for (const format of ['md', 'html']) {
      const r = await ferry(['--home', HOME, 'render', s.ref, '--format', format, '--context'])
      t.equal(r.code, 0, `${format} exit 0 ${r.stderr}`)
      t.equal(r.stderr, '', `${format}: nothing on stderr`)
      const total = [...s.messages.values()].reduce((a, b) => a + b, 0)
      const anchors = [...r.stdout.matchAll(/id="((?:s\d+-)?m\d+)"/g)].map((m) => m[1])
      t.equal(anchors.length, total, `${format}: one anchor per message (${total})`)
      t.ok(anchors.includes('m1'), 'the first message is #m1')
      t.notMatch(r.stdout, /\/home\/dev\b/, `${format}: home paths redacted`)
      t.match(r.stdout, /redacted: /, 'the footer says what was redacted')
      t.match(r.stdout, /rendered by ferry \d/, 'and the version')
      if (format === 'html') {
        t.match(r.stdout, /^<!DOCTYPE html>/, 'a whole document')
        t.match(r.stdout, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/, 'with a strict CSP')
        t.equal([...r.stdout.matchAll(/<script/g)].length, 1, 'one script: ours')
      }
    }
  })
}

t.test('planted secrets of every corpus kind, e-mails and home paths are gone from both formats', async (t) => {
  const snips = corpus(SECRET_KIND_COUNT * 3, 5).filter((_s, i) => i % 3 !== 2)
  const kinds = new Set(snips.flatMap((s) => s.secrets.map((p) => p.kind)))
  t.equal(kinds.size, SECRET_KIND_COUNT, 'every kind is planted')
  const dir = tempDir(t)
  const file = writeHostile(dir, snips.map((s) => s.text))
  for (const format of ['md', 'html']) {
    const r = await ferry(['render', file, '--format', format])
    t.equal(r.code, 0, r.stderr)
    // Runs that also occur around the secrets (`https://`, `-----BEGIN`) prove nothing.
    const all = snips.map((s) => s.text).join(' ')
    const leaked = snips.flatMap((sn) => sn.secrets.filter((p) => survives(p.value, r.stdout, all.split(p.value).join(''))).map((p) => p.kind))
    t.same(leaked, [], `${format}: no secret survives`)
    t.notMatch(r.stdout, /alice\.smith@corp-mail\.net/, 'e-mail redacted')
    t.notMatch(r.stdout, /\/home\/alice/, 'home path redacted')
    t.match(r.stdout, /redacted: .*email ×\d+/, 'the footer counts by kind')
    t.match(r.stdout, /home-path ×\d+/)
  }
  const off = await ferry(['render', file, '--format', 'md', '--no-redact'])
  t.equal(off.code, 0)
  t.match(off.stderr, /warning: --no-redact/, '--no-redact warns')
  t.match(off.stdout, /alice\.smith@corp-mail\.net/, 'and leaves the text alone')
  t.match(off.stdout, /not redacted/, 'the footer says so')
})

t.test('hostile content: markup is text, broken text is repaired, huge parts are cut visibly', async (t) => {
  const dir = tempDir(t)
  const file = writeHostile(dir)
  const html = await ferry(['render', file, '--format', 'html', '--no-redact'])
  t.equal(html.code, 0, html.stderr)
  const doc = html.stdout
  t.equal([...doc.matchAll(/<script/gi)].length, 1, 'no planted <script> element')
  t.notMatch(doc, /<img src=x/i, 'no planted <img>')
  t.notMatch(doc, /<[a-z][^>]*\son(error|load)=/i, "no event handler attribute")
  t.notMatch(doc, /href="javascript:/i, 'no javascript: link')
  t.notMatch(doc, /tracker\.example\.net\/pixel\.png"/, 'a Markdown image is never loaded')
  t.notMatch(doc, /id="planted"/, 'no planted element')
  t.notMatch(doc, /[\u0000\u001b]/, 'no NUL, no escape sequences')
  t.notMatch(doc, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone surrogate')
  t.match(doc, /more characters not shown/, 'the 300 kB output is cut with a marker')
  t.ok(doc.length < 400_000, `bounded document (${doc.length} chars)`)
  t.match(doc, /<img class="inline" alt="image\/png, [^"]+" src="data:image\/png;base64,/, 'a small PNG inline')
  t.match(doc, /\[image: image\/svg\+xml, /, 'an SVG is a placeholder')
  t.match(doc, /\[image: image\/png, 2\.\d MiB\]/, 'a huge image is a placeholder with its size')
  t.match(doc, /compaction \(auto, 12,345 tokens before\)/, 'compaction boundary visible')
  const strip = await ferry(['render', file, '--format', 'html', '--images', 'strip', '--no-redact'])
  t.notMatch(strip.stdout, /data:image/, '--images strip')

  const md = await ferry(['render', file, '--format', 'md', '--no-redact'])
  t.equal(md.code, 0, md.stderr)
  const text = md.stdout
  // Outside code fences, no tag of the session opens: every `<` there is ours.
  const outside = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '')
  const tags = [...outside.matchAll(/<\/?([a-z]+)/gi)].map((m) => m[1]!.toLowerCase())
  t.same([...new Set(tags)].filter((x) => !['details', 'summary', 'a', 'b', 'code', 'sub'].includes(x)), [], 'only our own tags outside fences')
  t.notMatch(outside, /<script|<img|<svg/i, 'planted tags are escaped')
  t.match(text, /``````\n[^`]/, 'a fence longer than the five-backtick run inside')
  t.notMatch(text, /[\u0000\u001b]/)
  t.match(text, /^### 1 · user/m, 'headings per turn')
})

t.test('--out writes atomically; ranges and transforms chain', async (t) => {
  const dir = tempDir(t)
  const file = writeHostile(dir)
  const out = join(dir, 'doc.html')
  const r = await ferry(['render', `${file}#2-3`, '--format', 'html', '--out', out, '--truncate', '--tool-output 100'])
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stdout, '')
  const doc = readFileSync(out, 'utf8')
  t.same([...doc.matchAll(/id="(m\d+)"/g)].map((m) => m[1]), ['m2', 'm3'], 'only #2-3')
  t.match(doc, /truncated/, 'the truncate transform ran')
  t.same(readdirSync(dir).sort(), ['doc.html', 'hostile.jsonl'], 'no temp file left')
  const again = await ferry(['render', file, '--format', 'html', '--out', out])
  t.not(again.code, 0, 'an existing file is not overwritten')
  t.match(again.stderr, /exists/)
  const bad = await ferry(['render', file, '--format', 'pdf'])
  t.equal(bad.code, 2, 'unknown format: usage error')
  t.notMatch(bad.stderr, /\n\s+at /, 'no stack trace')
})

t.test('bad input: the error names file and line, the good records still render', async (t) => {
  const dir = tempDir(t)
  const lines = hostileLines()
  lines.splice(2, 0, '{"kind":"message", not json')
  const file = join(dir, 'bad.jsonl')
  writeFileSync(file, lines.join('\n') + '\n')
  const r = await ferry(['render', file, '--format', 'md', '--no-redact'])
  t.equal(r.code, 1, 'exit 1')
  t.match(r.stderr, new RegExp(`bad\\.jsonl:3`), 'file and line named')
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace')
  // #4 is injected context: one summary line unless --context.
  for (const n of [1, 2, 3, 5]) t.match(r.stdout, new RegExp(`id="m${n}"`), `message ${n} still rendered`)
  t.ok(existsSync(file))
  void PAYLOADS
})
