/**
 * Handing a written export document to OpenCode: `opencode import FILE`, run
 * from the session's own directory because import files the session under
 * the project of the directory it runs in.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The `opencode` executable on PATH, or null. */
export function findOpencode(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const p = join(dir, 'opencode')
    try {
      accessSync(p, constants.X_OK)
      if (statSync(p).isFile()) return p
    } catch {
      // not here
    }
  }
  return null
}

export function isDirectory(p: string | undefined): p is string {
  if (!p) return false
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `opencode ARGS…` and collects its output (bounded: only the tail is kept). */
export function runOpencode(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 300_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const keep = (s: string, b: Buffer) => (s + b.toString('utf8')).slice(-16384)
    child.stdout.on('data', (b: Buffer) => (stdout = keep(stdout, b)))
    child.stderr.on('data', (b: Buffer) => (stderr = keep(stderr, b)))
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Shell-quotes one word for the "how to import" note. */
export function shq(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}
