/**
 * The project directory name Claude Code derives from a working directory
 * (observed on 2.1.332, see docs/formats/claude-code.md): every UTF-16 code
 * unit that is not an ASCII letter or digit becomes `-`; names longer than
 * 200 units are cut and suffixed with `-` + base-36 |hash| of the original.
 */

const MAX = 200

/** Java-style 32-bit string hash over UTF-16 code units. */
export function stringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0
  return h
}

export function projectSlug(cwd: string): string {
  // No `u` flag: the rule works on UTF-16 code units, so an astral character yields two dashes.
  const slug = cwd.replace(/[^A-Za-z0-9]/g, '-')
  if (slug.length <= MAX) return slug
  return `${slug.slice(0, MAX)}-${Math.abs(stringHash(cwd)).toString(36)}`
}

/** True for a name that can only be a project directory (no separators, dots or NUL). */
export function isSafeSlug(name: string): boolean {
  return /^[A-Za-z0-9-]{1,255}$/.test(name)
}
