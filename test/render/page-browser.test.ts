/**
 * The pages of #46 in a real browser (Debian's chromium through
 * puppeteer-core): each call and its result are one card element, the
 * table of contents links to elements that exist, times carry their instant
 * and their zone, plurals are right, every collapsible has one disclosure
 * marker, injected context is one line, and a Codex code-mode script reads
 * as the commands it runs.
 */
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { ferry, FIXTURE, kit, ROOT, tempDir } from '../kit.js'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const DEMO = join(ROOT, 'test/render/demo.jsonl')

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`)
} else {
  const dir = tempDir(t, 'ferry-page-')
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: join(dir, 'profile'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  t.teardown(() => browser.close())

  async function open(args: string[], name: string): Promise<{ page: Page; errors: string[] }> {
    const out = join(dir, name)
    const r = await ferry([...args, '--format', 'html', '--out', out], { env: { TZ: 'Europe/Berlin' } })
    if (r.code !== 0) throw new Error(`render failed: ${r.stderr}`)
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.setViewport({ width: 900, height: 1000 })
    await page.goto(pathToFileURL(out).href, { waitUntil: 'load' })
    return { page, errors }
  }

  t.test('the demo session: cards, contents, times, plurals, markers, context', async (t) => {
    const { page, errors } = await open(['render', DEMO], 'demo.html')
    t.same(errors, [], 'no console errors')
    const cards = await page.$$eval('details.call', (ds) =>
      ds.map((d) => ({
        id: d.id,
        summary: (d.querySelector(':scope > summary') as HTMLElement).innerText.trim(),
        result: d.querySelector(':scope > .result[data-n]')?.getAttribute('data-n') ?? null,
      })),
    )
    t.same(
      cards.map((c) => [c.summary, c.result]),
      [
        ['Read ~/demo-app/package.json 1 line', '11'],
        ['Bash npm test ✗ error · exit 127 · 5 lines', '13'],
        ['Bash npm install --save-dev jest && npm test exit 0 · 7 lines', '15'],
        ['Glob test/**/*.test.js 1 line', '19'],
      ],
      'each call and its result (the result message #N inside) are one card element',
    )
    t.equal(await page.$$eval('article.results', (a) => a.length), 0, 'no result stands alone')
    t.equal(await page.$$eval('details.call.failed', (d) => d.map((x) => x.id).join()), 'call-toolu_02Bash', 'the failed call is marked')

    const toc = await page.$$eval('nav.toc a[href^="#"]', (as) => as.map((a) => ({ href: a.getAttribute('href')!, text: (a.parentElement as HTMLElement).innerText, found: document.getElementById(a.getAttribute('href')!.slice(1)) !== null })))
    t.same(toc.map((e) => e.href), ['#m9', '#m17'], 'contents: the two prompts')
    t.ok(toc.every((e) => e.found), 'every contents link resolves to an element')
    t.match(toc[0]!.text, /Why does `npm test` fail/, 'named by the prompt')
    const navTop = await page.$eval('nav.toc', (n) => n.getBoundingClientRect().top)
    const mainTop = await page.$eval('main', (n) => n.getBoundingClientRect().top)
    t.ok(navTop < mainTop, 'the contents come before the conversation on screen (written last, placed first)')
    await page.click('nav.toc a[href="#m17"]')
    t.equal(await page.evaluate(() => location.hash), '#m17', 'a contents link jumps')

    const times = await page.$$eval('main time', (ts) => ts.map((x) => ({ dt: x.getAttribute('datetime'), title: x.getAttribute('title'), text: (x as HTMLElement).innerText })))
    t.ok(times.length >= 12 && times.every((x) => x.dt && !Number.isNaN(Date.parse(x.dt))), `${times.length} times, each with its instant in datetime`)
    t.ok(times.every((x) => / CET$/.test(x.title ?? '')), 'and the local time with its zone as the title')
    t.equal(times[0]!.text, 'Thu, 5 Nov 2026, 15:02:02 CET', 'the first in full, local (14:02 UTC is 15:02 in Berlin)')

    const body = await page.evaluate(() => document.body.innerText)
    t.match(body, /20 messages, 4 tool calls, 1 error, 8 injected context/, 'plurals: 1 error')
    t.notMatch(body, /\b1 (lines|errors|messages|tool calls|turns)\b/, 'never "1 lines"')
    t.match(body, /8 injected context entries not shown/, 'injected context is one line')
    t.notMatch(body, /local-command-caveat|SessionStart/, 'and none of its text')
    t.match(await page.$eval('h1', (h) => (h as HTMLElement).innerText), /so that the suite passes again/, 'the title to its end')

    // One marker: every summary shows the browser's own and starts with no marker of ours.
    const summaries = await page.$$eval('summary', (ss) => ss.map((s) => ({ display: getComputedStyle(s).display, text: (s as HTMLElement).innerText.trim() })))
    t.ok(summaries.length >= 6 && summaries.every((s) => s.display === 'list-item'), `${summaries.length} summaries, each with the browser's marker`)
    t.same(summaries.filter((s) => /^[▸▶►▾▼]/.test(s.text)), [], 'and no second one in the text')
    await page.close()
  })

  t.test('--context: the entries are in the page, numbered', async (t) => {
    const { page } = await open(['render', DEMO, '--context'], 'demo-context.html')
    t.same(await page.$$eval('article.context', (a) => a.map((x) => x.getAttribute('data-n'))), ['1', '2', '3', '4', '5', '6', '7', '8'])
    t.equal(await page.$('.hidden-context'), null, 'no summary line')
    await page.close()
  })

  t.test('Codex code mode reads as the commands it runs', async (t) => {
    const home = kit('codex').home(t, 'codemode')
    const { page, errors } = await open(['--home', home, 'render', `codex:${FIXTURE.codex.codemode}`], 'codemode.html')
    t.same(errors, [])
    const [card] = await page.$$eval('details.call', (ds) => ds.map((d) => (d.querySelector(':scope > summary') as HTMLElement).innerText.trim()))
    t.match(card, /^exec_command cat package\.json; npm test/, `the card: ${card}`)
    t.equal(await page.$$eval('details.call .result[data-n]', (r) => r.length), 1, 'with its result inside')
    await page.close()
  })
}
