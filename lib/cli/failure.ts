/**
 * How a failed run ends: one line on stderr (`ferry: …` for usage errors,
 * `ferry: error: <source>:<code>: <file>:<line>: …` otherwise, as every
 * diagnostic line), or with `--json` one object
 * `{"error": {"code", "message", "file", "line"}}` (codes from lib/codes.ts),
 * and the exit code: 2 for usage, 1 for everything else. Never a stack trace
 * (FERRY_DEBUG=1 adds one, for bug reports).
 */
import { asDiagnostic, formatLine } from '../diagnostics.js'
import { asFerryError, errorMessage, FerryError, UsageError } from '../errors.js'

export function isUsage(err: unknown): boolean {
  return err instanceof UsageError || (!(err instanceof FerryError) && (err as Error)?.name === 'YError')
}

export function failureJson(err: unknown): string {
  const usage = isUsage(err)
  const fe = usage && !(err instanceof FerryError) ? new FerryError(errorMessage(err), { code: 'usage' }) : asFerryError(err)
  const { file, line, ...rest } = fe.toJSON().error
  return JSON.stringify({ error: { ...rest, file: file ?? null, line: line ?? null } })
}

/** `<source>:<code>: <file>:<line>: <message>`, the shape of every diagnostic line, whatever was thrown. */
export function errorLine(err: unknown): string {
  return formatLine(asDiagnostic(err))
}

export function reportFailure(err: unknown, json: boolean): void {
  const usage = isUsage(err)
  if (json) process.stderr.write(failureJson(err) + '\n')
  // Nothing matched is an answer, not a fault (as rg): one plain line, exit 1.
  else if (err instanceof FerryError && err.code === 'no-match') process.stderr.write(`ferry: ${err.message}\n`)
  else process.stderr.write(usage ? `ferry: ${errorMessage(err)}\n` : `ferry: error: ${errorLine(err)}\n`)
  if (process.env.FERRY_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`)
  process.exitCode = usage ? 2 : 1
}
