/**
 * Handing a written export document to its client: `opencode import FILE`
 * (Kilo's `kilo import FILE`, the same command), run from the session's own
 * directory because import files the session under the project of the
 * directory it runs in. When that cannot happen (import turned off, no client
 * on the run's PATH, the directory missing here) the document stays under
 * `ferry-import/` and the note says how to import it.
 */
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import which from 'which'
import { FerryError } from '../../errors.js'
import type { StoreContext } from '../../context.js'
import { shellQuote } from '../../vocabulary/shell.js'
import type { WrittenSession } from '../types.js'
import { sessionExists, type Layout } from './opencode-rows.js'

/** A member of the family that takes export documents: its database and the client that imports them. */
export interface Client {
  layout: Layout
  /** Its name in messages (`OpenCode`). */
  name: string
  /** Its executable (`opencode`): `<bin> import`, `<bin> session delete`. */
  bin: string
  dataDir(ctx: StoreContext): string
  /** The database the client itself opens in this context (null: none on disk to check). */
  primaryDb(ctx: StoreContext): string | null
}

/**
 * The client's executable on the run's PATH (the context's, which `--home`
 * and library callers set, not this process's), or null.
 */
export async function findClient(env: NodeJS.ProcessEnv, bin: string): Promise<string | null> {
  // `which` falls back to process.env.PATH when given none; a context without PATH has no client.
  if (!env.PATH) return null
  return which(bin, { nothrow: true, path: env.PATH })
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `<bin> ARGS…` and collects its output (bounded: only the tail is kept). */
function runClient(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 300_000): Promise<RunResult> {
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

/** The last lines of a command's output, for one error line. */
function outputTail(r: RunResult): string {
  const lines = (r.stderr || r.stdout).trim().split('\n')
  return lines.slice(-3).join(' | ').slice(-500)
}

export interface HandOver {
  /** The minted session id. */
  ses: string
  /** The session's directory: import runs there. */
  cwd: string
  /** Run `<bin> import` at all (`--no-<harness>-import` turns it off). */
  import: boolean
  force: boolean
}

/**
 * Imports the committed document `written.path` into the client's database,
 * or says how to. Throws `import-failed` (the document kept) when the client refuses it.
 */
export async function handOver(ctx: StoreContext, client: Client, written: WrittenSession, h: HandOver): Promise<WrittenSession> {
  const doc = written.path
  const name = client.bin
  const how = `cd ${shellQuote(h.cwd)} && ${name} import ${shellQuote(doc)}`
  const pending = { argv: [name, 'import', doc], cwd: h.cwd }
  if (!h.import) return { ...written, pending, note: `not imported; to import: ${how}` }
  const bin = await findClient(ctx.env, name)
  if (!bin) return { ...written, pending, note: `${name} is not on PATH; to import: ${how}` }
  if (!isDirectory(h.cwd)) return { ...written, pending, note: `the session directory ${h.cwd} does not exist here; create it, then: ${how}` }
  const fail = (message: string) => new FerryError(message, { code: 'import-failed', position: { file: doc }, source: client.layout.harness })
  if (h.force) {
    const db = client.primaryDb(ctx)
    if (db && sessionExists(client.layout, db, h.ses, true)) {
      // Import never replaces an existing session (upsert of the header, insert-or-ignore of rows).
      const del = await runClient(bin, ['session', 'delete', h.ses], h.cwd, ctx.env)
      if (del.code !== 0) throw fail(`${name} session delete ${h.ses} failed (exit ${del.code}): ${outputTail(del)}`)
    }
  }
  const r = await runClient(bin, ['import', doc], h.cwd, ctx.env)
  if (r.code !== 0 || !/Imported session/.test(r.stdout + r.stderr)) throw fail(`${name} import failed (exit ${r.code}): ${outputTail(r)}; the document is kept at ${doc}`)
  await rm(doc, { force: true })
  return { ...written, path: client.primaryDb(ctx) ?? client.dataDir(ctx), note: `imported into ${client.name} (${name} import, from ${h.cwd})` }
}
