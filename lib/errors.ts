/**
 * Error types. A FerryError carries where it came from (file and position)
 * so the CLI can print one line naming them; a UsageError means the command
 * line itself was wrong (exit 2).
 */

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

export class FerryError extends Error {
  readonly code: string
  readonly position?: Position
  constructor(message: string, opts: { code?: string; position?: Position; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'FerryError'
    this.code = opts.code ?? 'EFERRY'
    if (opts.position) this.position = opts.position
  }
  /** One line: `<file>:<line>: <message>`. */
  override toString(): string {
    return this.position ? `${formatPosition(this.position)}: ${this.message}` : this.message
  }
}

/** The command line is wrong: exit 2 with a one-line message. */
export class UsageError extends FerryError {
  constructor(message: string) {
    super(message, { code: 'EUSAGE' })
    this.name = 'UsageError'
  }
}

/** The target already holds this session and --force was not given. */
export class ExistsError extends FerryError {
  constructor(path: string) {
    super(`already exists (use --force to overwrite): ${path}`, { code: 'EEXIST', position: { file: path } })
    this.name = 'ExistsError'
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof FerryError) return err.toString()
  if (err instanceof Error) return err.message
  return String(err)
}
