/**
 * Where Gemini CLI keeps its sessions, and the only ways ferry builds such paths.
 *
 * `<home>/.gemini/` where home is `$GEMINI_CLI_HOME` when set (it replaces the
 * home directory, packages/core/src/utils/paths.ts), holding `projects.json`
 * (project root → short id) and per project `tmp/<short id>/` with
 * `.project_root`, `chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`, sub-agents
 * in `chats/<parent id>/<id>.jsonl` and spilled outputs in `tool-outputs/`.
 * Short ids are slugs (`[a-z0-9-]`), so every path ferry builds stays inside
 * the store whatever the session's cwd.
 */
import { createHash } from 'node:crypto'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { v5 as uuidV5, validate as isUuid } from 'uuid'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'

/** `--gemini-home`, else `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export const store: StoreSpec = {
  envVars: ['GEMINI_CLI_HOME'],
  flag: { name: 'gemini-home', describe: 'Gemini CLI data dir (default $GEMINI_CLI_HOME/.gemini, else ~/.gemini)' },
  root: (ctx) => ctx.roots.gemini ?? resolve(ctx.env.GEMINI_CLI_HOME || ctx.home, '.gemini'),
}

/** Gemini's `ProjectRegistry.slugify`: basename lower-cased, non-`[a-z0-9]` → `-`, runs collapsed, edges trimmed. */
export function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '') || 'project'
}

/** The first candidate short id of a project root (`-1`, `-2`… follow on a collision). */
export function baseSlug(projectRoot: string): string {
  return slugify(basename(projectRoot) || 'project')
}

/** `projectHash` of the metadata line: sha256 hex of the project root. */
export function projectHash(projectRoot: string): string {
  return createHash('sha256').update(projectRoot).digest('hex')
}

/** Gemini's file name: `session-` + ISO time to the minute with `:` → `-` + `-` + the first 8 of the id. */
export function sessionFileName(startTime: string, id: string): string {
  return `session-${startTime.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`
}

/** A main session file name (`session-*.jsonl`, not a temp file). */
export function isSessionFileName(name: string): boolean {
  return name.startsWith('session-') && name.endsWith('.jsonl')
}

/** The namespace of ids ferry derives for Gemini; changing it would rename every session ferry already wrote. */
const GEMINI_NAMESPACE = '3b6f7f0e-2c1d-4f5e-9a8b-7c6d5e4f3a2b'

/** A session or message id for Gemini: a UUID as it is, anything else the name-based UUID (v5) of it. */
export function uuidFor(name: string): string {
  return isUuid(name) ? name.toLowerCase() : uuidV5(name, GEMINI_NAMESPACE)
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/

/** `<root>/tmp/<slug>`, refusing anything but a slug. */
export function projectDir(root: string, slug: string): string {
  if (!SLUG.test(slug) || slug.length > 255) throw new UnsafePathError(`refusing unsafe Gemini project id: ${JSON.stringify(slug)}`)
  return join(resolve(root), 'tmp', slug)
}

/** A file directly inside `<root>/tmp/<slug>/chats/` (or one level below, for sub-agents), refusing escapes. */
export function chatPath(root: string, slug: string, ...rel: string[]): string {
  const chats = join(projectDir(root, slug), 'chats')
  for (const part of rel) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(part) || part.length > 255) throw new UnsafePathError(`refusing unsafe Gemini session path component: ${JSON.stringify(part)}`)
  }
  const p = resolve(chats, ...rel)
  if (!p.startsWith(chats + sep) || dirname(p) === p) throw new UnsafePathError(`refusing Gemini session path outside ${chats}: ${p}`, p)
  return p
}
