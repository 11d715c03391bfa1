/**
 * Where Copilot CLI keeps its sessions: `$COPILOT_HOME/session-state/<uuid>/`
 * (default `~/.copilot`), one directory per session with its event log
 * `events.jsonl`, `workspace.yaml`, `checkpoints/` and rewind snapshots.
 * Every path ferry builds there is `<root>/session-state/<uuid>`: the id
 * must be a UUID, so a hostile id cannot leave the store.
 */
import { join, resolve } from 'node:path'
import { validate as isUuid } from 'uuid'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'

export const HARNESS = 'copilot'

/** `--copilot-home`, else `$COPILOT_HOME` (as the CLI does), else `~/.copilot`. */
export const store: StoreSpec = {
  envVars: ['COPILOT_HOME'],
  flag: { name: 'copilot-home', describe: 'Copilot CLI home (default $COPILOT_HOME, else ~/.copilot)' },
  root: (ctx) => ctx.roots.copilot ?? (ctx.env.COPILOT_HOME || resolve(ctx.home, '.copilot')),
}

export const SESSIONS_DIR = 'session-state'
export const EVENTS_FILE = 'events.jsonl'
export const WORKSPACE_FILE = 'workspace.yaml'

export { isUuid }

/** `<root>/session-state/<id>`; the id must be a UUID. */
export function sessionDir(root: string, id: string): string {
  if (!isUuid(id)) throw new UnsafePathError(`copilot: session id ${JSON.stringify(id).slice(0, 80)} is not a UUID; refusing to use it in a path`)
  return join(root, SESSIONS_DIR, id.toLowerCase())
}

/** A sub-agent's native id: its `agentId` under a prefix, so it never reads as a session directory. */
export function agentNativeId(agentId: string): string {
  return `agent-${agentId}`
}

/** The `agentId` inside a sub-agent's native id, or undefined. */
export function agentIdOf(nativeId: string): string | undefined {
  const m = /^agent-([A-Za-z0-9_-]{1,64})$/.exec(nativeId)
  return m?.[1]
}
