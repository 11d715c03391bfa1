/**
 * Where Cursor keeps its three stores, and the path rules for writing.
 *
 * - `.cursor` (the root flag `--cursor-dir`, default `~/.cursor`):
 *   `projects/<slug>/agent-transcripts/` and the CLI's `chats/`.
 * - the CLI config dir (`$XDG_CONFIG_HOME/cursor`, default `~/.config/cursor`;
 *   some builds `…/Cursor`, capital C, and `~/.config/Cursor` even when
 *   `XDG_CONFIG_HOME` is set): newer CLI builds keep `chats/` there.
 * - the editor's User dir (`~/.config/Cursor/User` on Linux,
 *   `~/Library/Application Support/Cursor/User` on macOS,
 *   `%APPDATA%\Cursor\User` on Windows): `globalStorage/state.vscdb` and
 *   `workspaceStorage/<hash>/state.vscdb`.
 *
 * With `--cursor-dir DIR` only DIR is looked at, sniffed: it may be a
 * `.cursor` dir, a CLI config dir (holding `chats/`) or an editor User dir
 * (holding `globalStorage/`, or `User/globalStorage/`).
 */
import { createHash } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { basename, dirname, resolve, sep } from 'node:path'
import type { StoreContext } from '../../context.js'
import { xdgDir } from '../../context.js'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'

export interface CursorDirs {
  /** Dirs holding `projects/` (transcripts). */
  transcripts: string[]
  /** Dirs holding `chats/` (CLI chat stores). */
  chats: string[]
  /** Editor User dirs (holding `globalStorage/`). */
  users: string[]
}

/** The root is the `.cursor` dir, where ferry writes; reading looks at every dir of `cursorDirs`. */
export const store: StoreSpec = {
  envVars: ['CURSOR_CONFIG_DIR'],
  flag: { name: 'cursor-dir', describe: 'Cursor store to read (sniffed: a ~/.cursor dir, a ~/.config/cursor dir, or the editor User dir); written into when it is a .cursor dir (default ~/.cursor, plus ~/.config/cursor and the editor User dir)' },
  root: (ctx) => ctx.roots.cursor ?? resolve(ctx.home, '.cursor'),
}

/** Cursor's installer links ~/.local/bin/agent into ~/.local/share/cursor-agent/versions/<v>/; another `agent` is not it. */
export function isOwnBinary(realPath: string): boolean {
  return /[\\/]cursor-agent[\\/]|[\\/]cursor-agent$/.test(realPath)
}

export function ideUserDir(ctx: StoreContext): string {
  if (process.platform === 'darwin') return resolve(ctx.home, 'Library', 'Application Support', 'Cursor', 'User')
  if (process.platform === 'win32') return resolve(ctx.env.APPDATA || resolve(ctx.home, 'AppData', 'Roaming'), 'Cursor', 'User')
  return resolve(xdgDir(ctx, 'config'), 'Cursor', 'User')
}

/**
 * The CLI config dirs that may hold `chats/`: `$CURSOR_CONFIG_DIR` when set,
 * `cursor` and, in builds that share the editor's dir, `Cursor` (capital C), each under
 * `$XDG_CONFIG_HOME` and under `~/.config` when the variable points elsewhere
 * (some builds keep `~/.config/Cursor/chats` whatever it says). Existing
 * ones only, each once.
 */
export function configChatDirs(ctx: StoreContext): string[] {
  const bases = [...new Set([xdgDir(ctx, 'config'), resolve(ctx.home, '.config')])]
  const out: string[] = []
  // The CLI's own override: a non-blank CURSOR_CONFIG_DIR is its config dir (ignored with --home).
  const own = ctx.env.CURSOR_CONFIG_DIR?.trim()
  if (own) out.push(resolve(own))
  for (const b of bases) for (const name of ['cursor', 'Cursor']) out.push(resolve(b, name))
  // Case-insensitive file systems (macOS) see `cursor` and `Cursor` as one dir: keep it once (by inode).
  const seen = new Set<string>()
  return [...new Set(out)].filter((d) => {
    try {
      const st = statSync(d)
      const key = `${st.dev}:${st.ino}`
      if (!st.isDirectory() || seen.has(key)) return false
      seen.add(key)
      return true
    } catch {
      return false
    }
  })
}

export function cursorDirs(ctx: StoreContext): CursorDirs {
  const root = ctx.roots.cursor
  if (root) {
    const users = existsSync(resolve(root, 'globalStorage')) || existsSync(resolve(root, 'workspaceStorage')) ? [root] : existsSync(resolve(root, 'User', 'globalStorage')) ? [resolve(root, 'User')] : []
    return { transcripts: [root], chats: [root], users }
  }
  const dot = resolve(ctx.home, '.cursor')
  return { transcripts: [dot], chats: [dot, ...configChatDirs(ctx)], users: [ideUserDir(ctx)] }
}

/** Cursor's project slug: every run of non-alphanumerics becomes `-`, trimmed at both ends. */
export function slugFor(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
}

/** The chat-store bucket: lowercase hex MD5 of the absolute workspace path. */
export function chatBucket(cwd: string): string {
  return createHash('md5').update(cwd).digest('hex')
}

export function isSafeComponent(s: string): boolean {
  return s.length > 0 && s.length <= 200 && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s) && !s.includes('..')
}

/** `root/<a>/<b>/...` with each component checked; throws UnsafePathError otherwise. */
export function under(root: string, ...parts: string[]): string {
  for (const p of parts) if (!isSafeComponent(p)) throw new UnsafePathError(`refusing unsafe Cursor path component ${JSON.stringify(p)}`)
  const top = resolve(root)
  const out = resolve(top, ...parts)
  if (!out.startsWith(top + sep)) throw new UnsafePathError(`refusing Cursor path outside ${top}: ${out}`, out)
  return out
}

/** Session id from a transcript path (`<id>.jsonl`, `<id>.txt`, `<id>/<id>.jsonl`). */
export function transcriptId(path: string): string {
  return basename(path).replace(/\.(jsonl|txt)$/, '')
}

/** The nested transcript's session dir, when `path` is `<id>/<id>.jsonl`. */
export function nestedDir(path: string): string | null {
  const id = transcriptId(path)
  return basename(dirname(path)) === id ? dirname(path) : null
}
