/**
 * Error types. A FerryError carries a code from the one list (lib/codes.ts)
 * and where it came from (file and position), so the CLI can print one line
 * naming them; a UsageError means the command line itself was wrong (exit 2).
 * Also "did you mean …?" for a mistyped name: it only ever forms a message.
 */
import type { Code } from './codes.js'

export interface Position {
  /** File, directory or database the problem is in. */
  file?: string
  /** 1-based line number, for line files. */
  line?: number
  /** Byte offset, when lines do not apply (compressed frames, JSON documents). */
  offset?: number
  /** Table and primary key, for SQLite rows. */
  row?: string
}

export function formatPosition(pos: Position): string {
  let at = pos.file ?? '<input>'
  if (pos.line !== undefined) at += `:${pos.line}`
  if (pos.offset !== undefined) at += ` (byte ${pos.offset})`
  if (pos.row !== undefined) at += ` [${pos.row}]`
  return at
}

export interface FerryErrorOptions {
  code?: Code
  position?: Position
  /** The harness or layer that found it (`codex`, `interchange`, `cli`). */
  source?: string
  cause?: unknown
}

export class FerryError extends Error {
  readonly code: Code
  readonly position?: Position
  readonly source?: string
  constructor(message: string, opts: FerryErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'FerryError'
    this.code = opts.code ?? 'internal'
    if (opts.position) this.position = opts.position
    if (opts.source) this.source = opts.source
  }
  /** One line: `<file>:<line>: <message>` (the message never repeats the path). */
  override toString(): string {
    return this.position ? `${formatPosition(this.position)}: ${this.message}` : this.message
  }
  /** The shape of `--json` errors: `{"error": {code, message, file, line, …}}`. */
  toJSON(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...(this.source ? { source: this.source } : {}), ...(this.position ?? {}) } }
  }
}

/** The command line is wrong: exit 2 with a one-line message. */
export class UsageError extends FerryError {
  constructor(message: string, code: 'usage' | 'ambiguous' = 'usage') {
    super(message, { code })
    this.name = 'UsageError'
  }
}

/** A reference matches several sessions: a usage error (exit 2) with its own code. */
export class AmbiguousError extends UsageError {
  constructor(message: string) {
    super(message, 'ambiguous')
    this.name = 'AmbiguousError'
  }
}

/** The target already holds this session and --force was not given. */
export class ExistsError extends FerryError {
  constructor(path: string, position?: Position) {
    super('already exists (--force replaces it)', { code: 'exists', position: position ?? { file: path } })
    this.name = 'ExistsError'
  }
}

/** An id or path from the input would make a write leave the store root. */
export class UnsafePathError extends FerryError {
  constructor(message: string, path?: string) {
    super(message, { code: 'unsafe-path', ...(path ? { position: { file: path } } : {}) })
    this.name = 'UnsafePathError'
  }
}

/** One session of a stream that a sink could not write, and why. */
export interface SessionFailure {
  sid: string
  error: FerryError
}

/**
 * The sink policy's one outcome: every other session was written, these were
 * not. The CLI prints one line per failure and exits 1; the library rejects
 * with this error (after the others were committed).
 */
export class NotWrittenError extends FerryError {
  readonly failures: SessionFailure[]
  constructor(failures: SessionFailure[]) {
    const first = failures[0]!
    super(failures.length === 1 ? `${first.sid}: ${first.error.toString()}` : `${failures.length} sessions not written (first: ${first.sid}: ${first.error.toString()})`, {
      code: 'not-written',
    })
    this.name = 'NotWrittenError'
    this.failures = failures
  }
}

/** Any thrown value as a FerryError (unknown errors become `internal` or `write-failed`). */
/**
 * Node's errno text names the path (`EACCES: permission denied, open '/x'`):
 * as a FerryError the path is the position, so the message is only what
 * happened (`permission denied (EACCES)`) and a line never shows it twice.
 */
function errnoMessage(e: NodeJS.ErrnoException): string {
  const m = /^([A-Z]+): (.*?), [a-z]+(?: '.*')?$/s.exec(e.message)
  return m ? `${m[2]} (${m[1]})` : e.message
}

export function asFerryError(err: unknown, fallback: Code = 'internal'): FerryError {
  if (err instanceof FerryError) return err
  const e = err as NodeJS.ErrnoException | undefined
  const errno = typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code) ? e.code : undefined
  const message = e instanceof Error ? (errno && e.path ? errnoMessage(e) : e.message) : String(err)
  // An errno is I/O: a write unless the caller knows it was reading (fallback `unreadable`).
  const code: Code = errno === 'EEXIST' ? 'exists' : errno && fallback === 'internal' ? 'write-failed' : fallback
  return new FerryError(message, { code, ...(e?.path ? { position: { file: e.path } } : {}), cause: err })
}

/** The same error, naming the harness or layer it came from when it does not already. */
export function fromSource(err: unknown, source: string, fallback: Code = 'internal'): FerryError {
  const e = asFerryError(err, fallback)
  // Subclasses carry more than a line (failures, usage): they stay as they are.
  if (e.source || e.constructor !== FerryError) return e
  return new FerryError(e.message, { code: e.code, source, ...(e.position ? { position: e.position } : {}), cause: e.cause ?? err })
}

/**
 * What went wrong, for a diagnostic that names the file as its position: an
 * errno's text without the path Node puts in it (`permission denied (EACCES)`).
 */
export function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined
  if (e instanceof Error && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) && e.path) return errnoMessage(e)
  return e instanceof Error ? e.message : String(err)
}

export function errorMessage(err: unknown): string {
  if (err instanceof FerryError) return err.toString()
  if (err instanceof Error) return err.message
  return String(err)
}

/** "Did you mean …?" for a mistyped name: the closest known name, when it is close. */
function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = Infinity
  for (const k of known) {
    const d = k.startsWith(word) || word.startsWith(k) ? 0.5 : distance(k, word)
    if (d < bestD) [best, bestD] = [k, d]
  }
  return bestD <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined
}

/** ` (did you mean X?)` or ''. */
export function didYouMean(word: string, known: readonly string[]): string {
  const c = closest(word, known)
  return c ? ` (did you mean ${c}?)` : ''
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = t
    }
  }
  return d[b.length]!
}
