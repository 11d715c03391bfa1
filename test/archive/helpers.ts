/** The fixture HOME of the archive tests, and how they run and query it. */
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { FIXTURES, ROOT, ferry, tempDir } from '../kit.js'

export const CLAUDE = '3f1c9a2e-5b7d-4c1e-9a3f-000000000001'
export const CODEX = '019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b'
export const PROJECT = '.claude/projects/-home-dev-demo-app'
export const ROLLOUT = '.codex/sessions/2026/11/02/rollout-2026-11-02T09-15-00-019a3c1e-7f00-7a11-8b22-3c4d5e6f7a8b.jsonl'

/** A HOME holding every harness's fixture store (the torn-line fixture session left out: it has its own test). */
export function makeHome(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t, 'ferry-archive-')
  const home = join(dir, 'home')
  cpSync(join(FIXTURES, 'home'), home, { recursive: true })
  cpSync(join(FIXTURES, 'claude-code', 'home'), home, { recursive: true })
  cpSync(join(FIXTURES, 'codex', 'classic'), home, { recursive: true })
  rmSync(join(home, PROJECT, '7c1e4b2d-9f3a-4e5b-8c7d-000000000002.jsonl'))
  return home
}

export const dbOf = (home: string) => join(home, '.local/share/ferry/archive.db')

export async function archive(home: string, ...more: string[]) {
  const r = await ferry(['--home', home, 'archive', '--json', ...more])
  return { ...r, sum: r.stdout.trim() ? JSON.parse(r.stdout) : null }
}

export function query<T = Record<string, unknown>>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true })
  try {
    return d.prepare(sql).all(...args) as T[]
  } finally {
    d.close()
  }
}


/** A temp folder with a HOME of generated Claude Code sessions (bench/gen.mjs, deterministic), and that HOME. */
export function generatedHome(t: Parameters<typeof tempDir>[0], sessions: number, seed: string): { dir: string; home: string } {
  const dir = tempDir(t, 'ferry-archive-gen-')
  const home = join(dir, 'home')
  const gen = spawnSync(process.execPath, [join(ROOT, 'bench', 'gen.mjs'), '--harness', 'claude', '--out', home, '--sessions', String(sessions), '--lines-per-session', '30', '--quiet', '--seed', seed])
  if (gen.status !== 0) throw new Error(`gen.mjs failed: ${String(gen.stderr)}`)
  return { dir, home }
}
