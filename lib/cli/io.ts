/**
 * What the CLI prints besides records: written-session reports, the ls
 * table, and the final diagnostics summary.
 */
import type { SessionInfo, WrittenSession } from '../harness/types.js'
import type { Diagnostics } from '../diagnostics.js'

export function writtenLine(ws: WrittenSession, json: boolean): string {
  if (json) return JSON.stringify(ws)
  return [ws.harness, ws.id, ws.path, ...(ws.note ? [ws.note] : [])].join('\t')
}

function cell(s: string | number | undefined, width: number): string {
  const v = s === undefined ? '-' : String(s)
  return v.length > width ? v.slice(0, width - 1) + '…' : v.padEnd(width)
}

export function lsTable(rows: SessionInfo[]): string {
  const head = `${cell('HARNESS', 11)} ${cell('ID', 38)} ${cell('UPDATED', 16)} ${cell('MSGS', 5)} ${cell('CWD', 28)} TITLE`
  const lines = rows.map((r) =>
    [
      cell(r.harness, 11),
      cell(r.id, 38),
      cell((r.updated_at ?? r.created_at)?.slice(0, 16).replace('T', ' '), 16),
      cell(r.message_count, 5),
      cell(r.cwd, 28),
      (r.title ?? '').replace(/\s+/g, ' ').slice(0, 80),
    ].join(' '),
  )
  return [head, ...lines].join('\n') + '\n'
}

export function finishDiagnostics(d: Diagnostics): void {
  const s = d.summary()
  // With --json every report was already an object; a text summary would break a line reader.
  if (s && d.errors + d.warnings > 0 && !d.json) process.stderr.write(s + '\n')
  if (d.errors > 0 && !process.exitCode) process.exitCode = 1
}
