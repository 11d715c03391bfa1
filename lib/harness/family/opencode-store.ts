/**
 * Where a member of the family keeps its database, and that database as a
 * `Layout`. OpenCode resolves `OPENCODE_DB` first (absolute or `:memory:` as
 * is, relative joined to the data dir), else `<data>/opencode.db`; builds on
 * a non-release channel use `opencode-<channel>.db` in the same dir, so
 * those are listed too. Kilo does the same with its own names (`KILO_DB`,
 * `<data>/kilo/kilo.db`, `kilo-<channel>.db`); the names are the data here.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { xdgDir, type StoreContext } from '../../context.js'
import type { StoreSpec } from '../types.js'
import type { Layout } from './opencode-rows.js'

/** A member's store, by name. */
export interface StoreNames {
  /** The harness id: its root flag `--<harness>-dir` and `ctx.roots` key. */
  harness: string
  /** Its name in help texts (`OpenCode`). */
  name: string
  /** The data dir's name under `$XDG_DATA_HOME` (`opencode`). */
  dir: string
  /** The primary database's file name (`opencode.db`). */
  db: string
  /** The variable that names the database (`OPENCODE_DB`). */
  env: string
  /** Channel databases beside the primary one (`opencode-<channel>.db`). */
  channel: RegExp
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

/** Untitled sessions carry `New session - <time>`: not a title. */
function realTitle(title: unknown): string | undefined {
  if (typeof title !== 'string' || title === '' || /^(New session|Child session) - /.test(title)) return undefined
  return title
}

/** A member's store: its data dir, databases, root flag and `Layout`. */
export function storeOf(n: StoreNames) {
  /** The data dir: the root flag, else `$XDG_DATA_HOME/<dir>`, else `~/.local/share/<dir>`. */
  function dataDir(ctx: StoreContext): string {
    const flag = ctx.roots[n.harness]
    if (flag) return isDbFile(flag) ? resolve(flag, '..') : flag
    return resolve(xdgDir(ctx, 'data'), n.dir)
  }

  const store: StoreSpec = {
    envVars: [n.env],
    flag: {
      name: `${n.harness}-dir`,
      describe: `${n.name} data dir, or its .db file (default $${n.env}, else $XDG_DATA_HOME/${n.dir}, else ~/.local/share/${n.dir})`,
    },
    root: dataDir,
  }

  /** The database the client itself would open in this context (null for `:memory:`). */
  function primaryDb(ctx: StoreContext): string | null {
    const flag = ctx.roots[n.harness]
    if (flag && isDbFile(flag)) return flag
    const env = flag ? undefined : ctx.env[n.env]
    if (env) {
      if (env === ':memory:') return null
      return isAbsolute(env) ? env : join(dataDir(ctx), env)
    }
    return join(dataDir(ctx), n.db)
  }

  /**
   * Every existing database to list sessions from: the primary one, plus channel
   * databases beside it when the location is the default one (an explicit
   * variable or db path means exactly that file).
   */
  function databases(ctx: StoreContext): string[] {
    const primary = primaryDb(ctx)
    const out: string[] = []
    if (primary && existsSync(primary)) out.push(primary)
    const flag = ctx.roots[n.harness]
    const explicit = (flag && isDbFile(flag)) || (!flag && ctx.env[n.env])
    if (explicit) return out
    let names: string[] = []
    try {
      names = readdirSync(dataDir(ctx))
    } catch {
      return out
    }
    for (const f of names.sort()) if (n.channel.test(f)) out.push(join(dataDir(ctx), f))
    return out
  }

  /** The database as the family's code reads it. */
  const layout: Layout = {
    harness: n.harness,
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

  return { store, dataDir, primaryDb, databases, layout }
}
