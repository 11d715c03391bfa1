/**
 * Where Grok keeps its sessions (the store root), and the only ways ferry builds such paths.
 *
 * The group directory name is Grok's `encode_cwd_dirname`
 * (xai-grok-config/src/paths.rs): the cwd percent-encoded per byte with only
 * RFC 3986 unreserved characters kept; when that is longer than 255 bytes,
 * `<slug>-<blake3 hex16>` plus a `.cwd` file holding the cwd. Every path that
 * ferry writes or replaces is checked to be exactly `<root>/sessions/<group>/<id>`
 * with single, non-dot components, so a hostile id or cwd cannot escape.
 */
import { basename, dirname, join, resolve, sep } from 'node:path'
import { blake3 } from '@noble/hashes/blake3.js'
import { v5 as uuidV5 } from 'uuid'
import { UnsafePathError } from '../../errors.js'
import type { StoreSpec } from '../types.js'

/** `--grok-home`, else `$GROK_HOME` when set and non-empty (as Grok does, xai-grok-home/src/lib.rs), else `~/.grok`. */
export const store: StoreSpec = {
  envVars: ['GROK_HOME'],
  flag: { name: 'grok-home', describe: 'Grok home (default $GROK_HOME, else ~/.grok)' },
  root: (ctx) => ctx.roots.grok ?? (ctx.env.GROK_HOME || resolve(ctx.home, '.grok')),
}

const MAX_DIRNAME_BYTES = 255
const UNRESERVED = /[A-Za-z0-9\-._~]/

/** Rust `urlencoding::encode`: unreserved bytes kept, every other byte `%XX` (upper-case hex). */
export function urlEncode(s: string): string {
  let out = ''
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b)
    out += b < 0x80 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Percent-decoding that, like `urlencoding::decode`, fails on invalid UTF-8. */
export function urlDecode(name: string): string | null {
  try {
    return decodeURIComponent(name)
  } catch {
    return null
  }
}

/** Grok's `slugify`: lower-case, runs of non-ASCII-alphanumerics to one `-`, edges trimmed, 40 chars. */
export function slugify(input: string, maxLen = 40): string {
  let out = ''
  let prevDash = false
  for (const c of input.toLowerCase()) {
    if (/^[a-z0-9]$/.test(c)) {
      out += c
      prevDash = false
    } else if (!prevDash) {
      out += '-'
      prevDash = true
    }
  }
  return [...out.replace(/^-+|-+$/g, '')].slice(0, maxLen).join('')
}

/** Rust `Path::file_name` for a Unix path: the last normal component, none for `/`, `..`. */
function fileName(path: string): string | null {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.')
  const last = parts[parts.length - 1]
  if (last === undefined || last === '..') return null
  return last
}

/** The group directory name Grok uses for `cwd`, and whether it is the hashed form (needs `.cwd`). */
export function encodeCwdDirname(cwd: string): { name: string; hashed: boolean } {
  const encoded = urlEncode(cwd)
  if (Buffer.byteLength(encoded) <= MAX_DIRNAME_BYTES) return { name: encoded, hashed: false }
  const hash16 = Buffer.from(blake3(Buffer.from(cwd, 'utf8'))).toString('hex').slice(0, 16)
  const slug = slugify(fileName(cwd) ?? 'workspace') || 'workspace'
  return { name: `${slug}-${hash16}`, hashed: true }
}

/**
 * The cwd a group directory stands for: percent-decoded name when that is an
 * absolute path, else the content of `.cwd` (read by the caller, passed in).
 */
export function decodeGroupName(name: string, cwdFile?: string | null): string | undefined {
  const decoded = urlDecode(name)
  if (decoded !== null && decoded.startsWith('/')) return decoded
  const t = cwdFile?.trim()
  return t ? t : undefined
}

/** A string that is safe as one path component (not empty, no separator, no NUL, not a dot name). */
export function isSafeComponent(s: string): boolean {
  return s.length > 0 && s.length <= 255 && !/[/\\\0]/.test(s) && s !== '.' && s !== '..'
}

/** The namespace of ids ferry derives for Grok; changing it would rename every session ferry already wrote. */
const GROK_NAMESPACE = '6f1c2b8e-4d7a-4e0f-9b3c-5a7d1e2f3a4b'

/** RFC 9562 name-based UUID (v5): the same source session always maps to the same id. */
export function uuidFor(name: string): string {
  return uuidV5(name, GROK_NAMESPACE)
}

/**
 * `<root>/sessions/<group>/<id>`, refusing anything else. Every write,
 * overwrite and replacement of a session directory goes through here.
 */
export function sessionDirPath(root: string, group: string, id: string): string {
  if (!isSafeComponent(group) || !isSafeComponent(id)) {
    throw new UnsafePathError(`refusing unsafe Grok session path component: ${JSON.stringify(group)}/${JSON.stringify(id)}`)
  }
  const sessions = resolve(root, 'sessions')
  const dir = resolve(sessions, group, id)
  if (dirname(dirname(dir)) !== sessions || basename(dir) !== id || basename(dirname(dir)) !== group || !dir.startsWith(sessions + sep)) {
    throw new UnsafePathError(`refusing Grok session path outside ${sessions}: ${dir}`, dir)
  }
  return dir
}

/** A relative path inside a session dir (sidecar, asset), refusing escapes. */
export function insideSession(dir: string, rel: string): string {
  const parts = rel.split('/')
  if (rel.startsWith('/') || parts.some((p) => !isSafeComponent(p))) {
    throw new UnsafePathError(`refusing unsafe path inside a Grok session: ${JSON.stringify(rel)}`)
  }
  return join(dir, ...parts)
}
