#!/usr/bin/env node
// The screenshot in docs/render.md: the demo session (test/render/demo.jsonl,
// shaped like a Claude Code session) rendered by the built CLI and opened in
// headless Chromium (Debian's chromium, through puppeteer-core) with its
// failing call's card open. Times are in TZ (Europe/Berlin unless set).
//
//   node scripts/render-screenshot.mjs [OUT.png]     (default docs/img/render-after.png)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import puppeteer from 'puppeteer-core'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(process.argv[2] ?? join(root, 'docs/img/render-after.png'))
const dir = mkdtempSync(join(tmpdir(), 'ferry-shot-'))
try {
  const page = join(dir, 'demo.html')
  execFileSync(process.execPath, [join(root, 'bin/ferry.js'), 'render', join(root, 'test/render/demo.jsonl'), '--format', 'html', '--out', page], { env: { ...process.env, TZ: process.env.TZ ?? 'Europe/Berlin' }, stdio: 'inherit' })
  const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, userDataDir: join(dir, 'profile'), args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] })
  try {
    const tab = await browser.newPage()
    await tab.setViewport({ width: 900, height: 1100 })
    await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' })
    await tab.$$eval('details.call.failed', (ds) => ds.forEach((d) => (d.open = true)))
    await tab.screenshot({ path: out })
  } finally {
    await browser.close()
  }
  console.log(out)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
