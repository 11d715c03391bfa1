// #47: hostile sessions through `render` (HTML, opened in headless Chromium, Debian's `chromium`
// driven by puppeteer-core as test/render/browser.test.ts does) and `show` (on a pseudo-terminal,
// through script(1)). Each run plants a random handful of payloads (script tags, event handlers,
// javascript: and data: URLs, SVG with script, Markdown links and images, CSS and meta tricks, a
// huge line, control bytes, bidi overrides) in random places of a session, each next to a word of
// the user's. What must hold: no payload runs (no global set, no title changed, no dialog), no
// request leaves the page (a loopback server and the page's own request log both listen), every
// user word is in the page's visible text, and `show` sends none of the session's escape sequences
// to the terminal. Counted: crashes, hangs, lost (a user word missing), escapes (a payload that ran,
// a request made, a CSP violation, an escape sequence from the session on the terminal).
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FERRY, judge, oneLiners, pick, run } from './proc.mjs'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const TIMEOUT = 60_000

/** Payloads; `P` becomes the loopback server's origin. Each would set window.__pwned, the title, or call home. */
const PAYLOADS = [
  `<script>window.__pwned='script';document.title='PWNED';fetch('P/script')</script>`,
  `<img src=x onerror="window.__pwned='img'">`,
  `<img src="P/img">`,
  `[click](javascript:window.__pwned='mdlink')`,
  `<a href="javascript:window.__pwned='a'">a</a>`,
  `<a href="jav&#x09;ascript:window.__pwned='entity'">e</a>`,
  `![pixel](P/md-image)`,
  `![svg](data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned='svgimg'"/>`).toString('base64')})`,
  `[data](data:text/html,<script>parent.__pwned='data'</script>)`,
  `<svg><script>window.__pwned='svg'</script></svg>`,
  `<svg onload="window.__pwned='svgonload'"></svg>`,
  `<iframe srcdoc="<script>parent.__pwned='srcdoc'</script>"></iframe>`,
  `<iframe src="P/iframe"></iframe>`,
  `<style>body{background:url(P/css)}</style>`,
  `<style>@import url(P/import);</style>`,
  `<link rel=stylesheet href="P/link">`,
  `<meta http-equiv="refresh" content="0;url=P/meta">`,
  `<base href="P/">`,
  `<object data="P/object"></object><embed src="P/embed">`,
  `<input autofocus onfocus="window.__pwned='autofocus'">`,
  `<details open ontoggle="window.__pwned='ontoggle'">`,
  `<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned='mxss'">`,
  `" onmouseover="window.__pwned='attr'" x="`,
  `'><script>window.__pwned='quote'</script>`,
  `</code></pre></details></article></section><script>window.__pwned='close'</script>`,
  `--><script>window.__pwned='comment'</script><!--`,
  `</style></script></textarea></title><script>window.__pwned='raw'</script>`,
  `<div style="position:fixed;inset:0;background-image:url(P/fixed)">cover</div>`,
  `{{constructor.constructor('window.__pwned="template"')()}}`,
  `\u202eevil\u202c \u2066isolate\u2069 \u200f`,
  `\u001b]0;PWNED\u0007\u001b[2J\u001b[31mred\u001b[0m\u009b31m\u001bP+q\u001b\\\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\`,
  `\u0000\u0001\u0007\u0008\u007f\ud800`,
]
const HUGE = (rand) => 'x'.repeat(200_000 + Math.floor(rand() * 800_000))

/** The places a payload can go; each is a function from (text) to a patch of the session. */
const PLACES = ['user', 'assistant', 'thinking', 'tool-input', 'tool-result', 'title', 'summary', 'tool-name', 'model', 'cwd']

let browser = null
let server = null
let hits = []
let origin = ''

async function setup() {
  if (browser) return
  server = createServer((req, res) => {
    hits.push(req.url)
    res.end('')
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${server.address().port}`
  const { default: puppeteer } = await import('puppeteer-core')
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** Closes the browser and the server (surfaces.mjs calls it when the campaign ends). */
export async function closeRender() {
  await browser?.close().catch(() => {})
  server?.close()
  browser = null
  server = null
  canaryChecked = false
}

