/**
 * Located problems found while reading or writing: a bad line, an over-long
 * line, an orphan tool result. Nothing is dropped silently: every skipped
 * input unit is reported here, counted, and (for errors) turns the exit code
 * non-zero once the run has finished with everything else.
 */
import { formatPosition, type Position } from './errors.js'

export type Severity = 'error' | 'warning' | 'info'

export interface Diagnostic {
  severity: Severity
  code: string
  message: string
  position?: Position
}

export interface DiagnosticsOptions {
  /** Where one-line reports go; default process.stderr. Pass null to only collect. */
  stream?: NodeJS.WritableStream | null
  /** Stop printing after this many of one code (they are still counted). */
  maxPerCode?: number
}

export class Diagnostics {
  readonly items: Diagnostic[] = []
  readonly counts = new Map<string, number>()
  errors = 0
  warnings = 0
  private readonly stream: NodeJS.WritableStream | null
  private readonly maxPerCode: number

  constructor(opts: DiagnosticsOptions = {}) {
    this.stream = opts.stream === undefined ? process.stderr : opts.stream
    this.maxPerCode = opts.maxPerCode ?? 20
  }

  report(d: Diagnostic): void {
    const n = (this.counts.get(d.code) ?? 0) + 1
    this.counts.set(d.code, n)
    if (d.severity === 'error') this.errors++
    else if (d.severity === 'warning') this.warnings++
    // Keep a bounded sample: a store with millions of bad lines must not grow memory.
    if (this.items.length < 1000) this.items.push(d)
    if (!this.stream) return
    if (n <= this.maxPerCode) this.stream.write(`ferry: ${d.severity}: ${formatLine(d)}\n`)
    else if (n === this.maxPerCode + 1) this.stream.write(`ferry: ${d.severity}: further ${d.code} reports suppressed (counted)\n`)
  }

  error(code: string, message: string, position?: Position): void {
    this.report({ severity: 'error', code, message, ...(position ? { position } : {}) })
  }

  warn(code: string, message: string, position?: Position): void {
    this.report({ severity: 'warning', code, message, ...(position ? { position } : {}) })
  }

  /** One summary line for stderr, or '' when nothing happened. */
  summary(): string {
    if (this.counts.size === 0) return ''
    const parts = [...this.counts].map(([code, n]) => `${n} ${code}`)
    return `ferry: ${this.errors} error(s), ${this.warnings} warning(s): ${parts.join(', ')}`
  }
}

export function formatLine(d: Diagnostic): string {
  return d.position ? `${formatPosition(d.position)}: ${d.message}` : d.message
}
