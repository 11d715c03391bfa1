/**
 * Where Qwen Code keeps its sessions, and the only ways ferry builds such paths.
 *
 * The runtime dir (`$QWEN_RUNTIME_DIR`, else the global dir `$QWEN_HOME`,
 * else `~/.qwen`) holds `projects/<sanitized cwd>/chats/<session id>.jsonl`
 * and `projects/<sanitized cwd>/subagents/<session id>/agent-<type>-<call id>.jsonl`
 * with a `.meta.json` beside it (Storage.getProjectDir, sanitizeCwd in the
 * 0.24.4 bundle). Every component ferry writes is checked to be one safe
 * name, and the sanitized cwd has only `[A-Za-z0-9-]`.
 */
import { join, resolve, sep } from 'node:path'
import { v5 as uuidV5, validate as isUuid } from 'uuid'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'

/** `--qwen-home`, else `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`. */
export const store: StoreSpec = {
  envVars: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'],
  flag: { name: 'qwen-home', describe: 'Qwen Code runtime dir (default $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen)' },
  root: (ctx) => ctx.roots.qwen ?? resolve(ctx.env.QWEN_RUNTIME_DIR || ctx.env.QWEN_HOME || resolve(ctx.home, '.qwen')),
}

/** Qwen's `sanitizeCwd`: every character outside `[A-Za-z0-9]` becomes `-`. */
export function sanitizeCwd(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-')
}

/** The namespace of ids ferry derives for Qwen; changing it would rename every session ferry already wrote. */
const QWEN_NAMESPACE = '9d2e4f60-7a8b-4c1d-8e2f-3a4b5c6d7e8f'

/** A session or record id: a UUID as it is, anything else the name-based UUID (v5) of it. */
export function uuidFor(name: string): string {
  return isUuid(name) ? name.toLowerCase() : uuidV5(name, QWEN_NAMESPACE)
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** `<root>/projects/<project>/<parts…>`, refusing any component that is not one safe name. */
export function projectPath(root: string, project: string, ...parts: string[]): string {
  for (const p of [project, ...parts]) {
    if (!(NAME.test(p) || /^-[A-Za-z0-9-]*$/.test(p)) || p.length > 255 || p === '.' || p === '..') throw new UnsafePathError(`refusing unsafe Qwen Code path component: ${JSON.stringify(p)}`)
  }
  const base = join(resolve(root), 'projects')
  const out = resolve(base, project, ...parts)
  if (!out.startsWith(base + sep)) throw new UnsafePathError(`refusing Qwen Code path outside ${base}: ${out}`, out)
  return out
}

/** A sub-agent file stem (`agent-<type>-<call id>`) made safe as one path component. */
export function agentStem(type: string, callId: string): string {
  return `agent-${type}-${callId}`.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 200)
}
