/**
 * Where OpenCode keeps its database. OpenCode resolves `OPENCODE_DB` first
 * (absolute or `:memory:` as is, relative joined to the data dir), else
 * `<data>/opencode.db`; builds on a non-release channel use
 * `opencode-<channel>.db` in the same dir, so those are listed too. `layout`
 * is that database as the family's code (`../family/`) reads it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { xdgDir, type StoreContext } from '../../context.js'
import type { StoreSpec } from '../types.js'
import type { Layout } from '../family/opencode-rows.js'

/** The data dir: `--opencode-dir`, else `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`. */
export function dataDir(ctx: StoreContext): string {
  const flag = ctx.roots.opencode
  if (flag) return isDbFile(flag) ? resolve(flag, '..') : flag
  return resolve(xdgDir(ctx, 'data'), 'opencode')
}

export const store: StoreSpec = {
  envVars: ['OPENCODE_DB'],
  flag: {
    name: 'opencode-dir',
    describe: 'OpenCode data dir, or its .db file (default $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode)',
  },
  root: dataDir,
}

/** The root flag may name the database itself (`--opencode-dir ~/x/opencode-dev.db`). */
function isDbFile(p: string): boolean {
  if (p.endsWith('.db')) return true
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

/** The database OpenCode itself would open in this context (null for `:memory:`). */
export function primaryDb(ctx: StoreContext): string | null {
  const flag = ctx.roots.opencode
  if (flag && isDbFile(flag)) return flag
  const env = flag ? undefined : ctx.env.OPENCODE_DB
  if (env) {
    if (env === ':memory:') return null
    return isAbsolute(env) ? env : join(dataDir(ctx), env)
  }
  return join(dataDir(ctx), 'opencode.db')
}

const CHANNEL_DB = /^opencode-[A-Za-z0-9._-]+\.db$/

/**
 * Every existing database to list sessions from: the primary one, plus channel
 * databases beside it when the location is the default one (an explicit
 * `OPENCODE_DB` or db path means exactly that file).
 */
export function databases(ctx: StoreContext): string[] {
  const primary = primaryDb(ctx)
  const out: string[] = []
  if (primary && existsSync(primary)) out.push(primary)
  const explicit = (ctx.roots.opencode && isDbFile(ctx.roots.opencode)) || (!ctx.roots.opencode && ctx.env.OPENCODE_DB)
  if (explicit) return out
  let names: string[] = []
  try {
    names = readdirSync(dataDir(ctx))
  } catch {
    return out
  }
  for (const n of names.sort()) if (CHANNEL_DB.test(n)) out.push(join(dataDir(ctx), n))
  return out
}

/** Untitled sessions carry `New session - <time>`: not a title. */
function realTitle(title: unknown): string | undefined {
  if (typeof title !== 'string' || title === '' || /^(New session|Child session) - /.test(title)) return undefined
  return title
}

/** OpenCode's database as the family's code reads it. */
export const layout: Layout = {
  harness: 'opencode',
  sessionPrefix: 'ses',
  sessionColumns: ['id', 'parent_id', 'directory', 'title', 'version', 'model', 'time_created', 'time_updated', 'time_archived'],
  busyTimeout: 5000,
  databases,
  title(row) {
    const title = realTitle(row.title)
    return title ? { title, source: 'ai' } : undefined
  },
  listsChildren: false,
  listOrder: { column: 'time_created', id: 'ASC' },
}