/** A session with payloads in random places; returns its lines and the user's words that must be seen. */
function hostile(rand) {
  const sid = 'ferry:hostile-fuzz'
  const base = (id) => ({ sid, id: `${sid}:${id}` })
  const words = []
  const word = () => {
    const w = `word${Math.floor(rand() * 1e9).toString(36)}`
    words.push(w)
    return w
  }
  const at = {}
  const n = 2 + Math.floor(rand() * 6)
  for (let i = 0; i < n; i++) {
    const place = pick(rand, PLACES)
    const p = rand() < 0.1 ? HUGE(rand) : pick(rand, PAYLOADS).replaceAll('P/', `${origin}/`)
    at[place] = `${at[place] ?? ''} ${p}`
  }
  const userWord = word()
  const asstWord = word()
  const resultWord = word()
  const recs = [
    { kind: 'session', ferry: '1.0', ...base('session'), source: { harness: 'ferry', locator: {} }, native_id: 'hostile-fuzz', title: `title ${at.title ?? ''}`, cwd: `/home/alice/p${at.cwd ?? ''}`, model: `m${at.model ?? ''}`, created_at: '2026-11-01T10:00:00.000Z' },
    { kind: 'message', ...base('m1'), role: 'user', ts: '2026-11-01T10:00:01.000Z', blocks: [{ type: 'text', text: `${userWord} ${at.user ?? ''} end of ${userWord}` }] },
    {
      kind: 'message',
      ...base('m2'),
      role: 'assistant',
      ts: '2026-11-01T10:00:02.000Z',
      blocks: [
        { type: 'thinking', text: `thinking ${at.thinking ?? ''}` },
        { type: 'text', text: `${asstWord} ${at.assistant ?? ''}` },
        { type: 'tool_use', id: 'call_1', name: `Bash${at['tool-name'] ?? ''}`, input: { command: `echo ${at['tool-input'] ?? ''}` } },
      ],
    },
    { kind: 'message', ...base('m3'), role: 'user', ts: '2026-11-01T10:00:03.000Z', blocks: [{ type: 'tool_result', tool_use_id: 'call_1', content: `${resultWord} ${at['tool-result'] ?? ''}` }] },
    { kind: 'boundary', ...base('b1'), type: 'compaction', trigger: 'auto', summary: `summary ${at.summary ?? ''}` },
    { kind: 'message', ...base('m4'), role: 'user', ts: '2026-11-01T10:00:04.000Z', blocks: [{ type: 'text', text: `last ${word()}` }] },
    { kind: 'end', ...base('end'), complete: true },
  ]
  return { lines: recs.map((r) => JSON.stringify(r)), words, places: Object.keys(at) }
}

/** Opens `file` in Chromium: what ran, what was requested, what the page shows. */
async function load(file) {
  const page = await browser.newPage()
  const requests = []
  const errors = []
  const url = pathToFileURL(file).href
  try {
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`)
      void d.dismiss()
    })
    await page.setRequestInterception(true)
    page.on('request', (req) => {
      if (req.url() === url || req.url().startsWith('data:image/png')) return void req.continue()
      requests.push(req.url())
      // Let it reach the loopback server: a request that gets out is counted there too.
      void req.continue()
    })
    await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT })
    // Open everything a reader would open, and hover and focus what can be: a handler that slipped through runs now.
    await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)))
    await page.$$eval('button', (bs) => bs.forEach((b) => b.click()))
    await new Promise((r) => setTimeout(r, 200))
    const pwned = await page.evaluate(() => window.__pwned ?? null)
    const title = await page.title()
    const text = await page.evaluate(() => document.body?.innerText ?? '')
    return { pwned, title, text, requests, errors }
  } finally {
    await page.close().catch(() => {})
  }
}

/** `show` on a pseudo-terminal (script(1)); resolves what the terminal received. */
function showOnPty(file, dir) {
  return new Promise((res) => {
    const log = join(dir, 'typescript')
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(FERRY)} show ${JSON.stringify(file)} --no-pager`
    const env = { ...process.env, TERM: 'xterm-256color', COLUMNS: '100', LINES: '40' }
    delete env.NO_COLOR
    const child = spawn('script', ['-qefc', cmd, log], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = Buffer.alloc(0)
    let hung = false
    child.stdout.on('data', (b) => (out = Buffer.concat([out, b])))
    child.stderr.on('data', () => {})
    const timer = setTimeout(() => {
      hung = true
      child.kill('SIGKILL')
    }, TIMEOUT)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      res({ code, signal, out, hung, stderr: '' })
    })
  })
}

