/**
 * Where the stores are. A StoreContext is the environment ferry resolves
 * store roots from: `--home DIR` makes every harness behave as if HOME were
 * DIR (and ignores the per-harness environment variables that would move a
 * store elsewhere), per-harness flags override single roots. Tests run this way.
 */
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { Diagnostics } from './diagnostics.js'
import { DEFAULT_MAX_LINE_BYTES } from './io/lines.js'

export interface StoreContext {
  env: NodeJS.ProcessEnv
  home: string
  /** Explicit per-harness roots (from flags); win over env and home. */
  roots: Record<string, string>
  diagnostics: Diagnostics
  /** Longest line a reader keeps; longer ones are reported and skipped. */
  maxLineBytes: number
}

/** Variables that point a harness's store somewhere else than under HOME. */
const XDG_VARS = ['XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']

export interface ContextOptions {
  home?: string
  roots?: Record<string, string | undefined>
  env?: NodeJS.ProcessEnv
  diagnostics?: Diagnostics
  maxLineBytes?: number
  /** Variables to drop when `home` is given (every harness's `envVars`). */
  storeEnvVars?: readonly string[]
}

export function createContext(opts: ContextOptions = {}): StoreContext {
  const base = { ...(opts.env ?? process.env) }
  let home = base.HOME || homedir()
  if (opts.home) {
    home = resolve(opts.home)
    for (const v of [...XDG_VARS, ...(opts.storeEnvVars ?? [])]) delete base[v]
    base.HOME = home
  }
  const roots: Record<string, string> = {}
  for (const [k, v] of Object.entries(opts.roots ?? {})) if (v) roots[k] = resolve(v)
  return { env: base, home, roots, diagnostics: opts.diagnostics ?? new Diagnostics(), maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES }
}

/** What a context is apart from its diagnostics: plain data, for a worker thread to rebuild it from. */
export type PortableContext = Omit<StoreContext, 'diagnostics'>

export function portableContext(ctx: StoreContext): PortableContext {
  return { env: ctx.env, home: ctx.home, roots: ctx.roots, maxLineBytes: ctx.maxLineBytes }
}

/** `$XDG_DATA_HOME`, else `~/.local/share` (and likewise for the other XDG bases). */
export function xdgDir(ctx: StoreContext, kind: 'data' | 'config' | 'state' | 'cache'): string {
  const envName = `XDG_${kind.toUpperCase()}_HOME`
  const fallback = { data: '.local/share', config: '.config', state: '.local/state', cache: '.cache' }[kind]
  const v = ctx.env[envName]
  return v && v.startsWith('/') ? v : resolve(ctx.home, fallback)
}
