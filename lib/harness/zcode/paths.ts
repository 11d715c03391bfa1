/**
 * Where ZCode keeps its database, resolved as ZCode resolves it
 * (docs/formats/zcode.md §Layout):
 *
 * - user root = `<ZCODE_DATA_BASE_DIR | ZCODE_DESKTOP_HOME_DIR | HOME>/.zcode`
 *   (`--zcode-home DIR` names the root itself; `--home` drops the variables);
 * - database = `$ZCODE_SESSION_DB_PATH` / `$ZCODE_SESSION_DB`, else
 *   `storage.sessionDbPath` in `<root>/cli/config.json`, else
 *   `<root>/cli/db/db.sqlite` (a leading `~/` is the home directory; a
 *   relative path is taken against the current directory, as ZCode does);
 * - `--zcode-home FILE` names a database file directly (e.g. one written with
 *   `--out FILE`).
 *
 * `layout` is that database as the family's code (`../family/`) reads it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import type { StoreContext } from '../../context.js'
import type { StoreSpec } from '../types.js'
import type { Layout } from '../family/opencode-rows.js'

// ZCODE_STORAGE_DIR moves the artifact store only (lib/harness/zcode/artifacts.ts).
export const ENV_VARS = ['ZCODE_DATA_BASE_DIR', 'ZCODE_DESKTOP_HOME_DIR', 'ZCODE_SESSION_DB_PATH', 'ZCODE_SESSION_DB', 'ZCODE_STORAGE_DIR'] as const

export const store: StoreSpec = {
  envVars: ENV_VARS,
  flag: {
    name: 'zcode-home',
    describe: 'ZCode user root (default $ZCODE_DATA_BASE_DIR/.zcode, else $ZCODE_DESKTOP_HOME_DIR/.zcode, else ~/.zcode), or its db.sqlite file',
  },
  root: userRoot,
}

function env(ctx: StoreContext, name: string): string | undefined {
  const v = ctx.env[name]?.trim()
  return v ? v : undefined
}

/** A path that names a database file rather than a root directory. */
export function isDbFile(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return /\.(sqlite3?|db)$/.test(p)
  }
}

/** The user root (`~/.zcode`), or the directory holding the database named by the root flag. */
export function userRoot(ctx: StoreContext): string {
  const flag = ctx.roots.zcode
  if (flag) return isDbFile(flag) ? resolve(flag, '..') : flag
  const base = env(ctx, 'ZCODE_DATA_BASE_DIR') ?? env(ctx, 'ZCODE_DESKTOP_HOME_DIR') ?? ctx.home
  return resolve(base, '.zcode')
}

function expand(ctx: StoreContext, p: string): string {
  if (p === '~') return ctx.home
  if (p.startsWith('~/')) return join(ctx.home, p.slice(2))
  return isAbsolute(p) ? p : resolve(p)
}

/** `storage.sessionDbPath` from `<root>/cli/config.json`, when set and readable. */
function configured(ctx: StoreContext, root: string): string | undefined {
  const file = join(root, 'cli', 'config.json')
  if (!existsSync(file)) return undefined
  try {
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as { storage?: { sessionDbPath?: unknown } }
    const p = cfg?.storage?.sessionDbPath
    return typeof p === 'string' && p.trim() ? expand(ctx, p.trim()) : undefined
  } catch {
    ctx.diagnostics.warn('bad-config', 'config.json does not parse; its storage.sessionDbPath was not used', { file }, 'zcode')
    return undefined
  }
}

/** The database ZCode itself would open in this context (it may not exist). */
export function primaryDb(ctx: StoreContext): string {
  const flag = ctx.roots.zcode
  if (flag) return isDbFile(flag) ? flag : join(flag, 'cli', 'db', 'db.sqlite')
  const e = env(ctx, 'ZCODE_SESSION_DB_PATH') ?? env(ctx, 'ZCODE_SESSION_DB')
  if (e) return expand(ctx, e)
  const root = userRoot(ctx)
  return configured(ctx, root) ?? join(root, 'cli', 'db', 'db.sqlite')
}

/** Existing databases to list sessions from: ZCode's own, and the pre-rename layout's when nothing moved the store. */
export function databases(ctx: StoreContext): string[] {
  const out: string[] = []
  const primary = primaryDb(ctx)
  if (existsSync(primary)) out.push(primary)
  const moved = ctx.roots.zcode || ENV_VARS.some((v) => v !== 'ZCODE_STORAGE_DIR' && env(ctx, v))
  if (!moved) {
    const legacy = join(ctx.home, '.social-harness', 'v1', 'cli', 'db', 'db.sqlite')
    if (legacy !== primary && existsSync(legacy)) out.push(legacy)
  }
  return out
}

/** ZCode's `title_source` in ferry's words (`default` is ZCode's placeholder title). */
function titleSource(ts: string | null | undefined): string {
  switch (ts) {
    case 'generated':
      return 'ai'
    case 'custom':
      return 'custom'
    case 'default':
      return 'default'
    default:
      return 'first_prompt'
  }
}

/** ZCode's database as the family's code reads it. */
export const layout: Layout = {
  harness: 'zcode',
  sessionPrefix: 'sess',
  sessionColumns: ['id', 'parent_id', 'directory', 'path', 'title', 'title_source', 'version', 'time_created', 'time_updated', 'time_archived', 'task_type'],
  databases,
  title: (row) => (row.title ? { title: row.title, source: titleSource(row.title_source) } : undefined),
  listsChildren: true,
  listOrder: { column: 'time_updated', id: 'DESC' },
}
