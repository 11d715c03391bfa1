/**
 * `workspace.yaml`: the session's metadata as Copilot CLI writes it, a flat
 * mapping of scalars (`id`, `cwd`, `name`, `user_named`, `created_at`, …).
 * Only that flat form is read (nested or multi-line values are passed over:
 * the event log is the session); strings are written single-quoted, which
 * YAML reads back exactly.
 */
import { readFile } from 'node:fs/promises'

export type Workspace = Record<string, string | boolean | number | null>

/** One scalar: quoted strings unescaped, booleans, numbers, `null`; plain text as it is. */
function scalar(raw: string): string | boolean | number | null {
  const v = raw.trim()
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'")
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      return JSON.parse(v) as string
    } catch {
      return v.slice(1, -1)
    }
  }
  if (v === 'true') return true
  if (v === 'false') return false
  if (v === 'null' || v === '~' || v === '') return null
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v)
  return v
}

export function parseWorkspace(text: string): Workspace {
  const out: Workspace = {}
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*))?$/.exec(line.replace(/\r$/, ''))
    if (!m) continue
    out[m[1]!] = scalar(m[2] ?? '')
  }
  return out
}

/** The workspace file of a session directory, or null when it is missing or unreadable. */
export async function readWorkspace(path: string): Promise<Workspace | null> {
  try {
    const text = await readFile(path, 'utf8')
    return text.length > 1024 * 1024 ? null : parseWorkspace(text)
  } catch {
    return null
  }
}

const quote = (s: string) => `'${s.replace(/[\r\n]+/g, ' ').replace(/'/g, "''")}'`

/** The file for a written session, in the key order Copilot CLI 1.0.102 writes. */
export function renderWorkspace(w: { id: string; cwd: string; name?: string; summary_count?: number; created_at: string; updated_at: string }): string {
  const lines = [
    `id: ${w.id}`,
    `cwd: ${quote(w.cwd)}`,
    'client_name: github/cli',
    ...(w.name ? [`name: ${quote(w.name.length > 200 ? `${w.name.slice(0, 199)}…` : w.name)}`] : []),
    'user_named: false',
    `summary_count: ${w.summary_count ?? 0}`,
    'fork_count: 0',
    `created_at: ${w.created_at}`,
    `updated_at: ${w.updated_at}`,
  ]
  return lines.join('\n') + '\n'
}