/** Escape sequences a terminal acts on, other than ferry's own colours (SGR): the session's, if any got through. */
function foreignEscapes(buf) {
  const s = buf.toString('latin1')
  const found = []
  const re = /\x1b(\[[0-9;]*m)?|[\x07\x9b\x90\x9d]/g
  let m
  while ((m = re.exec(s))) if (!m[1]) found.push(JSON.stringify(s.slice(m.index, m.index + 12)))
  // C1 controls encoded in UTF-8 (U+0080–U+009F), and the bidi overrides that reorder what follows.
  const u = buf.toString('utf8')
  for (const c of u.match(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/g) ?? []) found.push(`U+${c.codePointAt(0).toString(16).padStart(4, '0')}`)
  return found
}

/** The detectors see a payload that runs and a request that leaves: a canary page must trip both, once per campaign. */
let canaryChecked = false
async function canary(dir) {
  if (canaryChecked) return
  const file = join(dir, 'canary.html')
  writeFileSync(file, `<title>t</title><p>word1</p><script>window.__pwned='canary'</script><img src="${origin}/canary">`)
  hits = []
  const got = await load(file)
  await new Promise((r) => setTimeout(r, 200))
  if (got.pwned !== 'canary' || !hits.includes('/canary') || !got.text.includes('word1')) throw new Error(`the render detectors are blind: ${JSON.stringify({ ...got, hits })}`)
  const shown = foreignEscapes(Buffer.from('a\x1b]0;x\x07 \u202e'))
  if (shown.length < 2) throw new Error('the terminal detector is blind')
  canaryChecked = true
}

export const RENDER_SCENARIOS = {
  async 'render and show: hostile sessions in Chromium and on a terminal'(rand, dir, counts, notes) {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package`)
    await setup()
    await canary(dir)
    hits = []
    const work = join(dir, 'render')
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    const { lines, words, places } = hostile(rand)
    const file = join(work, 'hostile.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    const what = `payloads in ${places.join(', ')}`
    const out = join(work, 'out.html')
    const flags = [rand() < 0.5 ? '--no-redact' : null, rand() < 0.5 ? '--context' : null].filter(Boolean)
    const r = await run(['render', file, '--format', 'html', '--out', out, ...flags], { timeout: TIMEOUT })
    judge(counts, notes, `render ${flags.join(' ')}`, r)
    oneLiners(counts, notes, 'render', r)
    if (r.code === 0) {
      const got = await load(out)
      if (got.pwned !== null || /PWNED/.test(got.title)) {
        counts.escapes++
        notes.push(`a payload ran: __pwned=${got.pwned}, title=${got.title.slice(0, 80)}`)
      }
      const calls = [...new Set([...got.requests, ...hits])]
      if (calls.length) {
        counts.escapes += calls.length
        notes.push(`requests left the page: ${calls.slice(0, 5).join(', ')}`)
      }
      if (got.errors.length) {
        counts.escapes++
        notes.push(`console errors (a payload that tried to run, or a CSP violation): ${got.errors.slice(0, 3).join(' | ').slice(0, 400)}`)
      }
      const missing = words.filter((w) => !got.text.includes(w))
      if (missing.length) {
        counts.lost += missing.length
        notes.push(`user words not in the page's visible text: ${missing.join(', ')}`)
      }
    } else notes.push(`render exit ${r.code}: ${r.stderr.slice(0, 300)}`), counts.crashes++
    const s = await showOnPty(file, work)
    judge(counts, notes, 'show on a terminal', { ...s, stderr: s.out.toString('utf8').includes('\n    at ') ? s.out.toString('utf8') : '' })
    if (!s.hung && s.code !== 0) {
      counts.crashes++
      notes.push(`show exit ${s.code}: ${s.out.toString('utf8').slice(0, 300)}`)
    }
    if (!s.hung) {
      const esc = foreignEscapes(s.out)
      if (esc.length) {
        counts.escapes += esc.length
        notes.push(`show sent the session's control sequences to the terminal: ${esc.slice(0, 5).join(' ')}`)
      }
      const text = s.out.toString('utf8').replace(/\x1b\[[0-9;]*m/g, '')
      const missing = words.filter((w) => !text.includes(w))
      if (missing.length) {
        counts.lost += missing.length
        notes.push(`show: user words not on the terminal: ${missing.join(', ')}`)
      }
    }
    if (notes.length) notes.unshift(what)
  },
}
