/**
 * What the CLI prints besides records: written-session reports and the
 * final diagnostics summary (the session table is table.ts).
 */
import type { WrittenSession } from '../harness/types.js'
import type { Diagnostics } from '../diagnostics.js'

export function writtenLine(ws: WrittenSession, json: boolean): string {
  if (json) return JSON.stringify(ws)
  return [ws.harness, ws.id, ws.path, ...(ws.note ? [ws.note] : [])].join('\t')
}

export function finishDiagnostics(d: Diagnostics): void {
  const s = d.summary()
  // With --json every report was already an object; a text summary would break a line reader.
  if (s && d.errors + d.warnings > 0 && !d.json) process.stderr.write(s + '\n')
  if (d.errors > 0 && !process.exitCode) process.exitCode = 1
}
