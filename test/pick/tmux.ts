/**
 * A real terminal for the picker's tests: a tmux server of the test's own
 * (its own socket, no user config), one window of a given size running a
 * shell command; keys go in with send-keys, the screen comes back with
 * capture-pane. Waits poll the screen and fail showing what was on it.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { scaled, tempDir, timedOutNote, type T } from '../kit.js'

export const hasTmux = (): boolean => spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0

let n = 0

export class Tmux {
  readonly socket = `ferry-test-${process.pid}-${n++}`
  readonly dir: string

  constructor(t: T) {
    this.dir = tempDir(t, 'ferry-tmux-')
    t.teardown(() => spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' }))
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' })
  }

  /**
   * Runs `script` (sh) in a WIDTH×HEIGHT window; when it ends its exit code
   * is in `rc` (see exitCode()) and the window stays, so the screen can still be read.
   */
  start(script: string, o: { width?: number; height?: number; env?: Record<string, string> } = {}): void {
    const env = Object.entries({ TERM: 'xterm-256color', ...o.env }).map(([k, v]) => `export ${k}=${shq(v)}\n`).join('')
    const file = join(this.dir, 'run.sh')
    writeFileSync(file, `${env}cd ${shq(this.dir)}\n${script}\necho $? > ${shq(join(this.dir, 'rc'))}\nexec sleep 3600\n`)
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-x', String(o.width ?? 80), '-y', String(o.height ?? 24), '-s', 't', `sh ${shq(file)}`)
    // OSC 52 from the program lands in a tmux buffer (what Ctrl-Y copies).
    this.tmux('set', '-g', 'set-clipboard', 'on')
  }

  /** Sends keys one at a time (tmux key names: Enter, Escape, C-o, Down…), as a person types them. */
  async keys(...keys: string[]): Promise<void> {
    for (const k of keys) {
      this.tmux('send-keys', '-t', 't', k)
      await sleep(60)
    }
  }

  /** Sends text literally, in one write. */
  type(text: string): void {
    this.tmux('send-keys', '-t', 't', '-l', text)
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 't')
  }

  lines(): string[] {
    return this.screen().split('\n')
  }

  resize(width: number, height: number): void {
    this.tmux('resize-window', '-t', 't', '-x', String(width), '-y', String(height))
  }

  buffer(): string {
    return this.tmux('show-buffer')
  }

  /** Polls the screen until `test` holds; fails with the screen after `ms` (scaled for load). */
  async waitFor(what: string, test: RegExp | ((screen: string) => boolean), ms = 20_000): Promise<string> {
    const until = Date.now() + scaled(ms)
    let s = ''
    for (;;) {
      s = this.screen()
      if (typeof test === 'function' ? test(s) : test.test(s)) return s
      if (Date.now() > until) throw new Error(`waiting for ${what}: ${timedOutNote(ms)}; the screen:\n${s}`)
      // Each look is a tmux client process: 5 a second keeps the waiting cheap.
      await sleep(200)
    }
  }

  /** The script's exit code once it has ended. */
  async exitCode(ms = 20_000): Promise<number> {
    const file = join(this.dir, 'rc')
    const until = Date.now() + scaled(ms)
    while (!existsSync(file) || readFileSync(file, 'utf8') === '') {
      if (Date.now() > until) throw new Error(`waiting for the program to exit: ${timedOutNote(ms)}; the screen:\n${this.screen()}`)
      await sleep(200)
    }
    return Number(readFileSync(file, 'utf8').trim())
  }

  file(name: string): string {
    const p = join(this.dir, name)
    return existsSync(p) ? readFileSync(p, 'utf8') : ''
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}
