#!/usr/bin/env node
// Makes docs/pick.png, the README's picture of `ferry pick`: the picker runs
// at 80×24 in a tmux window over a copy of the sample HOME (archived, then
// one session deleted from its store, so an [archive] row shows), the screen
// is captured with its colours (capture-pane -e), turned into HTML, and
// headless Chromium (Debian's `chromium`) takes the picture.
//   node scripts/pick-screenshot.mjs [OUT.png]
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = process.argv[2] ?? join(root, 'docs', 'pick.png')
const ferry = join(root, 'bin', 'ferry.js')
const dir = mkdtempSync(join(tmpdir(), 'ferry-pick-shot-'))
const home = join(dir, 'home')
cpSync(join(root, 'fixtures', 'home'), home, { recursive: true })
execFileSync(process.execPath, [ferry, '--home', home, 'archive', '--quiet'], { stdio: 'ignore' })
const codex = join(home, '.codex', 'sessions')
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
for (const f of walk(codex)) if (f.includes('019a3c1e')) rmSync(f)

const sock = `ferry-shot-${process.pid}`
const tmux = (...a) => execFileSync('tmux', ['-L', sock, ...a], { encoding: 'utf8' })
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
try {
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '24', '-s', 's', `TERM=xterm-256color FORCE_COLOR=1 ${process.execPath} ${ferry} --home ${home} pick; sleep 600`)
  const waitFor = async (re) => {
    for (let i = 0; i < 600; i++) {
      const s = tmux('capture-pane', '-p', '-t', 's')
      if (re.test(s)) return s
      await sleep(100)
    }
    throw new Error(`screenshot: the picker never showed ${re}`)
  }
  await waitFor(/ 6\/6\s*$/m)
  for (const k of ['t', 'e', 's', 't', 'Down']) {
    tmux('send-keys', '-t', 's', k)
    await sleep(150)
  }
  await waitFor(/^── .* 1-11\//m)
  await sleep(500)
  const screen = tmux('capture-pane', '-p', '-e', '-t', 's')
  writeFileSync(join(dir, 'pick.html'), page(screen))
} finally {
  spawnSync('tmux', ['-L', sock, 'kill-server'], { stdio: 'ignore' })
}
const r = spawnSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--screenshot=${out}`, '--window-size=648,454', `file://${join(dir, 'pick.html')}`], { stdio: 'ignore' })
rmSync(dir, { recursive: true, force: true })
if (r.status !== 0) throw new Error('screenshot: chromium failed')
console.log(out)

/** The captured screen (SGR colour codes) as an HTML page of a dark terminal. */
function page(screen) {
  const palette = ['#1e1e1e', '#e06c75', '#98c379', '#e5c07b', '#61afef', '#c678dd', '#56b6c2', '#dcdfe4']
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const lines = screen.replace(/\n$/, '').split('\n').slice(0, 24)
  const html = lines.map((line) => {
    let st = { fg: null, bold: false, dim: false, inv: false }
    let o = ''
    for (const part of line.split(/(\x1b\[[0-9;]*m)/)) {
      const m = /^\x1b\[([0-9;]*)m$/.exec(part)
      if (m) {
        const codes = m[1] === '' ? [0] : m[1].split(';').map(Number)
        for (let i = 0; i < codes.length; i++) {
          const c = codes[i]
          if (c === 0) st = { fg: null, bold: false, dim: false, inv: false }
          else if (c === 1) st.bold = true
          else if (c === 2) st.dim = true
          else if (c === 22) (st.bold = false), (st.dim = false)
          else if (c === 7) st.inv = true
          else if (c === 27) st.inv = false
          else if (c >= 30 && c <= 37) st.fg = palette[c - 30]
          else if (c >= 90 && c <= 97) st.fg = palette[c - 90]
          else if (c === 39) st.fg = null
          else if (c === 38 && codes[i + 1] === 5) (st.fg = palette[codes[i + 2] % 8]), (i += 2)
        }
        continue
      }
      if (!part) continue
      const fg = st.fg ?? '#dcdfe4'
      const style = st.inv ? `background:${fg};color:#1e1e1e` : `color:${fg}`
      o += `<span style="${style}${st.bold ? ';font-weight:bold' : ''}${st.dim ? ';opacity:.6' : ''}">${esc(part)}</span>`
    }
    return o
  })
  return `<!doctype html><meta charset="utf-8"><style>body{margin:0;background:#1e1e1e}pre{margin:10px;font:13px/18px "DejaVu Sans Mono",monospace;color:#dcdfe4}</style><pre>${html.join('\n')}</pre>`
}
