/**
 * Located problems found while reading or writing: a bad line, an over-long
 * line, an orphan tool result. Nothing is dropped silently: every skipped
 * input unit is reported here, counted, and (for errors) turns the exit code
 * non-zero once the run has finished with everything else. Codes come from
 * the one list in lib/codes.ts and are printed as `<source>:<code>`.
 */
import type { Code } from './codes.js'
import { asFerryError, FerryError, formatPosition, type Position } from './errors.js'

export type Severity = 'error' | 'warning' | 'info'

export interface Diagnostic {
  severity: Severity
  code: Code
  /** The harness or layer that found it (`codex`, `interchange`, `cli`). */
  source?: string
  message: string
  position?: Position
}

export interface DiagnosticsOptions {
  /** Where one-line reports go; default process.stderr. Pass null to only collect. */
  stream?: NodeJS.WritableStream | null
  /** Stop printing after this many of one code (they are still counted). */
  maxPerCode?: number
  /** Print each report as a JSON object (`--json`) instead of a text line. */
  json?: boolean
}

export class Diagnostics {
  readonly items: Diagnostic[] = []
  readonly counts = new Map<string, number>()
  errors = 0
  warnings = 0
  private readonly stream: NodeJS.WritableStream | null
  private readonly maxPerCode: number
  readonly json: boolean

  constructor(opts: DiagnosticsOptions = {}) {
    this.stream = opts.stream === undefined ? process.stderr : opts.stream
    this.maxPerCode = opts.maxPerCode ?? 20
    this.json = opts.json ?? false
  }

  report(d: Diagnostic): void {
    const n = this.tally(d)
    const key = label(d)
    if (!this.stream) return
    if (n <= this.maxPerCode) this.stream.write(this.json ? JSON.stringify({ [d.severity]: { code: d.code, ...(d.source ? { source: d.source } : {}), message: d.message, file: null, line: null, ...(d.position ?? {}) } }) + '\n' : `ferry: ${d.severity}: ${formatLine(d)}\n`)
    else if (n === this.maxPerCode + 1 && !this.json) this.stream.write(`ferry: ${d.severity}: further ${key} reports suppressed (counted)\n`)
  }

  /** Counts a problem already reported elsewhere (the run's final error line), so the summary adds up; returns its count so far. */
  tally(d: Diagnostic): number {
    const key = label(d)
    const n = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, n)
    if (d.severity === 'error') this.errors++
    else if (d.severity === 'warning') this.warnings++
    // Keep a bounded sample: a store with millions of bad lines must not grow memory.
    if (this.items.length < 1000) this.items.push(d)
    return n
  }

  error(code: Code, message: string, position?: Position, source?: string): void {
    this.report({ severity: 'error', code, message, ...(position ? { position } : {}), ...(source ? { source } : {}) })
  }

  warn(code: Code, message: string, position?: Position, source?: string): void {
    this.report({ severity: 'warning', code, message, ...(position ? { position } : {}), ...(source ? { source } : {}) })
  }

  /** One summary line for stderr, or '' when nothing happened. */
  summary(): string {
    if (this.counts.size === 0) return ''
    const parts = [...this.counts].map(([code, n]) => `${n} ${code}`)
    return `ferry: ${this.errors} error(s), ${this.warnings} warning(s): ${parts.join(', ')}`
  }
}

/** `codex:line-too-long` (or just the code when no source is known). */
export function label(d: Pick<Diagnostic, 'code' | 'source'>): string {
  return d.source ? `${d.source}:${d.code}` : d.code
}

/** `<source>:<code>: <file>:<line>: <message>` */
export function formatLine(d: Diagnostic): string {
  return `${label(d)}: ${d.position ? `${formatPosition(d.position)}: ` : ''}${d.message}`
}

/** An error as a diagnostic: its code, source and position, for reports that go on after it. */
export function asDiagnostic(err: unknown): Diagnostic {
  const fe = asFerryError(err)
  return { severity: 'error', code: fe.code, message: fe.message, ...(fe.position ? { position: fe.position } : {}), ...(fe.source ? { source: fe.source } : {}) }
}

/** A diagnostic back as the error it describes (one that crossed from a worker thread). */
export function fromDiagnostic(d: Diagnostic): FerryError {
  return new FerryError(d.message, { code: d.code, ...(d.source ? { source: d.source } : {}), ...(d.position ? { position: d.position } : {}) })
}
