/**
 * The rendered HTML in a real browser (Debian's chromium, driven by
 * puppeteer-core; launched once for this file): no console errors, no
 * network request besides the document itself, every message in the DOM,
 * and planted payloads never run. Keeps a screenshot in test/artefacts/.
 */
import t from 'tap'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser } from 'puppeteer-core'
import { ferry, ROOT, tempDir } from '../kit.js'
import { fixtureSessions, HOME, writeHostile } from './sessions.js'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const ARTEFACTS = join(ROOT, 'test', 'artefacts')

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`)
} else {
  const dir = tempDir(t, 'ferry-browser-')
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: join(dir, 'profile'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  t.teardown(() => browser.close())

  /** Opens `file`; every request but the document is aborted and recorded. */
  async function load(file: string) {
    const page = await browser.newPage()
    const errors: string[] = []
    const requests: string[] = []
    const url = pathToFileURL(file).href
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`)
      void d.dismiss()
    })
    await page.setRequestInterception(true)
    page.on('request', (req) => {
      // The document and its inline data: images are not network requests.
      if (req.url() === url || req.url().startsWith('data:')) return void req.continue()
      requests.push(req.url())
      void req.abort()
    })
    await page.goto(url, { waitUntil: 'load' })
    return { page, errors, requests }
  }

  async function render(args: string[], name: string): Promise<string> {
    const out = join(dir, name)
    const r = await ferry([...args, '--format', 'html', '--out', out])
    if (r.code !== 0) throw new Error(`render failed: ${r.stderr}`)
    return out
  }

  const sessions = await fixtureSessions()
  for (const s of sessions) {
    t.test(`${s.ref} in chromium: loads clean, every message in the DOM`, async (t) => {
      const file = await render(['--home', HOME, 'render', s.ref, '--context'], `${s.harness}.html`)
      const { page, errors, requests } = await load(file)
      t.same(errors, [], 'no console errors')
      t.same(requests, [], 'no network requests')
      const total = [...s.messages.values()].reduce((a, b) => a + b, 0)
      t.equal(await page.$$eval('[data-n]', (els) => els.length), total, `${total} messages in the DOM (a result inside its call's card)`)
      t.equal(await page.$$eval('section.session', (els) => els.length), s.messages.size, 'one section per session')
      const expand = await page.$('#expand')
      t.ok(expand && !(await page.$eval('#expand', (b) => (b as HTMLButtonElement).hidden)), 'the inline script ran (CSP allows it by hash)')
      await expand!.click()
      t.ok(await page.$$eval('details', (d) => d.every((x) => (x as HTMLDetailsElement).open)), 'expand all opens every <details>')
      if (s === sessions[0]) {
        mkdirSync(ARTEFACTS, { recursive: true })
        await page.setViewport({ width: 900, height: 1000 })
        await page.screenshot({ path: join(ARTEFACTS, 'render.png'), fullPage: false })
        t.ok(existsSync(join(ARTEFACTS, 'render.png')), 'screenshot kept in test/artefacts/render.png')
      }
      await page.close()
    })
  }

  t.test('planted payloads are shown as text and never run', async (t) => {
    const hostile = writeHostile(dir)
    const file = await render(['render', hostile, '--no-redact'], 'hostile.html')
    const { page, errors, requests } = await load(file)
    t.same(errors, [], 'no console errors (nothing tried to run and was blocked)')
    t.same(requests, [], 'no network requests (the Markdown image, the <img src=x>)')
    t.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined, 'no payload set the global')
    t.equal(await page.$('#planted'), null, 'no planted element')
    t.equal(await page.$$eval('script', (s) => s.length), 1, 'one script element: ours')
    t.equal(await page.$$eval('a[href^="javascript:" i]', (a) => a.length), 0, 'no javascript: link')
    t.equal(await page.$$eval('[onerror],[onload]', (a) => a.length), 0, 'no event handler attributes')
    t.equal(await page.$$eval('[data-n]', (els) => els.length), 4, 'every message in the DOM but the injected context (#4)')
    const text = await page.evaluate(() => document.body.innerText)
    t.match(text, /1 injected context entry not shown/, 'which is one line')
    for (const p of ['<script>window.__pwned = "script"</script>', '<img src=x onerror=', 'javascript:window.__pwned', '</details></pre></article>', '--><script>']) t.ok(text.includes(p), `shown as text: ${p}`)
    t.match(await page.title(), /^<script>/, 'the title is text too')
    // Clicking everything: a javascript: link that slipped through would run now.
    await page.$$eval('a', (as) => as.forEach((a) => (a as HTMLAnchorElement).href.startsWith('#') || a.getAttribute('href')?.startsWith('#') ? (a as HTMLAnchorElement).click() : undefined))
    await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)))
    t.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined, 'still nothing ran with every <details> open')
    t.same(errors, [])
    writeFileSync(join(dir, 'done'), '')
    await page.close()
  })
}
