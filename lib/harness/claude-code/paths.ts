/**
 * Where Claude Code keeps its sessions: `<root>/projects/<slug>/<uuid>.jsonl`,
 * with the session's sub-agents and spilled tool outputs in `<uuid>/` beside it.
 */
import { basename, dirname, join, resolve } from 'node:path'
import type { StoreSpec } from '../types.js'

export const HARNESS = 'claude-code' as const

/** `--claude-dir`, else `$CLAUDE_CONFIG_DIR` when set and non-empty, else `~/.claude`. */
export const store: StoreSpec = {
  envVars: ['CLAUDE_CONFIG_DIR'],
  flag: { name: 'claude-dir', describe: 'Claude Code config dir (default $CLAUDE_CONFIG_DIR, else ~/.claude)' },
  root: (ctx) => ctx.roots[HARNESS] ?? (ctx.env.CLAUDE_CONFIG_DIR || resolve(ctx.home, '.claude')),
}

export function projectsDir(root: string): string {
  return join(root, 'projects')
}

/** `<project dir>/<id>/` — where a session's sub-agents and spilled outputs live. */
export function sideDir(sessionPath: string): string {
  return join(dirname(sessionPath), basename(sessionPath, '.jsonl'))
}
