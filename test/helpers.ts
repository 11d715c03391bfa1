/**
 * Shared test helpers: run the real CLI as a child process, make throwaway
 * homes. Nothing here stands in for ferry's own code.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const FERRY = join(ROOT, 'bin', 'ferry.js')
export const FIXTURES = join(ROOT, 'fixtures')

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  input?: string | Buffer
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Kill after this many ms (the test fails on a hang rather than timing out silently). */
  timeout?: number
}

/** Runs `node bin/ferry.js ...args` and collects its output. */
export function ferry(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [FERRY, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout ?? 60_000)
    child.on('error', rej)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      res({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(opts.input ?? '')
  })
}

/** A temp directory removed when the test ends. */
export function tempDir(t: { teardown: (fn: () => void) => void }, prefix = 'ferry-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Parses a JSON-lines string into objects (blank lines ignored). */
export function jsonl(text: string): any[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
}

/**
 * Closes every session of a hand-built record list with its `end` record
 * where it has none: sinks commit a session only on its end (#11 defect 5).
 */
export function complete<T extends { kind: string; sid?: unknown }>(records: T[]): T[] {
  const out: T[] = []
  let open: string | null = null
  const close = () => {
    if (open !== null) out.push({ kind: 'end', sid: open, id: `${open}:end`, complete: true } as unknown as T)
    open = null
  }
  for (const r of records) {
    const sid = typeof r.sid === 'string' ? r.sid : null
    if (r.kind === 'end') {
      if (sid === open) open = null
      out.push(r)
      continue
    }
    if (r.kind === 'session' || (sid !== null && sid !== open && r.kind !== 'stream')) close()
    if (sid !== null && r.kind !== 'stream') open = sid
    out.push(r)
  }
  close()
  return out
}
